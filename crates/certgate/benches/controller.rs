//! How fast the policy approver decides a backlog: 10,000 pending CertificateRequests (from
//! 100 namespaces, each requested by its namespace's service account) against 50 Ready
//! CertificateRequestPolicies, in the sandbox API server of this process, measured from the
//! controller's start until every request carries its Approved or Denied condition.
//!
//! Each request is reviewed against the policies in name order until one approves (policy
//! `k` approves namespace `k mod 50`, so on average 25 are evaluated) and the decision is
//! written with server-side apply and recorded as an event. Measured in the same run:
//!
//! 1. `--authorizer=local`: RBAC evaluated in memory over the watched objects;
//! 2. `--authorizer=sar`: a SubjectAccessReview per (service account, policy, namespace),
//!    cached for 10 s (5,000 distinct questions);
//! 3. the physical limit: the same 10,000 reviews as pure function calls, no API at all.
//!
//! Peak memory (VmHWM of this process, which also holds the sandbox and its 10,000 objects)
//! is printed after each mode.
//!
//! `cargo bench -p certgate --bench controller`

use std::sync::Arc;
use std::time::{Duration, Instant};

use certgate_api::{CertificateRequest, CertificateRequestPolicy};
use certgate_approval::{Approver, PolicyEntry, Readiness, Request, ReviewOptions};
use certgate_approver::policy_approver;
use certgate_runtime::{AccessMode, ControllerMetrics, Launch, Settings, shutdown_on};
use certgate_sandbox::{SandboxOptions, start};
use criterion::{Criterion, SamplingMode, criterion_group, criterion_main};
use futures_util::StreamExt as _;
use kube::api::{Api, DynamicObject, Patch, PatchParams, PostParams};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::discovery::ApiResource;
use serde_json::{Value, json};

#[path = "support/memory.rs"]
mod memory;
use memory::peak_memory_mib;

const REQUESTS: usize = 10_000;
const POLICIES: usize = 50;
const NAMESPACES: usize = 100;

fn namespace(k: usize) -> String {
    format!("team-{k:03}")
}

/// Policy `p-NN` approves DNS names of namespaces `k` with `k mod 50 == NN`; every policy
/// applies to every request (selector on the issuer only), as in a cluster with one policy
/// per team.
fn policy(index: usize) -> Value {
    let rule = (0..NAMESPACES)
        .filter(|k| k % POLICIES == index)
        .map(|k| format!("self.endsWith('.{}.svc')", namespace(k)))
        .collect::<Vec<_>>()
        .join(" || ");
    json!({
        "apiVersion": "policy.cert-manager.io/v1alpha1", "kind": "CertificateRequestPolicy",
        "metadata": {"name": format!("p-{index:02}")},
        "spec": {
            "allowed": {
                "dnsNames": {"required": true, "validations": [{"rule": rule, "message": "not this team's"}]},
                "usages": ["digital signature", "key encipherment", "server auth"],
            },
            "selector": {"issuerRef": {"name": "internal-ca", "kind": "ClusterIssuer", "group": "cert-manager.io"}},
        },
    })
}

/// A CSR (PEM) for `api.<namespace>.svc`.
fn csr(namespace: &str) -> Vec<u8> {
    let key = rcgen::KeyPair::generate().unwrap();
    let params = rcgen::CertificateParams::new(vec![format!("api.{namespace}.svc")]).unwrap();
    params.serialize_request(&key).unwrap().pem().unwrap().into_bytes()
}

fn request(index: usize, csrs: &[Vec<u8>]) -> CertificateRequest {
    let k = index % NAMESPACES;
    let namespace = namespace(k);
    serde_json::from_value(json!({
        "apiVersion": "cert-manager.io/v1", "kind": "CertificateRequest",
        "metadata": {"name": format!("r-{index:05}"), "namespace": namespace},
        "spec": {
            "issuerRef": {"name": "internal-ca", "kind": "ClusterIssuer", "group": "cert-manager.io"},
            "usages": ["digital signature", "key encipherment", "server auth"],
            "username": format!("system:serviceaccount:{namespace}:api"),
            "groups": ["system:serviceaccounts", format!("system:serviceaccounts:{namespace}"), "system:authenticated"],
            "request": base64_std(&csrs[k]),
        },
    }))
    .unwrap()
}

fn base64_std(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

async fn client(config_text: &str) -> kube::Client {
    let kubeconfig = Kubeconfig::from_yaml(config_text).unwrap();
    let config = kube::Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default())
        .await
        .unwrap();
    kube::Client::try_from(config).unwrap()
}

async fn apply(client: &kube::Client, resource: &ApiResource, object: Value) {
    let name = object["metadata"]["name"].as_str().unwrap().to_owned();
    let api: Api<DynamicObject> = match object["metadata"]["namespace"].as_str() {
        Some(namespace) => Api::namespaced_with(client.clone(), namespace, resource),
        None => Api::all_with(client.clone(), resource),
    };
    api.patch(&name, &PatchParams::apply("bench").force(), &Patch::Apply(&object)).await.unwrap();
}

fn resource(group: &str, version: &str, kind: &str, plural: &str) -> ApiResource {
    ApiResource::from_gvk_with_plural(
        &kube::api::GroupVersionKind::gvk(group, version, kind),
        plural,
    )
}

/// Namespaces, RBAC, 50 Ready policies and 10,000 pending requests, in a new sandbox.
async fn backlog(csrs: &[Vec<u8>]) -> (certgate_sandbox::RunningSandbox, kube::Client) {
    let sandbox = start(SandboxOptions::default()).await.unwrap();
    let admin = client(&sandbox.kubeconfig()).await;
    let namespaces = resource("", "v1", "Namespace", "namespaces");
    for k in 0..NAMESPACES {
        apply(
            &admin,
            &namespaces,
            json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace(k)}}),
        )
        .await;
    }
    apply(&admin, &resource("rbac.authorization.k8s.io", "v1", "ClusterRole", "clusterroles"), json!({
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "policy-users"},
        "rules": [{"apiGroups": ["policy.cert-manager.io"], "resources": ["certificaterequestpolicies"], "verbs": ["use"]}],
    })).await;
    apply(&admin, &resource("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding", "clusterrolebindings"), json!({
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "metadata": {"name": "policy-users"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "policy-users"},
        "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "system:serviceaccounts"}],
    })).await;
    let policies: Api<CertificateRequestPolicy> = Api::all(admin.clone());
    for index in 0..POLICIES {
        let created: CertificateRequestPolicy = policies
            .create(&PostParams::default(), &serde_json::from_value(policy(index)).unwrap())
            .await
            .unwrap();
        let ready = json!({"status": {"conditions": [{
            "type": "Ready", "status": "True", "reason": "Ready", "message": "ready",
            "lastTransitionTime": "2026-01-01T00:00:00Z",
            "observedGeneration": created.metadata.generation.unwrap_or(1),
        }]}});
        policies
            .patch_status(
                created.metadata.name.as_deref().unwrap(),
                &PatchParams::default(),
                &Patch::Merge(&ready),
            )
            .await
            .unwrap();
    }
    let requests: Api<CertificateRequest> = Api::all(admin.clone());
    futures_util::stream::iter(0..REQUESTS)
        .map(|index| {
            let request = request(index, csrs);
            let api: Api<CertificateRequest> = Api::namespaced(
                requests.clone().into_client(),
                request.metadata.namespace.as_deref().unwrap(),
            );
            async move { api.create(&PostParams::default(), &request).await.unwrap() }
        })
        .buffer_unordered(32)
        .for_each(|_| async {})
        .await;
    (sandbox, admin)
}

fn decided(metrics: &ControllerMetrics) -> usize {
    metrics
        .encode()
        .unwrap()
        .lines()
        .filter(|l| {
            l.starts_with("certgate_controller_decisions_total{")
                && (l.contains("result=\"approved\"") || l.contains("result=\"denied\""))
        })
        .filter_map(|l| l.rsplit(' ').next()?.parse::<usize>().ok())
        .sum()
}

/// Runs the approver on a fresh backlog until every request is decided; the time taken.
async fn decide_backlog(mode: AccessMode, csrs: &[Vec<u8>]) -> Duration {
    let (sandbox, admin) = backlog(csrs).await;
    let metrics = Arc::new(ControllerMetrics::default());
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let shutdown = shutdown_on(async move {
        let mut stopped = stopped;
        let _ = stopped.wait_for(|s| *s).await;
    });
    let settings = Settings { access: mode, ..Settings::default() };
    let launch = Launch {
        client: admin,
        config: None,
        settings,
        metrics: Arc::clone(&metrics),
        clock: Arc::new(certgate_clock::SystemClock),
        shutdown,
    };
    let started = Instant::now();
    let running = tokio::spawn(policy_approver::run(launch));
    while decided(&metrics) < REQUESTS {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let elapsed = started.elapsed();
    let _ = stop.send(true);
    let _ = running.await;
    sandbox.shutdown();
    elapsed
}

/// The same reviews as pure calls: 10,000 requests, 50 policies, RBAC answered at once.
fn pure_reviews(csrs: &[Vec<u8>]) -> Duration {
    let approver = Approver::new(Arc::new(certgate_cel::PolicyCel::default()));
    let policies: Vec<CertificateRequestPolicy> =
        (0..POLICIES).map(|i| serde_json::from_value(policy(i)).unwrap()).collect();
    let entries: Vec<PolicyEntry<'_>> =
        policies.iter().map(|policy| PolicyEntry { policy, readiness: Readiness::Ready }).collect();
    let requests: Vec<CertificateRequest> = (0..REQUESTS).map(|i| request(i, csrs)).collect();
    struct NoLabels;
    impl certgate_approval::NamespaceLookup for NoLabels {
        fn labels(&self, _: &str) -> Result<std::collections::BTreeMap<String, String>, String> {
            Ok(Default::default())
        }
    }
    let started = Instant::now();
    for cr in &requests {
        let csr = certgate_pki::parse_csr(&cr.spec.request);
        let review = approver.review(
            &Request { cr, csr: csr.as_ref() },
            &entries,
            &NoLabels,
            &certgate_rbac::AllowAll,
            ReviewOptions::default(),
        );
        assert!(review.outcome.is_ok());
    }
    started.elapsed()
}

fn controller(c: &mut Criterion) {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    let csrs: Vec<Vec<u8>> = (0..NAMESPACES).map(|k| csr(&namespace(k))).collect();
    let mut group = c.benchmark_group("decide 10k requests x 50 policies");
    group.sample_size(10).sampling_mode(SamplingMode::Flat).warm_up_time(Duration::from_millis(1));
    group.measurement_time(Duration::from_secs(1));
    for (label, mode) in
        [("local", AccessMode::LocalRbac), ("sar", AccessMode::SubjectAccessReview)]
    {
        group.bench_function(label, |b| {
            b.iter_custom(|iterations| {
                (0..iterations).map(|_| runtime.block_on(decide_backlog(mode, &csrs))).sum()
            })
        });
        eprintln!("peak memory after {label}: {:.0} MiB (VmHWM, whole process)", peak_memory_mib());
    }
    group.bench_function("pure reviews (limit)", |b| {
        b.iter_custom(|iterations| (0..iterations).map(|_| pure_reviews(&csrs)).sum())
    });
    group.finish();
}

criterion_group!(benches, controller);
criterion_main!(benches);
