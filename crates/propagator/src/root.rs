//! The root-policy reconcile (spec §2): placement decisions → the root's status, and the
//! replicated-policy reconciles those decisions concern.

use std::collections::{BTreeSet, HashMap};
use std::hash::{Hash as _, Hasher as _};
use std::sync::{Mutex, PoisonError};

use certgate_api::ocm::PolicyStatus;
use certgate_templates::propagation::{cluster_statuses, root_compliance, root_decisions};
use certgate_templates::replica::replica_name;
use kube::api::DynamicObject;
use serde_json::Value;

use crate::context::{Context, ReconcileError};
use crate::effects::{Effects, root_reference};
use serde::Deserialize as _;

/// What the last reconcile of each root sent replicated reconciles for: a fingerprint of
/// everything a replica is built from, and the decided clusters. A root whose fingerprint
/// did not change re-queues only clusters that joined or left the decisions (a replica's
/// status change re-runs the root's status, not every replica).
#[derive(Default)]
pub struct FanOut(Mutex<HashMap<RootKey, LastFanOut>>);

/// A root policy: (namespace, name).
type RootKey = (String, String);
/// The fingerprint and decided clusters of a root's last fan-out.
type LastFanOut = (u64, BTreeSet<String>);

impl FanOut {
    /// The clusters to re-queue now that `root` decides `clusters`.
    fn clusters(
        &self,
        key: &(String, String),
        fingerprint: u64,
        clusters: BTreeSet<String>,
    ) -> BTreeSet<String> {
        let mut last = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let previous = last.insert(key.clone(), (fingerprint, clusters.clone()));
        match previous {
            Some((old, old_clusters)) if old == fingerprint => {
                old_clusters.symmetric_difference(&clusters).cloned().collect()
            }
            Some((_, old_clusters)) => old_clusters.union(&clusters).cloned().collect(),
            None => clusters,
        }
    }

    fn forget(&self, key: &(String, String)) {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).remove(key);
    }
}

/// Everything of the root a replica is built from: generation (spec), labels, annotations,
/// and the PolicySets its dependencies name.
fn fingerprint(root: &DynamicObject, context: &Context<impl Effects>) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    root.metadata.generation.hash(&mut hasher);
    root.metadata.labels.hash(&mut hasher);
    root.metadata.annotations.hash(&mut hasher);
    let spec = root.data.get("spec").unwrap_or(&Value::Null);
    let namespace = root.metadata.namespace.as_deref().unwrap_or_default();
    let mut dependencies: Vec<&Value> = spec
        .get("dependencies")
        .and_then(Value::as_array)
        .map(|d| d.iter().collect())
        .unwrap_or_default();
    for template in spec.get("policy-templates").and_then(Value::as_array).into_iter().flatten() {
        dependencies.extend(
            template.get("extraDependencies").and_then(Value::as_array).into_iter().flatten(),
        );
    }
    for dependency in dependencies {
        if dependency.get("kind").and_then(Value::as_str) == Some("PolicySet") {
            let name = dependency.get("name").and_then(Value::as_str).unwrap_or_default();
            let ns = dependency.get("namespace").and_then(Value::as_str).filter(|n| !n.is_empty());
            let set = context.index.policy_set_version(ns.unwrap_or(namespace), name);
            (name, set).hash(&mut hasher);
        }
    }
    hasher.finish()
}

pub async fn reconcile(
    context: &Context<impl Effects>,
    key: &(String, String),
) -> Result<(), ReconcileError> {
    let (namespace, name) = key;
    let full_name = replica_name(namespace, name);
    let Some(root) = context.index.root(namespace, name) else {
        // Deleted: every replica goes (each replicated reconcile finds no root).
        context.fan_out.forget(key);
        context.root_json.forget(namespace, name);
        for replica in context.index.replicas_of(&full_name) {
            if let Some(cluster) = &replica.metadata().namespace {
                context.replicas.add((cluster.clone(), full_name.clone()));
            }
        }
        return Ok(());
    };
    if context.index.is_cluster_namespace(namespace) {
        // A policy without the root-policy label in a cluster namespace is no root: upstream
        // deletes it.
        tracing::info!(policy = %format!("{namespace}/{name}"), "deleting a policy in a cluster namespace that belongs to no root policy");
        return context
            .effects
            .delete_replica(namespace, name, root.metadata.resource_version.clone())
            .await
            .map_err(ReconcileError::Write);
    }
    let disabled = root.data.pointer("/spec/disabled").and_then(Value::as_bool) == Some(true);
    let existing = context.index.replicas_of(&full_name);
    if disabled && !existing.is_empty() {
        context
            .effects
            .publish(
                &root_reference(&root),
                false,
                format!("Policy {namespace}/{name} was disabled"),
            )
            .await;
    }

    let decided = root_decisions(namespace, name, disabled, &context.index);
    let compliance = |cluster: &str| context.index.replica_compliance(cluster, &full_name);
    let statuses = cluster_statuses(disabled, &decided.placements, &decided.decisions, &compliance);
    let compliant = root_compliance(&statuses);
    let current: PolicyStatus =
        root.data.get("status").and_then(|s| PolicyStatus::deserialize(s).ok()).unwrap_or_default();
    let placement = (!decided.placements.is_empty()).then(|| decided.placements.clone());
    let status = (!statuses.is_empty()).then_some(statuses);
    if current.placement != placement || current.status != status || current.compliant != compliant
    {
        let patch = serde_json::json!({
            "placement": placement,
            "status": status,
            "compliant": compliant,
        });
        context
            .effects
            .patch_root_status(namespace, name, &patch)
            .await
            .map_err(ReconcileError::Write)?;
    }

    let decided_clusters: BTreeSet<String> = decided.decisions.keys().cloned().collect();
    let mut targets =
        context.fan_out.clusters(key, fingerprint(&root, context), decided_clusters.clone());
    // Replicas (and status entries) on clusters no longer decided are always looked at:
    // each is deleted or left alone by its own reconcile.
    targets.extend(
        current
            .status
            .iter()
            .flatten()
            .filter_map(|s| s.clustername.clone())
            .chain(existing.iter().filter_map(|r| r.metadata().namespace.clone()))
            .filter(|c| !decided_clusters.contains(c)),
    );
    for cluster in targets {
        context.replicas.add((cluster, full_name.clone()));
    }
    Ok(())
}
