//! From HTTPProxies to xDS bytes at scale (issue #21): 1,000 HTTPProxies with client
//! validation (CA and CRL Secrets) in 100 namespaces, each routing `/` to a Service with three
//! ready endpoints, through the pure pipeline a live edge controller runs on every rebuild:
//! `routing::process_snapshot` (Contour's processing and status), `envoy::build_resources`
//! (listeners, routes, clusters, endpoints, secrets) and `EnvoyResources::to_xds` (the bytes
//! sent to Envoy). The last row is the floor of any implementation: encoding the same resources
//! again, already built.
//!
//!   cargo bench -p certgate-ingress --bench snapshot
//!
//! The certificates and CRL are the test fixtures (`tests/fixtures`): a CRL of a few entries,
//! as most CRLs are.

use std::collections::BTreeMap;
use std::hint::black_box;

use base64::Engine as _;
use certgate_ingress::envoy::{ResourceOptions, build_resources};
use certgate_ingress::routing::{Snapshot, process_snapshot};
use certgate_ingress::types::{EndpointSlice, KubeService, Secret};
use certgate_ingress::{HttpProxy, NamespacedName, ProcessorConfig};
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};

const NAMESPACES: usize = 100;
const PER_NAMESPACE: usize = 10;

fn fixture(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("read {path}: {e}"))
}

fn secret(namespace: &str, name: &str, type_: &str, data: &[(&str, &[u8])]) -> Secret {
    let base64 = base64::engine::general_purpose::STANDARD;
    let data: serde_json::Map<String, Value> =
        data.iter().map(|(k, v)| ((*k).to_owned(), Value::String(base64.encode(v)))).collect();
    let value =
        json!({"metadata": {"namespace": namespace, "name": name}, "type": type_, "data": data});
    Secret::from_value(&value).expect("a Secret")
}

struct World {
    proxies: Vec<HttpProxy>,
    secrets: BTreeMap<NamespacedName, Secret>,
    services: Vec<KubeService>,
    slices: Vec<EndpointSlice>,
}

fn world() -> World {
    let (cert, key, ca, crl) =
        (fixture("tls.crt"), fixture("tls.key"), fixture("ca.crt"), fixture("crl.pem"));
    let mut world = World {
        proxies: Vec::new(),
        secrets: BTreeMap::new(),
        services: Vec::new(),
        slices: Vec::new(),
    };
    for n in 0..NAMESPACES {
        let ns = format!("team-{n:03}");
        for s in [
            secret(&ns, "serving", "kubernetes.io/tls", &[("tls.crt", &cert), ("tls.key", &key)]),
            secret(&ns, "client-ca", "Opaque", &[("ca.crt", &ca)]),
            secret(&ns, "client-crl", "Opaque", &[("crl.pem", &crl)]),
        ] {
            world.secrets.insert(NamespacedName::new(&s.namespace, &s.name), s);
        }
        world.services.push(
            KubeService::from_value(&json!({"metadata": {"namespace": ns, "name": "app"},
                "spec": {"ports": [{"name": "http", "port": 80, "targetPort": 8080}]}}))
            .expect("a Service"),
        );
        world.slices.push(
            EndpointSlice::from_value(&json!({"metadata": {"namespace": ns, "name": "app-1",
                    "labels": {"kubernetes.io/service-name": "app"}},
                "endpoints": [{"addresses": [format!("10.{n}.0.1")]}, {"addresses": [format!("10.{n}.0.2")]},
                    {"addresses": [format!("10.{n}.0.3")]}],
                "ports": [{"name": "http", "port": 8080, "protocol": "TCP"}]}))
            .expect("an EndpointSlice"),
        );
        for p in 0..PER_NAMESPACE {
            world.proxies.push(
                HttpProxy::from_value(&json!({
                    "metadata": {"namespace": ns, "name": format!("web-{p}"), "generation": 1},
                    "spec": {
                        "virtualhost": {"fqdn": format!("web-{p}.{ns}.example.com"), "tls": {
                            "secretName": "serving",
                            "clientValidation": {"caSecret": "client-ca", "crlSecret": "client-crl"}}},
                        "routes": [{"conditions": [{"prefix": "/"}], "services": [{"name": "app", "port": 80}]}]
                    }
                }))
                .expect("an HTTPProxy"),
            );
        }
    }
    world
}

fn bench(c: &mut Criterion) {
    let world = world();
    let snapshot = Snapshot {
        proxies: &world.proxies,
        secrets: &world.secrets,
        delegations: &[],
        services: &world.services,
    };
    let config = ProcessorConfig::default();
    let options = ResourceOptions::default();
    let processed = process_snapshot(snapshot, &config);
    assert_eq!(processed.vhosts.len(), NAMESPACES * PER_NAMESPACE, "every proxy is served");
    let resources = build_resources(&processed, &world.slices, &options);
    let bytes: usize = resources.to_xds().iter().map(|(_, _, b)| b.len()).sum();
    eprintln!(
        "1,000 HTTPProxies: {} listeners, {} route configurations, {} clusters, {} load assignments, {} secrets; {bytes} bytes of xDS resources",
        resources.listeners.len(),
        resources.routes.len(),
        resources.clusters.len(),
        resources.endpoints.len(),
        resources.secrets.len()
    );

    let mut group = c.benchmark_group("edge snapshot, 1,000 HTTPProxies with client validation");
    group.sample_size(20);
    group.bench_function("process_snapshot (Contour's processing and status)", |b| {
        b.iter(|| black_box(process_snapshot(black_box(snapshot), &config)))
    });
    group.bench_function("build_resources (Envoy resources)", |b| {
        b.iter(|| black_box(build_resources(black_box(&processed), &world.slices, &options)))
    });
    group.bench_function("whole rebuild (process, build, encode)", |b| {
        b.iter(|| {
            let processed = process_snapshot(black_box(snapshot), &config);
            black_box(build_resources(&processed, &world.slices, &options).to_xds())
        })
    });
    group.bench_function("floor: encoding the built resources again (to_xds)", |b| {
        b.iter(|| black_box(black_box(&resources).to_xds()))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
