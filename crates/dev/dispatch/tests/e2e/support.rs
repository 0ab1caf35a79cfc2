//! In-process HTTPS webhooks on 127.0.0.1 (axum + axum-server with a throw-away CA), and
//! builders for configurations and admission attributes.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum_server::Handle;
use axum_server::tls_rustls::RustlsConfig;
use base64::Engine;
use certgate_dispatch::{
    AdmissionAttributes, Configurations, GroupVersionKind, GroupVersionResource, Operation,
};
use certgate_serving::DevCertificates;
use serde_json::{Value, json};

pub fn install_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// What a test webhook answers.
pub enum Answer {
    /// A JSON body with status 200.
    Json(Value),
    /// Anything else.
    Raw { status: u16, content_type: Option<&'static str>, body: Vec<u8> },
    /// Never answers (the connection stays open).
    Hang,
}

/// One request the webhook received.
#[derive(Clone, Debug)]
pub struct Received {
    /// The client's address: the same one for requests sent over one connection.
    pub peer: SocketAddr,
    pub path_and_query: String,
    pub headers: HeaderMap,
    pub body: Value,
}

type Reply = Arc<dyn Fn(&Value) -> Answer + Send + Sync>;

#[derive(Clone)]
struct ServerState {
    reply: Reply,
    received: Arc<Mutex<Vec<Received>>>,
}

pub struct TestWebhook {
    pub address: SocketAddr,
    /// The CA that signed the serving certificate (PEM).
    pub ca_pem: String,
    received: Arc<Mutex<Vec<Received>>>,
    handle: Handle<SocketAddr>,
}

impl TestWebhook {
    /// `https://127.0.0.1:<port><path>`.
    pub fn url(&self, path: &str) -> String {
        format!("https://{}{path}", self.address)
    }

    pub fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }

    pub fn calls(&self) -> usize {
        self.received.lock().unwrap().len()
    }
}

impl Drop for TestWebhook {
    fn drop(&mut self) {
        self.handle.shutdown();
    }
}

async fn serve(
    State(state): State<ServerState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    state.received.lock().unwrap().push(Received {
        peer,
        path_and_query: uri.path_and_query().map(|p| p.to_string()).unwrap_or_default(),
        headers,
        body: body.clone(),
    });
    match (state.reply)(&body) {
        Answer::Json(value) => axum::Json(value).into_response(),
        Answer::Raw { status, content_type, body } => {
            let mut response = (StatusCode::from_u16(status).unwrap(), body).into_response();
            response.headers_mut().remove(header::CONTENT_TYPE);
            if let Some(content_type) = content_type {
                response.headers_mut().insert(header::CONTENT_TYPE, content_type.parse().unwrap());
            }
            response
        }
        Answer::Hang => std::future::pending().await,
    }
}

/// Starts a webhook on 127.0.0.1 (port 0) that answers every POST with `reply(review)`.
pub async fn start(reply: impl Fn(&Value) -> Answer + Send + Sync + 'static) -> TestWebhook {
    install_provider();
    let certificates = DevCertificates::generate(&[]).unwrap();
    let tls =
        RustlsConfig::from_config(certgate_serving::server_config(&certificates.serving).unwrap());
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let address = listener.local_addr().unwrap();
    let received = Arc::new(Mutex::new(Vec::new()));
    let state = ServerState { reply: Arc::new(reply), received: received.clone() };
    let app = axum::Router::new().fallback(serve).with_state(state);
    let handle = Handle::new();
    let server = axum_server::from_tcp_rustls(listener, tls).unwrap().handle(handle.clone());
    tokio::spawn(server.serve(app.into_make_service_with_connect_info::<SocketAddr>()));
    handle.listening().await.expect("test webhook listens");
    TestWebhook { address, ca_pem: certificates.ca_pem, received, handle }
}

/// A free 127.0.0.1 port nothing listens on (bound, then released).
pub fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

/// The request uid of a received review.
pub fn uid(review: &Value) -> String {
    review["request"]["uid"].as_str().unwrap_or_default().to_owned()
}

/// A v1 response to `review` with the extra `response` fields merged in.
pub fn respond(review: &Value, fields: Value) -> Answer {
    let mut response = json!({ "uid": uid(review), "allowed": true });
    if let (Some(target), Value::Object(extra)) = (response.as_object_mut(), fields) {
        target.extend(extra);
    }
    Answer::Json(
        json!({ "apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": response }),
    )
}

pub fn allow(review: &Value) -> Answer {
    respond(review, json!({}))
}

/// A response carrying `operations` as a base64 JSONPatch.
pub fn patch(review: &Value, operations: Value) -> Answer {
    let encoded = base64::engine::general_purpose::STANDARD.encode(operations.to_string());
    respond(review, json!({ "patch": encoded, "patchType": "JSONPatch" }))
}

pub fn ca_bundle(pem: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(pem)
}

/// A webhook entry calling `url`, trusting `ca_pem`, for pods CREATE and UPDATE, with
/// `overrides` merged over the defaults.
pub fn webhook(name: &str, url: &str, ca_pem: &str, overrides: Value) -> Value {
    let mut hook = json!({
        "name": name,
        "clientConfig": { "url": url, "caBundle": ca_bundle(ca_pem) },
        "rules": [{
            "operations": ["CREATE", "UPDATE"],
            "apiGroups": [""],
            "apiVersions": ["v1"],
            "resources": ["pods"],
        }],
        "sideEffects": "None",
        "admissionReviewVersions": ["v1"],
    });
    if let (Some(target), Value::Object(extra)) = (hook.as_object_mut(), overrides) {
        target.extend(extra);
    }
    hook
}

pub fn mutating_configuration(name: &str, webhooks: Vec<Value>) -> Value {
    json!({
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "MutatingWebhookConfiguration",
        "metadata": { "name": name },
        "webhooks": webhooks,
    })
}

pub fn validating_configuration(name: &str, webhooks: Vec<Value>) -> Value {
    json!({
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingWebhookConfiguration",
        "metadata": { "name": name },
        "webhooks": webhooks,
    })
}

pub fn mutating(webhooks: Vec<Value>) -> Configurations {
    Configurations::from_objects(&[mutating_configuration("test-mutating", webhooks)], &[])
}

pub fn validating(webhooks: Vec<Value>) -> Configurations {
    Configurations::from_objects(&[], &[validating_configuration("test-validating", webhooks)])
}

pub fn pod(namespace: &str, name: &str, labels: Value) -> Value {
    json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": { "name": name, "namespace": namespace, "labels": labels },
        "spec": { "containers": [{ "name": "app", "image": "example.com/app:1" }] },
    })
}

/// A CREATE of `pods/<name>` in `namespace` by user `alice`.
pub fn pod_create(namespace: &str, name: &str, labels: Value) -> AdmissionAttributes {
    AdmissionAttributes {
        operation: Operation::Create,
        kind: GroupVersionKind { group: String::new(), version: "v1".into(), kind: "Pod".into() },
        resource: GroupVersionResource {
            group: String::new(),
            version: "v1".into(),
            resource: "pods".into(),
        },
        subresource: String::new(),
        namespaced: true,
        name: name.to_owned(),
        namespace: namespace.to_owned(),
        user: certgate_rbac::UserInfo {
            username: "alice".into(),
            uid: String::new(),
            groups: vec!["system:authenticated".into()],
            extra: BTreeMap::new(),
        },
        object: Some(pod(namespace, name, labels)),
        old_object: None,
        dry_run: false,
        options: json!({ "kind": "CreateOptions", "apiVersion": "meta.k8s.io/v1" }),
        namespace_labels: Some(BTreeMap::new()),
    }
}
