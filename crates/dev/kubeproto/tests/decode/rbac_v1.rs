//! `rbac.authorization.k8s.io/v1` Role, ClusterRole, RoleBinding, ClusterRoleBinding.

use certgate_kubeproto::decode;
use serde_json::{Value, json};

use crate::support::{Msg, envelope, go_object_meta, msg};

const RBAC: &str = "rbac.authorization.k8s.io/v1";

fn decoded(kind: &str, object: Msg) -> Value {
    decode(&envelope(RBAC, kind, object)).unwrap()
}

#[test]
fn kubectl_create_role() {
    // kubectl create role pod-reader --verb=get,list --resource=pods,deployments.apps --resource-name=web
    let object = msg()
        .message(1, go_object_meta("pod-reader", "default"))
        .message(
            2,
            msg()
                .strings(1, &["get", "list"])
                .strings(2, &[""])
                .strings(3, &["pods"])
                .strings(4, &["web"]),
        )
        .message(
            2,
            msg().strings(1, &["get", "list"]).strings(2, &["apps"]).strings(3, &["deployments"]),
        );
    assert_eq!(
        decoded("Role", object),
        json!({
            "kind": "Role",
            "apiVersion": RBAC,
            "metadata": {"name": "pod-reader", "namespace": "default", "creationTimestamp": null},
            "rules": [
                {"verbs": ["get", "list"], "apiGroups": [""], "resources": ["pods"], "resourceNames": ["web"]},
                {"verbs": ["get", "list"], "apiGroups": ["apps"], "resources": ["deployments"]},
            ],
        })
    );
}

#[test]
fn a_role_without_rules_writes_null_rules() {
    // Neither Role.rules nor PolicyRule.verbs has omitempty.
    let object = msg().message(1, go_object_meta("empty", "default"));
    assert_eq!(
        decoded("Role", object),
        json!({
            "kind": "Role",
            "apiVersion": RBAC,
            "metadata": {"name": "empty", "namespace": "default", "creationTimestamp": null},
            "rules": null,
        })
    );
    let object = msg().message(2, msg());
    assert_eq!(decoded("Role", object)["rules"], json!([{"verbs": null}]));
}

#[test]
fn kubectl_create_clusterrole_with_non_resource_urls_and_aggregation() {
    let selector = msg()
        .entry(1, "rbac.example.com/aggregate-to-monitoring", b"true")
        .message(2, msg().string(1, "tier").string(2, "In").strings(3, &["a", "b"]))
        .message(2, msg().string(1, "legacy").string(2, "DoesNotExist"));
    let object = msg()
        .message(1, go_object_meta("monitoring", ""))
        .message(2, msg().strings(1, &["get"]).strings(5, &["/healthz", "/metrics"]))
        .message(3, msg().message(1, selector).message(1, msg()));
    assert_eq!(
        decoded("ClusterRole", object),
        json!({
            "kind": "ClusterRole",
            "apiVersion": RBAC,
            "metadata": {"name": "monitoring", "creationTimestamp": null},
            "rules": [{"verbs": ["get"], "nonResourceURLs": ["/healthz", "/metrics"]}],
            "aggregationRule": {
                "clusterRoleSelectors": [
                    {
                        "matchLabels": {"rbac.example.com/aggregate-to-monitoring": "true"},
                        "matchExpressions": [
                            {"key": "tier", "operator": "In", "values": ["a", "b"]},
                            {"key": "legacy", "operator": "DoesNotExist"},
                        ],
                    },
                    {},
                ],
            },
        })
    );
}

#[test]
fn an_empty_aggregation_rule_is_an_empty_object() {
    let object = msg().message(3, msg());
    assert_eq!(
        decoded("ClusterRole", object),
        json!({
            "kind": "ClusterRole",
            "apiVersion": RBAC,
            "metadata": {"creationTimestamp": null},
            "rules": null,
            "aggregationRule": {},
        })
    );
}

#[test]
fn kubectl_create_rolebinding() {
    // kubectl create rolebinding read --role=pod-reader --user=alice --group=devs --serviceaccount=ci:builder
    let object = msg()
        .message(1, go_object_meta("read", "default"))
        .message(
            2,
            msg()
                .string(1, "User")
                .string(2, "rbac.authorization.k8s.io")
                .string(3, "alice")
                .string(4, ""),
        )
        .message(
            2,
            msg()
                .string(1, "Group")
                .string(2, "rbac.authorization.k8s.io")
                .string(3, "devs")
                .string(4, ""),
        )
        .message(
            2,
            msg().string(1, "ServiceAccount").string(2, "").string(3, "builder").string(4, "ci"),
        )
        .message(
            3,
            msg().string(1, "rbac.authorization.k8s.io").string(2, "Role").string(3, "pod-reader"),
        );
    assert_eq!(
        decoded("RoleBinding", object),
        json!({
            "kind": "RoleBinding",
            "apiVersion": RBAC,
            "metadata": {"name": "read", "namespace": "default", "creationTimestamp": null},
            "subjects": [
                {"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": "alice"},
                {"kind": "Group", "apiGroup": "rbac.authorization.k8s.io", "name": "devs"},
                {"kind": "ServiceAccount", "name": "builder", "namespace": "ci"},
            ],
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "pod-reader"},
        })
    );
}

#[test]
fn kubectl_create_clusterrolebinding_without_subjects() {
    let object = msg().message(1, go_object_meta("nobody", "")).message(
        3,
        msg().string(1, "rbac.authorization.k8s.io").string(2, "ClusterRole").string(3, "view"),
    );
    assert_eq!(
        decoded("ClusterRoleBinding", object),
        json!({
            "kind": "ClusterRoleBinding",
            "apiVersion": RBAC,
            "metadata": {"name": "nobody", "creationTimestamp": null},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
        })
    );
}

#[test]
fn a_binding_without_role_ref_writes_its_empty_fields() {
    // RoleRef is a value struct whose three fields have no omitempty.
    let object = msg().message(2, msg());
    assert_eq!(
        decoded("ClusterRoleBinding", object),
        json!({
            "kind": "ClusterRoleBinding",
            "apiVersion": RBAC,
            "metadata": {"creationTimestamp": null},
            "subjects": [{"kind": "", "name": ""}],
            "roleRef": {"apiGroup": "", "kind": "", "name": ""},
        })
    );
}
