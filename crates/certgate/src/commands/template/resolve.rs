//! `certgate template resolve`.

use std::io::{Read, Write};

use serde_json::{Value, json};

use certgate_templates::offline::{Replication, World, is_root_policy, replicate};
use certgate_templates::pipeline::{HubResolver, ResolverConfig};

use super::ResolveArgs;
use super::ResolveFormat;
use super::inputs::load_objects;
use super::keys::OfflineKeys;
use crate::shared::manifests::LoadErrors;

#[derive(Debug, thiserror::Error)]
pub enum ResolveError {
    #[error(transparent)]
    Load(#[from] LoadErrors),
    #[error(
        "no root Policy (policy.open-cluster-management.io/v1, without the root-policy label) in the inputs"
    )]
    NoPolicy,
    #[error("cannot write the output: {0}")]
    Io(#[from] std::io::Error),
    #[error("{object}: {reason}; fix or remove it")]
    InvalidInput { object: String, reason: String },
    #[error("cannot set up the template resolver: {0}")]
    Setup(String),
    #[error("cannot render the output: {0}")]
    Render(String),
}

/// How messages name an input object: `Kind namespace/name` (or `Kind name`).
fn describe(object: Option<&Value>) -> String {
    let text = |pointer: &str| object.and_then(|o| o.pointer(pointer)).and_then(Value::as_str);
    let kind = text("/kind").unwrap_or("object");
    match (text("/metadata/namespace"), text("/metadata/name")) {
        (Some(ns), Some(name)) => format!("{kind} {ns}/{name}"),
        (None, Some(name)) => format!("{kind} {name}"),
        _ => format!("a {kind} without metadata.name"),
    }
}

/// Runs the command; returns the exit status (0 resolved, 1 a template failed).
pub fn run_resolve(
    args: &ResolveArgs,
    stdin: impl Read,
    stdout: &mut impl Write,
    stderr: &mut impl Write,
) -> Result<u8, ResolveError> {
    let mut objects = load_objects(&args.files, stdin)?;
    apply_cluster_labels(&mut objects, &args.cluster, &args.cluster_labels);
    let roots: Vec<Value> = objects.iter().filter(|o| is_root_policy(o)).cloned().collect();
    if roots.is_empty() {
        return Err(ResolveError::NoPolicy);
    }
    let keys = OfflineKeys::from_objects(&objects, &args.cluster);
    let world = World::new(&objects).map_err(|e| ResolveError::InvalidInput {
        object: describe(objects.get(e.index)),
        reason: e.reason,
    })?;
    let resolver = HubResolver::new(ResolverConfig {
        denylist: args.denylist.iter().filter(|n| !n.is_empty()).cloned().collect(),
        ..ResolverConfig::default()
    })
    .map_err(|e| ResolveError::Setup(e.to_string()))?;

    let mut replicas = Vec::new();
    let mut failed = false;
    for root in &roots {
        let name = format!(
            "{}/{}",
            root.pointer("/metadata/namespace").and_then(Value::as_str).unwrap_or(""),
            root.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("")
        );
        if root.pointer("/spec/disabled").and_then(Value::as_bool) == Some(true) {
            writeln!(stderr, "policy {name}: disabled, so the propagator replicates nothing")?;
            continue;
        }
        let Replication { replica, outcome } =
            replicate(root, &args.cluster, &world, &resolver, &keys);
        for warning in &outcome.warnings {
            writeln!(stderr, "policy {name}: {warning}")?;
        }
        if let Some(retry) = &outcome.retry {
            writeln!(stderr, "policy {name}: the propagator would retry later: {retry}")?;
        }
        if let Some(failure) = &outcome.failed {
            writeln!(stderr, "policy {name}: templates not processed: {failure}")?;
        }
        failed |= outcome.error.is_some() || outcome.retry.is_some() || outcome.failed.is_some();
        failed |= has_error_annotation(&replica);
        if args.show_reads {
            for read in outcome.reads.iter() {
                writeln!(stderr, "policy {name}: read {read}")?;
            }
        }
        replicas.push(replica);
    }
    if keys.throw_away_used.get() {
        writeln!(
            stderr,
            "note: no Secret {}/policy-encryption-key in the inputs; encrypted values use a throw-away key",
            args.cluster
        )?;
    }
    write_output(&replicas, args.output, stdout)?;
    Ok(u8::from(failed))
}

fn has_error_annotation(replica: &Value) -> bool {
    replica.pointer("/spec/policy-templates").and_then(Value::as_array).into_iter().flatten().any(
        |t| {
            t.pointer("/objectDefinition/metadata/annotations")
                .and_then(|a| a.get(certgate_templates::replica::ANNOTATION_HUB_TEMPLATES_ERROR))
                .is_some()
        },
    )
}

/// `--cluster-label` adds labels to the cluster's ManagedCluster, creating it when the inputs
/// have none.
fn apply_cluster_labels(objects: &mut Vec<Value>, cluster: &str, labels: &[(String, String)]) {
    if labels.is_empty() {
        return;
    }
    let existing = objects.iter_mut().find(|o| {
        o.get("kind").and_then(Value::as_str) == Some("ManagedCluster")
            && o.pointer("/metadata/name").and_then(Value::as_str) == Some(cluster)
    });
    let cluster_object = match existing {
        Some(object) => object,
        None => {
            objects.push(json!({
                "apiVersion": "cluster.open-cluster-management.io/v1",
                "kind": "ManagedCluster",
                "metadata": {"name": cluster},
                "spec": {"hubAcceptsClient": true}
            }));
            let Some(last) = objects.last_mut() else { return };
            last
        }
    };
    let Some(metadata) = cluster_object.get_mut("metadata").and_then(Value::as_object_mut) else {
        return;
    };
    let entry = metadata.entry("labels").or_insert_with(|| json!({}));
    if let Some(map) = entry.as_object_mut() {
        for (key, value) in labels {
            map.insert(key.clone(), Value::String(value.clone()));
        }
    }
}

fn write_output(
    replicas: &[Value],
    format: ResolveFormat,
    out: &mut impl Write,
) -> Result<(), ResolveError> {
    match format {
        ResolveFormat::Json => {
            let value = match replicas {
                [one] => one.clone(),
                many => json!({"apiVersion": "v1", "kind": "List", "items": many}),
            };
            let text = serde_json::to_string_pretty(&value)
                .map_err(|e| ResolveError::Render(e.to_string()))?;
            writeln!(out, "{text}")?;
        }
        ResolveFormat::Yaml => {
            for (i, replica) in replicas.iter().enumerate() {
                if i > 0 {
                    writeln!(out, "---")?;
                }
                out.write_all(certgate_goyaml::to_yaml(replica).as_bytes())?;
            }
        }
    }
    Ok(())
}
