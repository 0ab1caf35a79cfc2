//! Issue #22's issuance bench: 1,000 Certificates created at once, admitted by certgate's
//! webhook (requester stamped, Certificate validated), approved by a
//! CertificateRequestPolicy (`policy-approver`), signed by a CA Issuer
//! (`certificaterequests-issuer-ca`) and stored by the `certificates` controller, all
//! against the sandbox API server of this process. Measured from the first create until
//! every Certificate is `Ready=True`, with the API requests the controllers make (counted
//! by a layer on their client) and, in the same run, the physical limit: the pure work per
//! certificate (an ECDSA P-256 key, the CSR, the template and the CA's signature, ring).
//!
//! `cargo bench -p certgate --bench issuance`

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use certgate_api::CertificateRequestPolicy;
use certgate_api::cert_manager::{Certificate, Issuer};
use certgate_runtime::{ControllerMetrics, Launch, Settings, shutdown_on};
use certgate_sandbox::{SandboxOptions, start};
use criterion::{Criterion, SamplingMode, criterion_group, criterion_main};
use futures_util::StreamExt as _;
use k8s_openapi::api::core::v1::{Namespace, Secret};
use kube::api::{Api, ListParams, Patch, PatchParams, PostParams};
use kube::config::{KubeConfigOptions, Kubeconfig};
use serde_json::json;

#[path = "support/memory.rs"]
mod memory;
use memory::peak_memory_mib;

const CERTIFICATES: usize = 1_000;
const NAMESPACE: &str = "bench";

/// A P-256 CA: certificate and key PEM.
fn ca() -> (String, String) {
    let key = rcgen::KeyPair::generate().unwrap();
    let mut params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    params.distinguished_name.push(rcgen::DnType::CommonName, "bench CA");
    params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    params.key_usages = vec![rcgen::KeyUsagePurpose::KeyCertSign];
    (params.self_signed(&key).unwrap().pem(), key.serialize_pem())
}

async fn config(text: &str) -> kube::Config {
    let kubeconfig = Kubeconfig::from_yaml(text).unwrap();
    kube::Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default()).await.unwrap()
}

/// A client whose every request adds one to `count`.
fn counting_client(config: kube::Config, count: Arc<AtomicU64>) -> kube::Client {
    let layer = tower::util::MapRequestLayer::new(move |request| {
        count.fetch_add(1, Ordering::Relaxed);
        request
    });
    kube::client::ClientBuilder::try_from(config).unwrap().with_layer(&layer).build()
}

fn certificate(index: usize) -> Certificate {
    serde_json::from_value(json!({
        "apiVersion": "cert-manager.io/v1", "kind": "Certificate",
        "metadata": {"name": format!("c-{index:04}"), "namespace": NAMESPACE},
        "spec": {
            "secretName": format!("c-{index:04}-tls"),
            "dnsNames": [format!("app-{index}.{NAMESPACE}.svc")],
            "usages": ["digital signature", "key encipherment", "server auth"],
            "privateKey": {"algorithm": "ECDSA"},
            "issuerRef": {"name": "ca", "kind": "Issuer"},
        },
    }))
    .unwrap()
}

/// The namespace, the CA Issuer (Ready), a Ready policy approving this namespace's service
/// names and RBAC letting every authenticated user use it.
async fn setup(admin: &kube::Client, ca_pem: &str, ca_key: &str) {
    let namespace: Namespace =
        serde_json::from_value(json!({"metadata": {"name": NAMESPACE}})).unwrap();
    Api::<Namespace>::all(admin.clone()).create(&PostParams::default(), &namespace).await.unwrap();
    let secret: Secret = serde_json::from_value(json!({
        "metadata": {"name": "ca-key-pair", "namespace": NAMESPACE},
        "type": "kubernetes.io/tls",
        "stringData": {"tls.crt": ca_pem, "tls.key": ca_key},
    }))
    .unwrap();
    Api::<Secret>::namespaced(admin.clone(), NAMESPACE)
        .create(&PostParams::default(), &secret)
        .await
        .unwrap();
    let issuers: Api<Issuer> = Api::namespaced(admin.clone(), NAMESPACE);
    let issuer: Issuer = serde_json::from_value(json!({
        "apiVersion": "cert-manager.io/v1", "kind": "Issuer",
        "metadata": {"name": "ca", "namespace": NAMESPACE},
        "spec": {"ca": {"secretName": "ca-key-pair"}},
    }))
    .unwrap();
    issuers.create(&PostParams::default(), &issuer).await.unwrap();
    let ready = |reason: &str| {
        json!({"status": {"conditions": [{
            "type": "Ready", "status": "True", "reason": reason, "message": "ready",
            "lastTransitionTime": "2026-01-01T00:00:00Z", "observedGeneration": 1,
        }]}})
    };
    issuers
        .patch_status("ca", &PatchParams::default(), &Patch::Merge(&ready("KeyPairVerified")))
        .await
        .unwrap();
    let policies: Api<CertificateRequestPolicy> = Api::all(admin.clone());
    let policy: CertificateRequestPolicy = serde_json::from_value(json!({
        "apiVersion": "policy.cert-manager.io/v1alpha1", "kind": "CertificateRequestPolicy",
        "metadata": {"name": "services"},
        "spec": {
            "allowed": {
                "dnsNames": {"required": true, "validations": [
                    {"rule": "self.endsWith('.' + cr.namespace + '.svc')", "message": "not this namespace's"},
                ]},
                "usages": ["digital signature", "key encipherment", "server auth"],
            },
            "selector": {"issuerRef": {"name": "ca", "kind": "Issuer"}},
        },
    }))
    .unwrap();
    policies.create(&PostParams::default(), &policy).await.unwrap();
    policies
        .patch_status("services", &PatchParams::default(), &Patch::Merge(&ready("Ready")))
        .await
        .unwrap();
    let rbac = [
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "use-services"},
               "rules": [{"apiGroups": ["policy.cert-manager.io"], "resources": ["certificaterequestpolicies"], "verbs": ["use"]}]}),
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "metadata": {"name": "use-services"},
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "use-services"},
               "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "system:authenticated"}]}),
    ];
    for (object, plural) in rbac.iter().zip(["clusterroles", "clusterrolebindings"]) {
        let resource = kube::discovery::ApiResource::from_gvk_with_plural(
            &kube::api::GroupVersionKind::gvk(
                "rbac.authorization.k8s.io",
                "v1",
                object["kind"].as_str().unwrap(),
            ),
            plural,
        );
        Api::<kube::api::DynamicObject>::all_with(admin.clone(), &resource)
            .patch(
                object["metadata"]["name"].as_str().unwrap(),
                &PatchParams::apply("bench").force(),
                &Patch::Apply(object),
            )
            .await
            .unwrap();
    }
}

fn ready_count(certificates: &[Certificate]) -> usize {
    certificates
        .iter()
        .filter(|c| {
            c.status.as_ref().and_then(|s| s.conditions.as_ref()).is_some_and(|conditions| {
                conditions.iter().any(|c| c.type_ == "Ready" && c.status == "True")
            })
        })
        .count()
}

struct Run {
    elapsed: Duration,
    requests: u64,
}

/// A fresh sandbox, the controllers started and idle, then 1,000 Certificates created at
/// once (32 in flight); the time until all are Ready and the controllers' API requests.
async fn issue_all(ca_pem: &str, ca_key: &str) -> Run {
    let sandbox = start(SandboxOptions::default()).await.unwrap();
    let config = config(&sandbox.kubeconfig()).await;
    let admin = kube::Client::try_from(config.clone()).unwrap();
    // certgate's webhook, as `certgate dev` runs it: it stamps each request's requester (the
    // identity the policy's RBAC check is about) and validates the Certificates.
    let webhook = certgate::commands::dev::webhook::start(
        std::net::SocketAddr::from(([127, 0, 0, 1], 0)),
        certgate_serving::ConnectionPolicy::default(),
        admin.clone(),
    )
    .await
    .unwrap();
    setup(&admin, ca_pem, ca_key).await;
    let requests = Arc::new(AtomicU64::new(0));
    let controllers = counting_client(config, Arc::clone(&requests));
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let shutdown = shutdown_on(async move {
        let mut stopped = stopped;
        let _ = stopped.wait_for(|s| *s).await;
    });
    let launch = || Launch {
        client: controllers.clone(),
        config: None,
        settings: Settings::default(),
        metrics: Arc::new(ControllerMetrics::default()),
        clock: Arc::new(certgate_clock::SystemClock),
        shutdown: shutdown.clone(),
    };
    let running = [
        tokio::spawn(certgate_approver::policy_approver::run(launch())),
        tokio::spawn(certgate_issuer::requests::run(
            launch(),
            certgate_issuer::sign::Signer::Ca,
            certgate_issuer::requests::CA_NAME,
        )),
        tokio::spawn(certgate_issuer::certificates::controller::run(launch())),
    ];
    // The controllers' initial lists are not the workload.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let before = requests.load(Ordering::Relaxed);
    let started = Instant::now();
    let api: Api<Certificate> = Api::namespaced(admin.clone(), NAMESPACE);
    futures_util::stream::iter(0..CERTIFICATES)
        .map(|index| {
            let api = api.clone();
            async move { api.create(&PostParams::default(), &certificate(index)).await.unwrap() }
        })
        .buffer_unordered(32)
        .for_each(|_| async {})
        .await;
    loop {
        let listed = api.list(&ListParams::default()).await.unwrap();
        if ready_count(&listed.items) == CERTIFICATES {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let elapsed = started.elapsed();
    let made = requests.load(Ordering::Relaxed) - before;
    let _ = stop.send(true);
    for task in running {
        let _ = task.await;
    }
    let _ = webhook.shutdown(Duration::from_secs(1)).await;
    sandbox.shutdown();
    Run { elapsed, requests: made }
}

/// The physical limit: per certificate, an ECDSA P-256 key, its CSR, the template and the
/// CA's signature, as the controllers make them, without any API. Time for all 1,000.
fn pure_issuance(ca_pem: &str, ca_key: &str) -> Duration {
    use certgate_pki::generate::{CsrSpec, KeySpec, build_csr, generate_private_key};
    use certgate_pki::issue::{
        CaKeyPair, IssuerUrls, RequestSpec, sign_with_ca, template_from_request,
    };
    let ca = CaKeyPair::from_secret(ca_pem.as_bytes(), ca_key.as_bytes(), None).unwrap();
    let key_spec = KeySpec::from_fields(Some("ECDSA"), None, None).unwrap();
    let usages: Vec<String> =
        ["digital signature", "key encipherment", "server auth"].map(str::to_owned).to_vec();
    let started = Instant::now();
    for index in 0..CERTIFICATES {
        let key = generate_private_key(&key_spec).unwrap();
        let spec = CsrSpec {
            dns_names: vec![format!("app-{index}.{NAMESPACE}.svc")],
            usages: usages.clone(),
            encode_usages: true,
            ..CsrSpec::default()
        };
        let csr = build_csr(&spec, &key.pkcs8_der).unwrap();
        let request =
            RequestSpec { request: csr.as_bytes(), duration: None, usages: &usages, is_ca: false };
        let template = template_from_request(&request, std::time::SystemTime::now()).unwrap();
        let serial = [index as u8; 20];
        sign_with_ca(&template, &ca, &IssuerUrls::default(), &serial).unwrap();
    }
    started.elapsed()
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or_default()
}

fn issuance(c: &mut Criterion) {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    let (ca_pem, ca_key) = ca();
    let mut group = c.benchmark_group("1,000 Certificates");
    group.sample_size(10).sampling_mode(SamplingMode::Flat).warm_up_time(Duration::from_millis(1));
    group.measurement_time(Duration::from_secs(1));
    let mut requests = Vec::new();
    group.bench_function("created at once until all Ready", |b| {
        b.iter_custom(|iterations| {
            (0..iterations)
                .map(|_| {
                    let run = runtime.block_on(issue_all(&ca_pem, &ca_key));
                    requests.push((run.requests as f64, run.elapsed.as_secs_f64()));
                    run.elapsed
                })
                .sum()
        })
    });
    eprintln!("peak memory: {:.0} MiB (VmHWM, whole process with the sandbox)", peak_memory_mib());
    group.bench_function("pure issuance (limit): key, CSR, template, CA signature", |b| {
        b.iter_custom(|iterations| (0..iterations).map(|_| pure_issuance(&ca_pem, &ca_key)).sum())
    });
    group.finish();
    eprintln!(
        "controllers' API requests per run (median of {}): {:.0} ({:.1} per Certificate, {:.0}/s)",
        requests.len(),
        median(requests.iter().map(|(n, _)| *n).collect()),
        median(requests.iter().map(|(n, _)| n / CERTIFICATES as f64).collect()),
        median(requests.iter().map(|(n, secs)| n / secs).collect()),
    );
}

criterion_group!(benches, issuance);
criterion_main!(benches);
