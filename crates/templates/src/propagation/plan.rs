//! What the replicated-policy reconcile does with `<cluster>/<rootNamespace>.<rootName>`
//! (spec §3 steps 2–5 and 10).

use serde_json::{Map, Value};

use super::decisions::{ClusterDecision, single_cluster};
use super::snapshot::Snapshot;
use crate::replica::split_replica_name;

/// The outcome of steps 2–5, before the replica is built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplicaPlan {
    /// No replica exists and none should.
    Nothing,
    /// Delete the existing replica (release its watches first); the reason is for logs.
    Delete(&'static str),
    /// Leave the existing replica alone: its namespace is not a managed cluster's, so it
    /// belongs to another hub ("hub of hubs") or a hosted cluster.
    Skip(&'static str),
    /// Build the replica and resolve its templates.
    Replicate { root_namespace: String, root_name: String, decision: ClusterDecision },
}

/// Steps 2–5 for the replica `cluster/name`. `exists`: whether the replica is there now;
/// `root`: the root policy named by the replica's name, if it exists; `is_cluster_namespace`:
/// whether a ManagedCluster named `cluster` exists (asked only when it matters).
pub fn plan_replica(
    cluster: &str,
    name: &str,
    exists: bool,
    root: Option<&Value>,
    is_cluster_namespace: &dyn Fn() -> bool,
    snapshot: &dyn Snapshot,
) -> ReplicaPlan {
    let delete_or = |reason: &'static str, skip: &'static str| {
        if !exists {
            ReplicaPlan::Nothing
        } else if !is_cluster_namespace() {
            ReplicaPlan::Skip(skip)
        } else {
            ReplicaPlan::Delete(reason)
        }
    };
    let Some((root_namespace, root_name)) = split_replica_name(name) else {
        return if exists {
            ReplicaPlan::Delete("the replicated policy's name does not name a root policy")
        } else {
            ReplicaPlan::Nothing
        };
    };
    let Some(root) = root else {
        return delete_or(
            "the root policy no longer exists",
            "replicated policy in a namespace that is not a managed cluster's (hub of hubs)",
        );
    };
    if root.pointer("/spec/disabled").and_then(Value::as_bool) == Some(true) {
        return if exists {
            ReplicaPlan::Delete("the root policy is disabled")
        } else {
            ReplicaPlan::Nothing
        };
    }
    match single_cluster(root_namespace, root_name, cluster, snapshot) {
        Some(decision) => ReplicaPlan::Replicate {
            root_namespace: root_namespace.to_owned(),
            root_name: root_name.to_owned(),
            decision,
        },
        None => delete_or(
            "no placement selects this cluster any longer",
            "replicated policy for a cluster this hub does not manage (hosted mode)",
        ),
    }
}

/// Step 10: what to write for a built replica.
#[derive(Clone, Debug, PartialEq)]
pub enum WritePlan {
    Create(Value),
    /// The existing object with the desired labels, annotations and spec (its
    /// resourceVersion kept, so a concurrent change makes the update conflict).
    Update(Value),
    Unchanged,
}

/// Compares the desired replica with the existing one as upstream does (annotations, labels
/// and spec, semantically: a missing field equals its empty value; template bodies are
/// compared exactly).
pub fn plan_write(desired: &Value, existing: Option<&Value>) -> WritePlan {
    let Some(existing) = existing else { return WritePlan::Create(desired.clone()) };
    let same = |pointer: &str| {
        semantically_equal(desired.pointer(pointer), existing.pointer(pointer), false)
    };
    if same("/metadata/annotations") && same("/metadata/labels") && same("/spec") {
        return WritePlan::Unchanged;
    }
    let mut updated = existing.clone();
    for (field, pointer) in
        [("annotations", "/metadata/annotations"), ("labels", "/metadata/labels")]
    {
        let value = desired.pointer(pointer).cloned().unwrap_or_else(|| Value::Object(Map::new()));
        if let Some(metadata) = updated.get_mut("metadata").and_then(Value::as_object_mut) {
            metadata.insert(field.to_owned(), value);
        }
    }
    if let Some(object) = updated.as_object_mut() {
        object.insert(
            "spec".to_owned(),
            desired.get("spec").cloned().unwrap_or_else(|| Value::Object(Map::new())),
        );
    }
    WritePlan::Update(updated)
}

/// Go's typed fields decode a missing field and its zero value alike.
fn is_empty(value: Option<&Value>) -> bool {
    match value {
        None | Some(Value::Null) => true,
        Some(Value::Bool(b)) => !b,
        Some(Value::String(s)) => s.is_empty(),
        Some(Value::Array(a)) => a.is_empty(),
        Some(Value::Object(o)) => o.is_empty(),
        Some(Value::Number(_)) => false,
    }
}

fn semantically_equal(a: Option<&Value>, b: Option<&Value>, exact: bool) -> bool {
    if exact {
        return a == b;
    }
    match (a, b) {
        (Some(Value::Object(a)), Some(Value::Object(b))) => a
            .keys()
            .chain(b.keys())
            .all(|key| semantically_equal(a.get(key), b.get(key), key == "objectDefinition")),
        (Some(Value::Array(a)), Some(Value::Array(b))) => {
            a.len() == b.len()
                && a.iter().zip(b).all(|(a, b)| semantically_equal(Some(a), Some(b), false))
        }
        (a, b) if is_empty(a) && is_empty(b) => true,
        (a, b) => a == b,
    }
}
