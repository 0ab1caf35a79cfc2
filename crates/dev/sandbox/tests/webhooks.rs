//! Admission webhooks registered in the sandbox and called as the API server calls them,
//! driven with the real `kubectl`: mutations applied before validation, denials reaching
//! the client with the webhook's message, and failure policies for a webhook that is down.

mod support;

use std::sync::{Arc, Mutex};

use axum::Json;
use axum::extract::State;
use axum::routing::post;
use base64::Engine as _;
use certgate_serving::{DevCertificates, server_config};
use serde_json::{Value, json};
use support::Harness;

/// What the test webhooks saw, in call order: (path, operation, labels of the object).
type Seen = Arc<Mutex<Vec<(String, String, Value)>>>;

/// Mutating: adds the label `mutated: "yes"`. Validating: refuses objects labelled
/// `deny: "yes"`.
async fn mutate(State(seen): State<Seen>, Json(review): Json<Value>) -> Json<Value> {
    record(&seen, "mutate", &review);
    let patch = json!([{"op": "add", "path": "/metadata/labels", "value": {"mutated": "yes"}}]);
    let labels = &review["request"]["object"]["metadata"]["labels"];
    let patch = if labels.is_object() {
        json!([{"op": "add", "path": "/metadata/labels/mutated", "value": "yes"}])
    } else {
        patch
    };
    Json(json!({
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "response": {
            "uid": review["request"]["uid"],
            "allowed": true,
            "patchType": "JSONPatch",
            "patch": base64::engine::general_purpose::STANDARD.encode(patch.to_string()),
        },
    }))
}

async fn validate(State(seen): State<Seen>, Json(review): Json<Value>) -> Json<Value> {
    record(&seen, "validate", &review);
    let denied = review["request"]["object"]["metadata"]["labels"]["deny"] == "yes";
    let mut response = json!({"uid": review["request"]["uid"], "allowed": !denied});
    if denied {
        // As controller-runtime's `admission::Response::denied` answers.
        response["status"] = json!({"code": 403, "reason": "Forbidden", "message": "configmaps labelled deny=yes are refused"});
    }
    Json(
        json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": response}),
    )
}

fn record(seen: &Seen, path: &str, review: &Value) {
    let request = &review["request"];
    seen.lock().unwrap().push((
        path.to_owned(),
        request["operation"].as_str().unwrap_or_default().to_owned(),
        request["object"]["metadata"]["labels"].clone(),
    ));
}

/// Serves the two test webhooks over HTTPS on a free loopback port; returns its base URL and
/// the CA bundle (PEM).
fn serve_webhooks(h: &Harness, seen: Seen) -> (String, String) {
    let certificates = DevCertificates::generate(&[]).unwrap();
    let tls = server_config(&certificates.serving).unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let address = listener.local_addr().unwrap();
    let app = axum::Router::new()
        .route("/mutate", post(mutate))
        .route("/validate", post(validate))
        .with_state(seen);
    let _guard = h.runtime.enter();
    let server = axum_server::from_tcp_rustls(
        listener,
        axum_server::tls_rustls::RustlsConfig::from_config(tls),
    )
    .unwrap();
    h.runtime.spawn(server.serve(app.into_make_service()));
    (format!("https://{address}"), certificates.ca_pem)
}

fn configuration(kind: &str, name: &str, url: &str, ca_pem: &str, failure_policy: &str) -> String {
    let ca_bundle = base64::engine::general_purpose::STANDARD.encode(ca_pem);
    format!(
        "apiVersion: admissionregistration.k8s.io/v1\nkind: {kind}\nmetadata:\n  name: {name}\nwebhooks:\n\
         - name: {name}.example.com\n  admissionReviewVersions: [v1]\n  sideEffects: None\n  failurePolicy: {failure_policy}\n  timeoutSeconds: 5\n\
         \x20 clientConfig:\n    url: {url}\n    caBundle: {ca_bundle}\n\
         \x20 objectSelector:\n    matchExpressions: [{{key: skip, operator: DoesNotExist}}]\n\
         \x20 rules:\n  - apiGroups: [\"\"]\n    apiVersions: [v1]\n    operations: [CREATE, UPDATE]\n    resources: [configmaps]\n"
    )
}

#[test]
fn mutations_come_before_validation_and_denials_reach_the_client() {
    let h = Harness::start();
    let seen = Seen::default();
    let (base, ca) = serve_webhooks(&h, Arc::clone(&seen));
    h.apply(&configuration(
        "MutatingWebhookConfiguration",
        "labeller",
        &format!("{base}/mutate"),
        &ca,
        "Fail",
    ));
    h.apply(&configuration(
        "ValidatingWebhookConfiguration",
        "guard",
        &format!("{base}/validate"),
        &ca,
        "Fail",
    ));

    h.ok(&["create", "configmap", "plain", "--from-literal=a=1"]);
    assert_eq!(
        h.ok(&["get", "configmap", "plain", "-o", "jsonpath={.metadata.labels.mutated}"]),
        "yes"
    );
    {
        let seen = seen.lock().unwrap();
        let calls: Vec<(&str, &str)> =
            seen.iter().map(|(p, o, _)| (p.as_str(), o.as_str())).collect();
        assert_eq!(calls, [("mutate", "CREATE"), ("validate", "CREATE")]);
        // The validating webhook saw the mutated object.
        assert_eq!(seen[1].2, json!({"mutated": "yes"}));
    }

    let manifest = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: refused\n  labels:\n    deny: \"yes\"\n";
    let output = h.kubectl_with_input(&["apply", "-f", "-"], Some(manifest));
    assert!(!output.status.success());
    assert_eq!(
        String::from_utf8_lossy(&output.stderr).trim(),
        r#"Error from server (Forbidden): error when creating "STDIN": admission webhook "guard.example.com" denied the request: configmaps labelled deny=yes are refused"#
    );
    h.fails(&["get", "configmap", "refused"]);

    // Objects the selector excludes are not sent at all.
    let before = seen.lock().unwrap().len();
    h.apply("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: skipped\n  labels:\n    skip: \"1\"\n    deny: \"yes\"\n");
    assert_eq!(seen.lock().unwrap().len(), before);
}

#[test]
fn a_webhook_that_is_down_fails_closed_or_is_skipped_by_its_policy() {
    let h = Harness::start();
    // Nothing listens on port 1 of loopback.
    let down = "https://127.0.0.1:1/validate";
    let ca = DevCertificates::generate(&[]).unwrap().ca_pem;
    h.apply(&configuration("ValidatingWebhookConfiguration", "down", down, &ca, "Fail"));
    let refused = h.fails(&["create", "configmap", "closed"]);
    assert!(
        refused.contains(r#"Internal error occurred: failed calling webhook "down.example.com": failed to call webhook: Post "https://127.0.0.1:1/validate?timeout=5s": dial tcp 127.0.0.1:1: connect: connection refused"#),
        "{refused}"
    );
    h.fails(&["get", "configmap", "closed"]);

    h.apply(&configuration("ValidatingWebhookConfiguration", "down", down, &ca, "Ignore"));
    h.ok(&["create", "configmap", "open"]);
    h.ok(&["get", "configmap", "open"]);
}
