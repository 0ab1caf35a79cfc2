//! The reconcile against a mocked API server, as kube-rs's controller-rs tests: the exact
//! requests [`KubeEffects`] sends (method, path and query, content type, body) and how the
//! reconcile takes the server's answers. The branches themselves are `tests.rs`'s job.

use std::sync::Arc;
use std::time::Duration;

use certgate_api::CertificateRequest;
use http::{Method, Request, Response, StatusCode, header};
use kube::Client;
use kube::client::Body;
use kube::runtime::controller::Action;
use serde_json::{Value, json};
use tokio::task::JoinHandle;
use tower_test::mock::{self, SendResponse};

use super::fixtures::{context_with, example_request, payments};
use super::{KubeEffects, ReconcileError, reconcile};

/// The reporting instance the events name (`--instance`, the pod name).
const INSTANCE: &str = "certgate-0";
/// How long a step may take before the scenario counts as hung.
const STEP: Duration = Duration::from_secs(10);

/// The API server's side of the mocked client: receives requests in order and answers them.
struct ApiServer(mock::Handle<Request<Body>, Response<Body>>);

/// One request as the API server received it, with the body parsed as JSON.
struct Received {
    method: Method,
    uri: String,
    content_type: String,
    body: Value,
    reply: SendResponse<Response<Body>>,
}

impl Received {
    /// Answers with `status` and the JSON `body`, as the API server does.
    fn answer(self, status: StatusCode, body: &Value) {
        let response = Response::builder()
            .status(status)
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(serde_json::to_vec(body).unwrap()))
            .unwrap();
        self.reply.send_response(response);
    }
}

impl ApiServer {
    /// The next request; panics when the reconcile ended without sending one.
    async fn next(&mut self, what: &str) -> Received {
        let (request, reply) = tokio::time::timeout(STEP, self.0.next_request())
            .await
            .unwrap_or_else(|_| panic!("no {what} within {STEP:?}"))
            .unwrap_or_else(|| panic!("the reconcile ended without sending {what}"));
        let (parts, body) = request.into_parts();
        let body = body.collect_bytes().await.unwrap();
        Received {
            method: parts.method,
            uri: parts.uri.to_string(),
            content_type: parts
                .headers
                .get(header::CONTENT_TYPE)
                .map(|value| value.to_str().unwrap().to_owned())
                .unwrap_or_default(),
            body: serde_json::from_slice(&body).unwrap(),
            reply,
        }
    }

    /// The reconcile's result, once it ends without sending anything more: a request
    /// nobody expects is a failure, not a reconcile waiting forever for its answer.
    async fn finish(
        mut self,
        mut reconcile: JoinHandle<Result<Action, ReconcileError>>,
    ) -> Result<Action, ReconcileError> {
        let ended = tokio::time::timeout(STEP, async {
            tokio::select! {
                result = &mut reconcile => result,
                extra = self.0.next_request() => match extra {
                    Some((request, _)) => {
                        panic!("unexpected request {} {}", request.method(), request.uri())
                    }
                    // The client went away with the reconcile's context: it is ending.
                    None => reconcile.await,
                },
            }
        });
        ended.await.expect("the reconcile ends").unwrap()
    }
}

/// Spawns the reconcile of `cr` with [`KubeEffects`] on a mocked client (the examples'
/// policies, local RBAC, Namespace `payments`), and the server side of the mock.
fn reconcile_on_the_wire(
    cr: CertificateRequest,
) -> (JoinHandle<Result<Action, ReconcileError>>, ApiServer) {
    let (service, handle) = mock::pair::<Request<Body>, Response<Body>>();
    let effects = KubeEffects::new(Client::new(service, "default"), Some(INSTANCE.to_owned()));
    let context = context_with(payments(), effects);
    (tokio::spawn(reconcile(Arc::new(cr), context)), ApiServer(handle))
}

/// Takes `field` out of `object` and checks it is a UTC `MicroTime` as Kubernetes writes it,
/// so the rest compares exactly. (kube's recorder stamps events with its own clock.)
fn take_micro_time(object: &mut Value, field: &str) {
    let time = object
        .as_object_mut()
        .and_then(|object| object.remove(field))
        .unwrap_or_else(|| panic!("no {field} in {object}"));
    let time = time.as_str().unwrap_or_else(|| panic!("{field} is not a string: {time}"));
    // `2026-01-01T00:00:00.000000Z`.
    assert!(
        time.len() == 27
            && time.ends_with('Z')
            && time.parse::<k8s_openapi::jiff::Timestamp>().is_ok(),
        "{field}: {time}"
    );
}

/// The status apply the policy approver sends for `name` in `payments`: `condition` written
/// at the fixtures' clock time.
async fn expect_status_apply(api: &mut ApiServer, name: &str, mut condition: Value) -> Received {
    condition["lastTransitionTime"] = json!("2026-11-04T11:30:45Z");
    let apply = api.next("the status apply").await;
    assert_eq!(apply.method, Method::PATCH);
    assert_eq!(
        apply.uri,
        format!(
            "/apis/cert-manager.io/v1/namespaces/payments/certificaterequests/{name}/status?&force=true&fieldManager=approver-policy"
        )
    );
    assert_eq!(apply.content_type, "application/apply-patch+yaml");
    assert_eq!(
        apply.body,
        json!({
            "apiVersion": "cert-manager.io/v1",
            "kind": "CertificateRequest",
            "metadata": {"name": name, "namespace": "payments"},
            "status": {"conditions": [condition]},
        })
    );
    apply
}

/// The event the policy approver posts about `name` in `payments`, answered as created.
async fn expect_event(api: &mut ApiServer, name: &str, type_: &str, reason: &str, note: &str) {
    let mut event = api.next("the event").await;
    assert_eq!(event.method, Method::POST);
    assert_eq!(event.uri, "/apis/events.k8s.io/v1/namespaces/payments/events?");
    assert_eq!(event.content_type, "application/json");
    let created = event.body.clone();
    take_micro_time(&mut event.body, "eventTime");
    // The recorder names events `<object>.<nanoseconds in hex>`.
    let event_name = event.body["metadata"].as_object_mut().and_then(|meta| meta.remove("name"));
    let suffix = event_name.as_ref().and_then(Value::as_str).and_then(|n| n.strip_prefix(name));
    assert!(
        suffix
            .and_then(|suffix| suffix.strip_prefix('.'))
            .is_some_and(|hex| !hex.is_empty() && hex.chars().all(|c| c.is_ascii_hexdigit())),
        "event name {event_name:?}"
    );
    assert_eq!(
        event.body,
        json!({
            "apiVersion": "events.k8s.io/v1",
            "kind": "Event",
            "metadata": {"namespace": "payments"},
            "action": "Synced",
            "note": note,
            "reason": reason,
            "regarding": {
                "apiVersion": "cert-manager.io/v1",
                "kind": "CertificateRequest",
                "name": name,
                "namespace": "payments",
            },
            "reportingController": "policy.cert-manager.io",
            "reportingInstance": INSTANCE,
            "type": type_,
        })
    );
    let mut created = created;
    created["metadata"]["uid"] = json!("0b6f4a2e-7c1d-4f8a-9e35-2d8c6b1a9f40");
    created["metadata"]["resourceVersion"] = json!("4711");
    created["metadata"]["creationTimestamp"] = json!("2026-01-01T00:00:00Z");
    event.answer(StatusCode::CREATED, &created);
}

/// The request as the API server returns it after the apply: the object with the condition.
fn applied(cr: &CertificateRequest, apply: &Received) -> Value {
    let mut object = serde_json::to_value(cr).unwrap();
    object["metadata"]["uid"] = json!("5d0c3e7a-1b2f-4c6d-8e9a-0f1b2c3d4e5f");
    object["metadata"]["resourceVersion"] = json!("4710");
    object["status"] = apply.body["status"].clone();
    object["status"]["conditions"][0]["lastTransitionTime"] = json!("2026-01-01T00:00:00Z");
    object
}

#[tokio::test]
async fn an_approved_request_is_applied_then_a_normal_event_is_posted() {
    let cr = example_request("api-tls");
    let (reconcile, mut api) = reconcile_on_the_wire(cr.clone());
    let message = r#"Approved by CertificateRequestPolicy: "namespace-local-dns""#;
    let apply = expect_status_apply(
        &mut api,
        "api-tls",
        json!({"type": "Approved", "status": "True", "reason": "policy.cert-manager.io",
            "message": message}),
    )
    .await;
    let object = applied(&cr, &apply);
    apply.answer(StatusCode::OK, &object);
    expect_event(&mut api, "api-tls", "Normal", "Approved", message).await;
    assert_eq!(api.finish(reconcile).await.unwrap(), Action::await_change());
}

#[tokio::test]
async fn a_denied_request_is_applied_then_a_warning_is_posted() {
    let cr = example_request("ledger-tls");
    let (reconcile, mut api) = reconcile_on_the_wire(cr.clone());
    let message = r#"No policy approved this request: [namespace-local-dns: spec.allowed.dnsNames.validations[0]: Invalid value: "ledger.legacy-payments.svc": DNS names must be services of the request's own namespace]"#;
    let apply = expect_status_apply(
        &mut api,
        "ledger-tls",
        json!({"type": "Denied", "status": "True", "reason": "policy.cert-manager.io",
            "message": message}),
    )
    .await;
    let object = applied(&cr, &apply);
    apply.answer(StatusCode::OK, &object);
    expect_event(&mut api, "ledger-tls", "Warning", "Denied", message).await;
    assert_eq!(api.finish(reconcile).await.unwrap(), Action::await_change());
}

#[tokio::test]
async fn a_refused_status_write_is_the_reconcile_error_and_posts_no_event() {
    let (reconcile, mut api) = reconcile_on_the_wire(example_request("api-tls"));
    let message = r#"certificaterequests.cert-manager.io "api-tls" is forbidden: User "system:serviceaccount:cert-manager:certgate" cannot patch resource "certificaterequests/status" in API group "cert-manager.io" in the namespace "payments""#;
    let apply = expect_status_apply(
        &mut api,
        "api-tls",
        json!({"type": "Approved", "status": "True", "reason": "policy.cert-manager.io",
            "message": r#"Approved by CertificateRequestPolicy: "namespace-local-dns""#}),
    )
    .await;
    apply.answer(
        StatusCode::FORBIDDEN,
        &json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": message, "reason": "Forbidden",
            "details": {"name": "api-tls", "group": "cert-manager.io",
                "kind": "certificaterequests"},
            "code": 403}),
    );
    let error = api.finish(reconcile).await.unwrap_err();
    // kube's error text carries the server's message and reason, then its Debug form.
    assert!(
        error.to_string().starts_with(&format!(
            "cannot write the Approved condition of CertificateRequest payments/api-tls: \
             ApiError: {message}: Forbidden (Status {{"
        )),
        "{error}"
    );
    let ReconcileError::Write { request, condition, source: kube::Error::Api(status) } = error
    else {
        panic!("not the API server's refusal of the write: {error:?}");
    };
    assert_eq!((request.as_str(), condition.as_str()), ("payments/api-tls", "Approved"));
    assert_eq!(
        (status.code, status.reason.as_str(), status.message.as_str()),
        (403, "Forbidden", message)
    );
}

#[tokio::test]
async fn an_unprocessed_request_is_not_written_and_gets_one_event() {
    // jane is bound to no policy.
    let (reconcile, mut api) = reconcile_on_the_wire(example_request("laptop-tls"));
    expect_event(
        &mut api,
        "laptop-tls",
        "Normal",
        "Unprocessed",
        "Request is not applicable for any policy so ignoring",
    )
    .await;
    assert_eq!(api.finish(reconcile).await.unwrap(), Action::await_change());
}
