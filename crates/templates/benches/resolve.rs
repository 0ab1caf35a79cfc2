//! Resolving one policy with 10 hub templates for 1,000 managed clusters, objects in memory
//! (issue #8 target: at most 100 µs per cluster-policy).
//!
//! Measured in the same run:
//! 1. `replicate`: what the propagator does per cluster — build the replica (metadata copy,
//!    labels, dependencies), then resolve its templates (parsed once and cached; executed
//!    per cluster with the cluster's context and reads through the lookup routine).
//! 2. `build_replica`: the replica without its templates resolved — the copy every
//!    propagation pays whatever the templates do, i.e. the floor of (1).
//!
//! 3. the YAML → JSON decode of the resolved text alone (upstream's `yamlToJSON`), which
//!    every resolution ends with.
//!
//! Peak memory (VmHWM of this process) is printed at the end.
//!
//! `cargo bench -p certgate-templates --bench resolve`

use std::collections::BTreeMap;
use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::{Value, json};

use certgate_templates::offline::{World, replicate};
use certgate_templates::pipeline::{HubResolver, ResolverConfig};
use certgate_templates::replica::{EncryptionSource, build_replica};

const CLUSTERS: usize = 1_000;

struct NoEncryption;

impl EncryptionSource for NoEncryption {
    fn key(&self, _: &str) -> Result<[u8; 32], String> {
        Err("not used".to_owned())
    }
    fn new_iv(&self) -> Result<[u8; 16], String> {
        Err("not used".to_owned())
    }
}

fn cluster(i: usize) -> String {
    format!("cluster-{i:04}")
}

/// Ten hub templates of the kinds policies use: context fields, labels, ConfigMap reads
/// (per-cluster keys), typed values, a lookup with a field path, string functions.
fn root_policy() -> Value {
    let data = json!({
        "name": "{{hub .ManagedClusterName hub}}",
        "env": "{{hub .ManagedClusterLabels.env hub}}",
        "region": "{{hub index .ManagedClusterLabels \"region\" hub}}",
        "policy": "{{hub .PolicyMetadata.namespace hub}}/{{hub .PolicyMetadata.name hub}}",
        "replicas": "{{hub fromConfigMap \"\" \"sizes\" .ManagedClusterName | toInt hub}}",
        "endpoint": "{{hub fromConfigMap \"policies\" \"endpoints\" .ManagedClusterName hub}}",
        "tier": "{{hub (lookup \"v1\" \"ConfigMap\" \"policies\" \"tiers\").data.default hub}}",
        "upper": "{{hub .ManagedClusterName | upper hub}}",
        "enabled": "{{hub fromConfigMap \"policies\" \"flags\" \"enabled\" | toBool hub}}",
    });
    json!({
        "apiVersion": "policy.open-cluster-management.io/v1",
        "kind": "Policy",
        "metadata": {"name": "fleet-config", "namespace": "policies", "labels": {"team": "platform"}},
        "spec": {
            "remediationAction": "enforce",
            "policy-templates": [{"objectDefinition": {
                "apiVersion": "policy.open-cluster-management.io/v1",
                "kind": "ConfigurationPolicy",
                "metadata": {"name": "fleet-config"},
                "spec": {"remediationAction": "enforce", "severity": "low", "object-templates": [{
                    "complianceType": "musthave",
                    "objectDefinition": {
                        "apiVersion": "v1", "kind": "ConfigMap",
                        "metadata": {"name": "fleet", "namespace": "default"},
                        "data": data
                    }
                }]}
            }}]
        }
    })
}

fn world(root: &Value) -> World {
    let mut objects = vec![root.clone()];
    let mut sizes = BTreeMap::new();
    let mut endpoints = BTreeMap::new();
    for i in 0..CLUSTERS {
        objects.push(json!({
            "apiVersion": "cluster.open-cluster-management.io/v1", "kind": "ManagedCluster",
            "metadata": {"name": cluster(i), "labels": {"env": if i % 2 == 0 { "prod" } else { "dev" }, "region": format!("r{}", i % 7)}}
        }));
        sizes.insert(cluster(i), (i % 5 + 1).to_string());
        endpoints.insert(cluster(i), format!("https://{}.example.com", cluster(i)));
    }
    let cm = |name: &str, data: Value| json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "policies"}, "data": data});
    objects.push(cm("sizes", json!(sizes)));
    objects.push(cm("endpoints", json!(endpoints)));
    objects.push(cm("tiers", json!({"default": "gold"})));
    objects.push(cm("flags", json!({"enabled": "true"})));
    World::new(&objects).unwrap_or_else(|e| panic!("bench objects are valid: {e}"))
}

fn peak_memory_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

fn bench(c: &mut Criterion) {
    let root = root_policy();
    let world = world(&root);
    let resolver = HubResolver::new(ResolverConfig::default())
        .unwrap_or_else(|e| panic!("default resolver: {e}"));
    let clusters: Vec<String> = (0..CLUSTERS).map(cluster).collect();

    // Check once that the templates resolve, so the benchmark measures success.
    let sample = replicate(&root, &clusters[1], &world, &resolver, &NoEncryption);
    assert!(sample.outcome.error.is_none(), "{:?}", sample.outcome.error);
    let data = sample
        .replica
        .pointer("/spec/policy-templates/0/objectDefinition/spec/object-templates/0/objectDefinition/data")
        .cloned();
    eprintln!("resolved for {}: {}", clusters[1], data.unwrap_or_default());

    let mut group = c.benchmark_group("hub-templates");
    group.throughput(Throughput::Elements(CLUSTERS as u64));
    group.sample_size(20);
    group.bench_function("replicate (1,000 clusters)", |b| {
        b.iter(|| {
            for cluster in &clusters {
                black_box(replicate(&root, cluster, &world, &resolver, &NoEncryption));
            }
        });
    });
    group.bench_function("build_replica only (1,000 clusters)", |b| {
        b.iter(|| {
            for cluster in &clusters {
                black_box(build_replica(&root, cluster, &|_, _| None));
            }
        });
    });
    // The decode every resolution ends with (upstream's yamlToJSON), on this policy's text.
    let resolved_yaml = certgate_goyaml::to_yaml(
        sample.replica.pointer("/spec/policy-templates/0/objectDefinition").unwrap_or(&Value::Null),
    );
    group.bench_function("YAML to JSON of the resolved template only (1,000 times)", |b| {
        b.iter(|| {
            for _ in &clusters {
                black_box(certgate_goyaml::from_yaml(black_box(&resolved_yaml)).ok());
            }
        });
    });
    group.finish();
    eprintln!("peak memory: {:.1} MiB (VmHWM, whole bench process)", peak_memory_mib());
}

criterion_group!(benches, bench);
criterion_main!(benches);
