//! The replica's object before its templates are resolved (§3 step 6).

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::dependencies::canonicalize_dependencies;
use super::names::{
    ANNOTATION_ARGOCD_COMPARE, LABEL_CLUSTER_NAME, LABEL_CLUSTER_NAMESPACE, LABEL_ROOT_POLICY,
    POLICY_GROUP, replica_name,
};
use crate::pipeline::PolicyMetadata;

/// What template processing needs to know about the root besides the replica.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplicaMetadata {
    /// `.PolicyMetadata` as upstream computes it, quirk included: when the root has labels,
    /// upstream edits the root's own label map while building the replica, so templates see
    /// the replica's labels (with the three propagator labels, and without unprefixed ones
    /// under `copyPolicyMetadata: false`); a root without labels gives an empty map.
    pub policy_metadata: PolicyMetadata,
}

/// Builds the replica of `root` for `cluster`. Server-set fields (`uid`, `creationTimestamp`,
/// `generation`, `managedFields`, `deletionTimestamp`) are left out: the API server would
/// overwrite them on create.
pub fn build_replica(
    root: &Value,
    cluster: &str,
    policy_set: &dyn Fn(&str, &str) -> Option<Value>,
) -> (Value, ReplicaMetadata) {
    let metadata = root.get("metadata").and_then(Value::as_object).cloned().unwrap_or_default();
    let text = |field: &str| metadata.get(field).and_then(Value::as_str).unwrap_or("").to_owned();
    let (root_namespace, root_name) = (text("namespace"), text("name"));
    let name = replica_name(&root_namespace, &root_name);
    let copy_metadata =
        root.pointer("/spec/copyPolicyMetadata").and_then(Value::as_bool).unwrap_or(true);
    let keep = |key: &str| copy_metadata || key.starts_with(&format!("{POLICY_GROUP}/"));

    let root_labels = string_map(metadata.get("labels"));
    let mut labels: BTreeMap<String, String> =
        root_labels.iter().filter(|(k, _)| keep(k)).map(|(k, v)| (k.clone(), v.clone())).collect();
    labels.insert(LABEL_CLUSTER_NAME.to_owned(), cluster.to_owned());
    labels.insert(LABEL_CLUSTER_NAMESPACE.to_owned(), cluster.to_owned());
    labels.insert(LABEL_ROOT_POLICY.to_owned(), name.clone());

    let root_annotations = string_map(metadata.get("annotations"));
    let mut annotations: BTreeMap<String, String> = root_annotations
        .iter()
        .filter(|(k, _)| keep(k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    annotations.insert(ANNOTATION_ARGOCD_COMPARE.to_owned(), "IgnoreExtraneous".to_owned());

    let mut replica_metadata = metadata.clone();
    for server_set in [
        "resourceVersion",
        "finalizers",
        "ownerReferences",
        "uid",
        "creationTimestamp",
        "generation",
        "managedFields",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "selfLink",
    ] {
        replica_metadata.remove(server_set);
    }
    replica_metadata.insert("name".to_owned(), Value::String(name));
    replica_metadata.insert("namespace".to_owned(), Value::String(cluster.to_owned()));
    replica_metadata.insert("labels".to_owned(), to_json_map(&labels));
    replica_metadata.insert("annotations".to_owned(), to_json_map(&annotations));

    let mut spec = root.get("spec").cloned().unwrap_or_else(|| Value::Object(Map::new()));
    canonicalize_in(&mut spec, "dependencies", &root_namespace, policy_set);
    if let Some(templates) = spec.get_mut("policy-templates").and_then(Value::as_array_mut) {
        for template in templates {
            canonicalize_in(template, "extraDependencies", &root_namespace, policy_set);
        }
    }

    let mut replica = Map::new();
    replica.insert(
        "apiVersion".to_owned(),
        root.get("apiVersion")
            .cloned()
            .unwrap_or_else(|| Value::String(format!("{POLICY_GROUP}/v1"))),
    );
    replica.insert("kind".to_owned(), Value::String("Policy".to_owned()));
    replica.insert("metadata".to_owned(), Value::Object(replica_metadata));
    replica.insert("spec".to_owned(), spec);

    let policy_metadata = PolicyMetadata {
        name: root_name,
        namespace: root_namespace,
        labels: if root_labels.is_empty() { BTreeMap::new() } else { labels },
        annotations: root_annotations,
    };
    (Value::Object(replica), ReplicaMetadata { policy_metadata })
}

fn canonicalize_in(
    object: &mut Value,
    field: &str,
    root_namespace: &str,
    policy_set: &dyn Fn(&str, &str) -> Option<Value>,
) {
    let Some(list) = object.get(field).and_then(Value::as_array) else { return };
    let canonical = canonicalize_dependencies(list, root_namespace, policy_set);
    if let Some(map) = object.as_object_mut() {
        map.insert(field.to_owned(), Value::Array(canonical));
    }
}

fn string_map(value: Option<&Value>) -> BTreeMap<String, String> {
    value
        .and_then(Value::as_object)
        .map(|map| {
            map.iter().filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_owned()))).collect()
        })
        .unwrap_or_default()
}

fn to_json_map(map: &BTreeMap<String, String>) -> Value {
    Value::Object(map.iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn no_sets(_: &str, _: &str) -> Option<Value> {
        None
    }

    fn root(copy_metadata: Option<bool>, labels: Value) -> Value {
        let mut spec = json!({"remediationAction": "inform", "policy-templates": []});
        if let Some(copy) = copy_metadata {
            spec["copyPolicyMetadata"] = json!(copy);
        }
        json!({
            "apiVersion": "policy.open-cluster-management.io/v1",
            "kind": "Policy",
            "metadata": {
                "name": "p.one", "namespace": "policies", "uid": "u", "resourceVersion": "7",
                "finalizers": ["f"], "labels": labels,
                "annotations": {"team": "a", "policy.open-cluster-management.io/standards": "NIST"}
            },
            "spec": spec,
            "status": {"compliant": "Compliant"}
        })
    }

    #[test]
    fn replicas_carry_the_propagator_labels_and_annotation() {
        let (replica, meta) = build_replica(&root(None, json!({"app": "x"})), "cluster1", &no_sets);
        assert_eq!(
            replica,
            json!({
                "apiVersion": "policy.open-cluster-management.io/v1",
                "kind": "Policy",
                "metadata": {
                    "name": "policies.p.one", "namespace": "cluster1",
                    "labels": {
                        "app": "x",
                        "policy.open-cluster-management.io/cluster-name": "cluster1",
                        "policy.open-cluster-management.io/cluster-namespace": "cluster1",
                        "policy.open-cluster-management.io/root-policy": "policies.p.one"
                    },
                    "annotations": {
                        "argocd.argoproj.io/compare-options": "IgnoreExtraneous",
                        "policy.open-cluster-management.io/standards": "NIST",
                        "team": "a"
                    }
                },
                "spec": {"remediationAction": "inform", "policy-templates": []}
            })
        );
        // The quirk: templates see the replica's labels when the root has labels.
        assert_eq!(meta.policy_metadata.labels.len(), 4);
        assert_eq!(meta.policy_metadata.annotations.len(), 2);
    }

    #[test]
    fn copy_policy_metadata_false_keeps_only_policy_prefixed_keys() {
        let (replica, meta) = build_replica(&root(Some(false), json!({"app": "x"})), "c", &no_sets);
        let labels = replica.pointer("/metadata/labels").and_then(Value::as_object);
        assert!(labels.is_some_and(|l| !l.contains_key("app") && l.len() == 3));
        let annotations = replica.pointer("/metadata/annotations").and_then(Value::as_object);
        assert!(annotations.is_some_and(|a| !a.contains_key("team") && a.len() == 2));
        assert!(!meta.policy_metadata.labels.contains_key("app"));
        // Annotations seen by templates are the root's own.
        assert!(meta.policy_metadata.annotations.contains_key("team"));
    }

    #[test]
    fn a_root_without_labels_gives_templates_no_labels() {
        let (_, meta) = build_replica(&root(None, json!({})), "c", &no_sets);
        assert!(meta.policy_metadata.labels.is_empty());
    }
}
