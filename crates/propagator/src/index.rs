//! What the propagator reads besides hub template objects: every Policy (roots and
//! replicas, kept as JSON so no field of a newer upstream version is lost when replicated),
//! PlacementBindings, PolicySets, Placements, PlacementDecisions and ManagedClusters, each in
//! a reflector store fed by a watch. The stores answer the pure placement decisions
//! ([`Snapshot`]) and say which reconciles a change concerns.

use std::sync::Arc;

use certgate_api::ocm::{
    ManagedCluster, Placement, PlacementBinding, PlacementDecision, PolicySet,
};
use certgate_templates::propagation::{PLACEMENT_LABEL, Snapshot};
use certgate_templates::replica::LABEL_ROOT_POLICY;
use kube::api::{ApiResource, DynamicObject, GroupVersionKind, ObjectMeta};
use kube::runtime::reflector::{ObjectRef, Store};
use serde_json::Value;

use crate::stored::StoredPolicy;

/// The Policy kind as the dynamic API knows it.
pub fn policy_resource() -> ApiResource {
    ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("policy.open-cluster-management.io", "v1", "Policy"),
        "policies",
    )
}

/// The deprecated PlacementRule kind (apps.open-cluster-management.io/v1).
pub fn placement_rule_resource() -> ApiResource {
    ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("apps.open-cluster-management.io", "v1", "PlacementRule"),
        "placementrules",
    )
}

/// The stores; clones share them.
#[derive(Clone)]
pub struct Index {
    pub policies: Store<StoredPolicy>,
    pub bindings: Store<PlacementBinding>,
    pub policy_sets: Store<PolicySet>,
    pub placements: Store<Placement>,
    pub decisions: Store<PlacementDecision>,
    pub clusters: Store<ManagedCluster>,
    /// The deprecated PlacementRules, when the API server serves them.
    pub placement_rules: Option<Store<DynamicObject>>,
}

/// Whether a Policy is a replica (carries the root-policy label).
pub fn is_replica_meta(metadata: &ObjectMeta) -> bool {
    metadata.labels.as_ref().is_some_and(|l| l.contains_key(LABEL_ROOT_POLICY))
}

impl Index {
    pub fn policy(&self, namespace: &str, name: &str) -> Option<Arc<StoredPolicy>> {
        self.policies.get(&ObjectRef::new(name).within(namespace))
    }

    /// The root policy `namespace/name` (not a replica that happens to have that name).
    pub fn root(&self, namespace: &str, name: &str) -> Option<Arc<DynamicObject>> {
        self.policy(namespace, name).and_then(|p| p.as_root().cloned())
    }

    /// The compliance of the replica `namespace/name`.
    pub fn replica_compliance(&self, namespace: &str, name: &str) -> Option<String> {
        self.policy(namespace, name).and_then(|p| p.as_replica()?.compliance.clone())
    }

    /// The replicas of the root `<namespace>.<name>` (by label).
    pub fn replicas_of(&self, replica_name: &str) -> Vec<Arc<StoredPolicy>> {
        self.policies.state_filter(|p| {
            p.metadata().labels.as_ref().and_then(|l| l.get(LABEL_ROOT_POLICY)).map(String::as_str)
                == Some(replica_name)
        })
    }

    /// The root policies of `namespace`, as (namespace, name).
    pub fn roots_in(&self, namespace: &str) -> Vec<(String, String)> {
        self.policies
            .state_filter(|p| {
                p.as_root().is_some() && p.metadata().namespace.as_deref() == Some(namespace)
            })
            .iter()
            .filter_map(|p| Some((p.metadata().namespace.clone()?, p.metadata().name.clone()?)))
            .collect()
    }

    /// The roots, in any namespace, whose `dependencies` or templates' `extraDependencies`
    /// name the PolicySet `namespace/name` (their replicas list its members).
    pub fn roots_depending_on(&self, namespace: &str, name: &str) -> Vec<(String, String)> {
        let names_set = |root: &DynamicObject, dependency: &Value| {
            let text = |field: &str| dependency.get(field).and_then(Value::as_str).unwrap_or("");
            let in_namespace = match text("namespace") {
                "" => root.metadata.namespace.as_deref() == Some(namespace),
                other => other == namespace,
            };
            text("kind") == "PolicySet" && text("name") == name && in_namespace
        };
        self.policies
            .state_filter(|p| {
                let Some(p) = p.as_root() else { return false };
                let spec = p.data.get("spec");
                let direct = spec.and_then(|s| s.get("dependencies")).and_then(Value::as_array);
                let templates =
                    spec.and_then(|s| s.get("policy-templates")).and_then(Value::as_array);
                let extra = templates
                    .into_iter()
                    .flatten()
                    .filter_map(|t| t.get("extraDependencies").and_then(Value::as_array));
                direct.into_iter().chain(extra).flatten().any(|d| names_set(p, d))
            })
            .iter()
            .filter_map(|p| Some((p.metadata().namespace.clone()?, p.metadata().name.clone()?)))
            .collect()
    }

    /// The PolicySet `namespace/name` as JSON, for dependency canonicalisation.
    pub fn policy_set_json(&self, namespace: &str, name: &str) -> Option<Value> {
        let set = self.policy_sets.get(&ObjectRef::new(name).within(namespace))?;
        let mut value = serde_json::to_value(&*set).ok()?;
        if let Some(map) = value.as_object_mut() {
            map.entry("apiVersion").or_insert_with(|| {
                Value::String("policy.open-cluster-management.io/v1beta1".to_owned())
            });
            map.entry("kind").or_insert_with(|| Value::String("PolicySet".to_owned()));
        }
        Some(value)
    }

    /// The resourceVersion of the PolicySet `namespace/name`, if it exists.
    pub fn policy_set_version(&self, namespace: &str, name: &str) -> Option<String> {
        self.policy_sets
            .get(&ObjectRef::new(name).within(namespace))
            .and_then(|s| s.metadata.resource_version.clone())
    }

    /// Whether `namespace` is a managed cluster's namespace (a ManagedCluster of that name).
    pub fn is_cluster_namespace(&self, namespace: &str) -> bool {
        self.clusters.get(&ObjectRef::new(namespace)).is_some()
    }

    /// Waits until every store holds its first list.
    pub async fn ready(&self) -> bool {
        self.policies.wait_until_ready().await.is_ok()
            && self.bindings.wait_until_ready().await.is_ok()
            && self.policy_sets.wait_until_ready().await.is_ok()
            && self.placements.wait_until_ready().await.is_ok()
            && self.decisions.wait_until_ready().await.is_ok()
            && self.clusters.wait_until_ready().await.is_ok()
            && match &self.placement_rules {
                Some(rules) => rules.wait_until_ready().await.is_ok(),
                None => true,
            }
    }
}

impl Snapshot for Index {
    fn bindings(&self, namespace: &str) -> Vec<Arc<PlacementBinding>> {
        let mut bindings =
            self.bindings.state_filter(|b| b.metadata.namespace.as_deref() == Some(namespace));
        bindings.sort_by(|a, b| a.metadata.name.cmp(&b.metadata.name));
        bindings
    }

    fn policy_set(&self, namespace: &str, name: &str) -> Option<Arc<PolicySet>> {
        self.policy_sets.get(&ObjectRef::new(name).within(namespace))
    }

    fn placement_exists(&self, namespace: &str, name: &str) -> bool {
        self.placements.get(&ObjectRef::new(name).within(namespace)).is_some()
    }

    fn placement_decisions(&self, namespace: &str, placement: &str) -> Vec<Arc<PlacementDecision>> {
        let mut decisions = self.decisions.state_filter(|d| {
            d.metadata.namespace.as_deref() == Some(namespace)
                && d.metadata
                    .labels
                    .as_ref()
                    .and_then(|l| l.get(PLACEMENT_LABEL))
                    .map(String::as_str)
                    == Some(placement)
        });
        decisions.sort_by(|a, b| a.metadata.name.cmp(&b.metadata.name));
        decisions
    }

    fn placement_rule(&self, namespace: &str, name: &str) -> Option<Vec<String>> {
        let rule = self
            .placement_rules
            .as_ref()?
            .get(&ObjectRef::new_with(name, placement_rule_resource()).within(namespace))?;
        let decisions = rule.data.pointer("/status/decisions").and_then(Value::as_array);
        Some(
            decisions
                .into_iter()
                .flatten()
                .filter_map(|d| d.get("clusterName").and_then(Value::as_str).map(str::to_owned))
                .collect(),
        )
    }
}
