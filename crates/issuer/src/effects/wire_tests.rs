//! [`KubeEffects`] against a mocked API server: the exact requests it sends (method, path,
//! body) and how it reads the answers.

use std::time::Duration;

use certgate_api::CertificateRequest;
use certgate_api::cert_manager::{ClusterIssuer, ClusterIssuerSpec, Issuer, IssuerSpec};
use http::{Method, Request, Response, StatusCode, header};
use kube::client::Body;
use serde_json::{Value, json};
use tower_test::mock;

use super::*;

const STEP: Duration = Duration::from_secs(10);

type Handle = mock::Handle<Request<Body>, Response<Body>>;

fn effects() -> (KubeEffects, Handle) {
    let (service, handle) = mock::pair::<Request<Body>, Response<Body>>();
    let client = Client::new(service, "default");
    let reporter = Reporter { controller: "cert-manager-test".to_owned(), instance: None };
    (KubeEffects::new(client, reporter, "test"), handle)
}

/// Answers the next request with `status` and `body`; returns its method, URI and body.
async fn answer(handle: &mut Handle, status: StatusCode, body: &Value) -> (Method, String, Value) {
    let (request, reply) = tokio::time::timeout(STEP, handle.next_request())
        .await
        .expect("a request")
        .expect("the client is alive");
    let (parts, sent) = request.into_parts();
    let sent = sent.collect_bytes().await.unwrap();
    let sent = if sent.is_empty() { Value::Null } else { serde_json::from_slice(&sent).unwrap() };
    reply.send_response(
        Response::builder()
            .status(status)
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(serde_json::to_vec(body).unwrap()))
            .unwrap(),
    );
    (parts.method, parts.uri.to_string(), sent)
}

fn not_found(name: &str) -> Value {
    json!({"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "NotFound",
           "code": 404, "message": format!("secrets \"{name}\" not found")})
}

#[tokio::test]
async fn a_secret_is_read_decoded_and_a_missing_one_is_none() {
    let (effects, mut handle) = effects();
    let read = tokio::spawn(async move {
        let missing = effects.read_secret("payments", "ca").await.unwrap();
        let found = effects.read_secret("payments", "ca").await.unwrap();
        (missing, found)
    });
    let (method, uri, _) = answer(&mut handle, StatusCode::NOT_FOUND, &not_found("ca")).await;
    assert_eq!((method, uri.as_str()), (Method::GET, "/api/v1/namespaces/payments/secrets/ca"));
    let secret = json!({"apiVersion": "v1", "kind": "Secret",
        "metadata": {"name": "ca", "namespace": "payments"},
        "data": {"tls.crt": "Y2VydA==", "tls.key": "a2V5"}});
    answer(&mut handle, StatusCode::OK, &secret).await;
    let (missing, found) = read.await.unwrap();
    assert_eq!(missing, None);
    let found = found.unwrap();
    assert_eq!(found["tls.crt"], b"cert");
    assert_eq!(found["tls.key"], b"key");
}

#[tokio::test]
async fn statuses_are_replaced_on_their_status_subresource() {
    let (effects, mut handle) = effects();
    let mut cr = CertificateRequest::new("web", Default::default());
    cr.metadata.namespace = Some("payments".to_owned());
    cr.metadata.resource_version = Some("42".to_owned());
    cr.status = Some(Default::default());
    let mut issuer = Issuer::new("ca", IssuerSpec::default());
    issuer.metadata.namespace = Some("payments".to_owned());
    let cluster_issuer = ClusterIssuer::new("root", ClusterIssuerSpec::default());
    let written = {
        let (cr, issuer, cluster_issuer) = (cr.clone(), issuer.clone(), cluster_issuer.clone());
        tokio::spawn(async move {
            effects.write_request_status(&cr).await.unwrap();
            effects.write_issuer_status(&issuer).await.unwrap();
            effects.write_issuer_status(&cluster_issuer).await.unwrap();
        })
    };
    let (method, uri, body) =
        answer(&mut handle, StatusCode::OK, &serde_json::to_value(&cr).unwrap()).await;
    assert_eq!(
        (method, uri.as_str()),
        (
            Method::PUT,
            "/apis/cert-manager.io/v1/namespaces/payments/certificaterequests/web/status?"
        )
    );
    assert_eq!(body["metadata"]["resourceVersion"], "42", "a stale copy conflicts");
    let (method, uri, _) =
        answer(&mut handle, StatusCode::OK, &serde_json::to_value(&issuer).unwrap()).await;
    assert_eq!(
        (method, uri.as_str()),
        (Method::PUT, "/apis/cert-manager.io/v1/namespaces/payments/issuers/ca/status?")
    );
    let (method, uri, _) =
        answer(&mut handle, StatusCode::OK, &serde_json::to_value(&cluster_issuer).unwrap()).await;
    assert_eq!(
        (method, uri.as_str()),
        (Method::PUT, "/apis/cert-manager.io/v1/clusterissuers/root/status?")
    );
    written.await.unwrap();
}
