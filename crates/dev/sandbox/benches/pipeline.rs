//! What the request pipeline adds to a create: the same ConfigMap create through the HTTPS
//! API (kube-rs client, one request at a time) as
//! 1. the admin (system:masters: authentication, no RBAC evaluation, no webhook matches),
//! 2. a static user authorized by RBAC (a RoleBinding), no webhook matches,
//! 3. the same user in a namespace where one mutating and one validating webhook (HTTPS on
//!    loopback, answering at once) are called,
//!
//! 4. (1) again, last, as the noise floor of the comparison,
//!
//! all measured in the same run, so the ratios to (1) are the cost of authentication +
//! authorization and of two webhook calls.
//!
//! `cargo bench -p certgate-sandbox --bench pipeline`

use std::sync::atomic::{AtomicUsize, Ordering};

use axum::Json;
use axum::routing::post;
use base64::Engine as _;
use certgate_access::StaticUsers;
use certgate_sandbox::{SandboxOptions, kubeconfig, start};
use certgate_serving::{DevCertificates, server_config};
use criterion::{Criterion, criterion_group, criterion_main};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, DynamicObject, Patch, PatchParams, PostParams};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::discovery::ApiResource;
use serde_json::{Value, json};

async fn allow(Json(review): Json<Value>) -> Json<Value> {
    Json(json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
        "response": {"uid": review["request"]["uid"], "allowed": true}}))
}

async fn label(Json(review): Json<Value>) -> Json<Value> {
    let patch = json!([{"op": "add", "path": "/metadata/labels", "value": {"mutated": "yes"}}]);
    Json(json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
        "response": {"uid": review["request"]["uid"], "allowed": true, "patchType": "JSONPatch",
            "patch": base64::engine::general_purpose::STANDARD.encode(patch.to_string())}}))
}

/// Serves `/mutate` and `/validate` on a free loopback port; returns (base URL, CA PEM).
async fn webhooks() -> (String, String) {
    let certificates = DevCertificates::generate(&[]).unwrap();
    let tls = server_config(&certificates.serving).unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let address = listener.local_addr().unwrap();
    let app = axum::Router::new().route("/mutate", post(label)).route("/validate", post(allow));
    let server = axum_server::from_tcp_rustls(
        listener,
        axum_server::tls_rustls::RustlsConfig::from_config(tls),
    )
    .unwrap();
    tokio::spawn(server.serve(app.into_make_service()));
    (format!("https://{address}"), certificates.ca_pem)
}

fn configuration(kind: &str, path: &str, base: &str, ca: &str) -> Value {
    json!({
        "apiVersion": "admissionregistration.k8s.io/v1", "kind": kind, "metadata": {"name": path},
        "webhooks": [{
            "name": format!("{path}.bench.example.com"), "admissionReviewVersions": ["v1"],
            "sideEffects": "None", "failurePolicy": "Fail",
            "clientConfig": {"url": format!("{base}/{path}"),
                "caBundle": base64::engine::general_purpose::STANDARD.encode(ca)},
            "namespaceSelector": {"matchLabels": {"webhooks": "on"}},
            "rules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["configmaps"]}],
        }],
    })
}

async fn client(config_text: &str) -> kube::Client {
    let kubeconfig = Kubeconfig::from_yaml(config_text).unwrap();
    let config = kube::Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default())
        .await
        .unwrap();
    kube::Client::try_from(config).unwrap()
}

async fn apply(client: &kube::Client, object: Value) {
    let types = object["apiVersion"]
        .as_str()
        .unwrap()
        .rsplit_once('/')
        .map_or(("", object["apiVersion"].as_str().unwrap()), |(g, v)| (g, v));
    let kind = object["kind"].as_str().unwrap();
    let plural = format!("{}s", kind.to_ascii_lowercase());
    let gvk = kube::api::GroupVersionKind::gvk(types.0, types.1, kind);
    let resource = ApiResource::from_gvk_with_plural(&gvk, &plural);
    let api: Api<DynamicObject> = match object["metadata"]["namespace"].as_str() {
        Some(ns) => Api::namespaced_with(client.clone(), ns, &resource),
        None => Api::all_with(client.clone(), &resource),
    };
    let name = object["metadata"]["name"].as_str().unwrap().to_owned();
    api.patch(&name, &PatchParams::apply("bench").force(), &Patch::Apply(&object)).await.unwrap();
}

fn pipeline(c: &mut Criterion) {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let runtime =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let users =
        StaticUsers::from_yaml("users:\n- token: bench-token\n  username: bench\n").unwrap();
    let (admin, user) = runtime.block_on(async {
        let sandbox = start(SandboxOptions { users, ..SandboxOptions::default() }).await.unwrap();
        let admin = client(&sandbox.kubeconfig()).await;
        let user = client(&kubeconfig::render(sandbox.address, &sandbox.ca_pem, "bench-token")).await;
        let (base, ca) = webhooks().await;
        for namespace in [json!({"name": "plain"}), json!({"name": "hooked", "labels": {"webhooks": "on"}})] {
            apply(&admin, json!({"apiVersion": "v1", "kind": "Namespace", "metadata": namespace})).await;
        }
        for namespace in ["plain", "hooked"] {
            apply(&admin, json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
                "metadata": {"name": "bench-edit", "namespace": namespace},
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "edit"},
                "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "bench"}]})).await;
        }
        apply(&admin, configuration("MutatingWebhookConfiguration", "mutate", &base, &ca)).await;
        apply(&admin, configuration("ValidatingWebhookConfiguration", "validate", &base, &ca)).await;
        std::mem::forget(sandbox); // serves until the process ends
        (admin, user)
    });
    let counter = AtomicUsize::new(0);
    let create = |client: &kube::Client, namespace: &str| {
        let api: Api<ConfigMap> = Api::namespaced(client.clone(), namespace);
        let name = format!("cm-{}", counter.fetch_add(1, Ordering::Relaxed));
        let object = ConfigMap {
            metadata: kube::api::ObjectMeta { name: Some(name), ..Default::default() },
            ..Default::default()
        };
        runtime.block_on(async move { api.create(&PostParams::default(), &object).await.unwrap() })
    };
    let mut group = c.benchmark_group("create ConfigMap through the API");
    group.bench_function("admin (system:masters), no webhooks", |b| {
        b.iter(|| create(&admin, "plain"))
    });
    group.bench_function("RBAC user, no webhooks", |b| b.iter(|| create(&user, "plain")));
    group.bench_function("RBAC user, 1 mutating + 1 validating webhook", |b| {
        b.iter(|| create(&user, "hooked"))
    });
    // The baseline again: the store has grown and the process is warm; the spread between
    // the two baseline rows is the noise floor of the comparison.
    group.bench_function("admin (system:masters), no webhooks, again", |b| {
        b.iter(|| create(&admin, "plain"))
    });
    group.finish();
}

criterion_group!(benches, pipeline);
criterion_main!(benches);
