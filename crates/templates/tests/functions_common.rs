//! Shared fixtures for the function and access tests (included with `#[path]`).
#![allow(dead_code, reason = "each test binary uses a different subset")]

use std::sync::Arc;

use certgate_gotemplate::{FuncError, FuncMap, Value, from_value};
use certgate_rbac::{RbacAuthorizer, RbacObjects};
use certgate_templates::access::{Access, InMemoryObjects};
use certgate_templates::session::{Session, SessionOutcome, run_in_session};
use serde_json::json;

pub fn hub_objects() -> InMemoryObjects {
    let node = |name: &str, roles: &[&str]| {
        let labels: serde_json::Map<String, serde_json::Value> = roles
            .iter()
            .map(|r| (format!("node-role.kubernetes.io/{r}"), json!("")))
            .chain([("kubernetes.io/os".to_owned(), json!("linux"))])
            .collect();
        json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels}})
    };
    InMemoryObjects::new([
        json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s", "namespace": "policies"},
               "data": {"k": "dmFsdWU=", "k2": "eA==", "empty": ""}}),
        json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s2", "namespace": "other"},
               "data": {"k": "b3RoZXI="}}),
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm", "namespace": "policies", "labels": {"app": "web"}},
               "data": {"a": "1", "b": "<x>&"}}),
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm-nodata", "namespace": "policies"}}),
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm2", "namespace": "other", "labels": {"app": "db"}},
               "data": {"x": "y"}}),
        json!({"apiVersion": "cluster.open-cluster-management.io/v1", "kind": "ManagedCluster",
               "metadata": {"name": "c1", "labels": {"env": "prod"}}}),
        json!({"apiVersion": "cluster.open-cluster-management.io/v1", "kind": "ManagedCluster",
               "metadata": {"name": "c2"}}),
        json!({"apiVersion": "cluster.open-cluster-management.io/v1alpha1", "kind": "ClusterClaim",
               "metadata": {"name": "id"}, "spec": {"value": "abc"}}),
        json!({"apiVersion": "cluster.open-cluster-management.io/v1alpha1", "kind": "ClusterClaim",
               "metadata": {"name": "nospec"}}),
        json!({"apiVersion": "cluster.open-cluster-management.io/v1alpha1", "kind": "ClusterClaim",
               "metadata": {"name": "novalue"}, "spec": {}}),
        json!({"apiVersion": "cluster.open-cluster-management.io/v1alpha1", "kind": "ClusterClaim",
               "metadata": {"name": "number"}, "spec": {"value": 5}}),
        node("master1", &["master", "worker"]),
        node("master2", &["master"]),
        node("infra1", &["infra"]),
        node("mixed", &["master", "infra"]),
        node("worker1", &["worker"]),
    ])
    .expect("fixtures are valid")
}

/// Default mode for the replica of a policy in `policies` on cluster `c1`.
pub fn default_access() -> Access {
    Access::for_policy("policies", "c1")
}

/// RBAC objects from JSON documents.
pub fn rbac(documents: &[serde_json::Value]) -> RbacObjects {
    let mut objects = RbacObjects::default();
    for document in documents {
        let value = document.clone();
        match document["kind"].as_str() {
            Some("Role") => objects.roles.push(serde_json::from_value(value).expect("Role")),
            Some("RoleBinding") => {
                objects.role_bindings.push(serde_json::from_value(value).expect("RoleBinding"))
            }
            Some("ClusterRole") => {
                objects.cluster_roles.push(serde_json::from_value(value).expect("ClusterRole"))
            }
            Some("ClusterRoleBinding") => objects
                .cluster_role_bindings
                .push(serde_json::from_value(value).expect("ClusterRoleBinding")),
            other => panic!("unexpected kind {other:?}"),
        }
    }
    objects
}

/// ServiceAccount `policies/sa`, allowed `verbs` on `resources` in namespace `other` and
/// nothing else.
pub fn sa_access(resources: &[&str], verbs: &[&str]) -> Access {
    let objects = rbac(&[
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
               "metadata": {"name": "reader", "namespace": "other"},
               "rules": [{"apiGroups": [""], "resources": resources, "verbs": verbs}]}),
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
               "metadata": {"name": "sa-reader", "namespace": "other"},
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "reader"},
               "subjects": [{"kind": "ServiceAccount", "name": "sa", "namespace": "policies"}]}),
    ]);
    Access::ServiceAccount {
        namespace: "policies".into(),
        name: "sa".into(),
        authorizer: Arc::new(RbacAuthorizer::try_new(objects).expect("valid RBAC")),
    }
}

pub fn s(text: &str) -> Value {
    Value::from(text)
}

/// Calls `name` from `map` inside a session.
pub fn call_in(
    map: &FuncMap,
    session: Session,
    name: &str,
    args: &[Value],
) -> (Result<Value, FuncError>, SessionOutcome) {
    let func = map.get(name).unwrap_or_else(|| panic!("{name} is defined")).clone();
    run_in_session(session, || func(args))
}

pub fn session(access: Access) -> Session {
    Session::new(Arc::new(hub_objects()), access)
}

/// The result as JSON, or the error message.
pub fn json_or_error(result: Result<Value, FuncError>) -> Result<serde_json::Value, String> {
    result.map(|v| from_value(&v)).map_err(|e| e.message().to_owned())
}
