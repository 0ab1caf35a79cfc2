//! `certgate template resolve`.

use std::io::{Read, Write};

use serde_json::{Value, json};

use certgate_templates::offline::{Replication, World, is_root_policy, replicate};
use certgate_templates::pipeline::{HubResolver, ResolverConfig};

use super::ResolveArgs;
use super::ResolveFormat;
use super::inputs::{Loaded, load_objects};
use super::keys::OfflineKeys;
use super::locate::locate;
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
    #[error(
        "unknown --cluster {}: the ManagedClusters and PlacementDecisions of the inputs name \
         only {}{}",
        certgate_gofmt::quote(.cluster),
        .known.join(", "),
        .suggestion.as_deref().map(|s| format!("; did you mean {}?", certgate_gofmt::quote(s))).unwrap_or_default()
    )]
    UnknownCluster { cluster: String, known: Vec<String>, suggestion: Option<String> },
}

/// Most cluster names an unknown `--cluster` error lists.
const MAX_LISTED_CLUSTERS: usize = 10;

/// Clusters the inputs name: ManagedClusters, and the clusters of PlacementDecisions.
fn known_clusters(objects: &[Value]) -> std::collections::BTreeSet<String> {
    let mut known = std::collections::BTreeSet::new();
    for object in objects {
        match object.get("kind").and_then(Value::as_str) {
            Some("ManagedCluster") => {
                if let Some(name) = object.pointer("/metadata/name").and_then(Value::as_str) {
                    known.insert(name.to_owned());
                }
            }
            Some("PlacementDecision") => {
                let decisions = object.pointer("/status/decisions").and_then(Value::as_array);
                for decision in decisions.into_iter().flatten() {
                    if let Some(name) = decision.get("clusterName").and_then(Value::as_str) {
                        known.insert(name.to_owned());
                    }
                }
            }
            _ => {}
        }
    }
    known
}

/// An error when the inputs name clusters and `--cluster` is none of them: resolving for a
/// cluster the hub does not know would silently read nothing for it.
fn check_cluster(objects: &[Value], cluster: &str) -> Result<(), ResolveError> {
    let known = known_clusters(objects);
    if known.is_empty() || known.contains(cluster) {
        return Ok(());
    }
    let names: Vec<String> = known.iter().cloned().collect();
    let suggestion = crate::shared::unknown_fields::nearest(cluster, names.iter());
    let mut listed: Vec<String> = names.iter().take(MAX_LISTED_CLUSTERS).cloned().collect();
    if names.len() > MAX_LISTED_CLUSTERS {
        listed.push(format!("and {} more", names.len() - MAX_LISTED_CLUSTERS));
    }
    Err(ResolveError::UnknownCluster { cluster: cluster.to_owned(), known: listed, suggestion })
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
    let Loaded { mut objects, sources, written, unknown_fields } =
        load_objects(&args.files, stdin)?;
    unknown_fields.write(stderr)?;
    // With --cluster-label the user describes the cluster themselves (a new one if need be).
    if args.cluster_labels.is_empty() {
        check_cluster(&objects, &args.cluster)?;
    }
    // Each root with where it was written (before `--cluster-label` may add an object).
    let roots: Vec<(Value, Option<_>)> = objects
        .iter()
        .zip(&written)
        .filter(|(o, _)| is_root_policy(o))
        .map(|(o, w)| (o.clone(), w.clone()))
        .collect();
    apply_cluster_labels(&mut objects, &args.cluster, &args.cluster_labels);
    if roots.is_empty() {
        return Err(ResolveError::NoPolicy);
    }
    let keys = OfflineKeys::from_objects(&objects, &args.cluster);
    let world = World::new(&objects).map_err(|e| ResolveError::InvalidInput {
        object: match sources.get(e.index) {
            Some(at) => format!("{at}: {}", describe(objects.get(e.index))),
            None => describe(objects.get(e.index)),
        },
        reason: e.reason,
    })?;
    let resolver = HubResolver::new(ResolverConfig {
        denylist: args.denylist.iter().filter(|n| !n.is_empty()).cloned().collect(),
        ..ResolverConfig::default()
    })
    .map_err(|e| ResolveError::Setup(e.to_string()))?;

    let mut replicas = Vec::new();
    let mut failed = false;
    for (root, written) in &roots {
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
        if let (Some(error), Some(index), Some(written)) =
            (&outcome.error, outcome.failed_template, written)
        {
            let located = locate(root, written, index, &error.message);
            writeln!(
                stderr,
                "{}: policy {name}: the template that failed is {}",
                located.at, located.path
            )?;
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
