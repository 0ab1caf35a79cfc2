//! Table tests for rules, match policies and selectors.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Value, json};

use super::*;
use crate::attributes::{GroupVersionKind, GroupVersionResource, Operation};
use crate::configurations::{Configurations, Hook};

fn attributes(
    operation: Operation,
    group: &str,
    version: &str,
    resource: &str,
    sub: &str,
    namespace: &str,
) -> AdmissionAttributes {
    AdmissionAttributes {
        operation,
        kind: GroupVersionKind::new(group, version, "Thing"),
        resource: GroupVersionResource::new(group, version, resource),
        subresource: sub.to_owned(),
        namespaced: !namespace.is_empty(),
        name: "x".into(),
        namespace: namespace.to_owned(),
        user: Default::default(),
        object: Some(json!({ "metadata": { "name": "x", "labels": { "app": "web" } } })),
        old_object: None,
        dry_run: false,
        options: Value::Null,
        namespace_labels: Some(BTreeMap::from([("env".to_owned(), "prod".to_owned())])),
    }
}

fn pods_create(namespace: &str) -> AdmissionAttributes {
    attributes(Operation::Create, "", "v1", "pods", "", namespace)
}

/// The single webhook of a validating configuration built from `overrides`.
fn hook(overrides: Value) -> Arc<Hook> {
    let mut webhook = json!({
        "name": "w.example.com",
        "clientConfig": { "url": "https://127.0.0.1/" },
        "sideEffects": "None",
        "admissionReviewVersions": ["v1"],
    });
    if let (Some(target), Value::Object(extra)) = (webhook.as_object_mut(), overrides) {
        target.extend(extra);
    }
    let config = json!({
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingWebhookConfiguration",
        "metadata": { "name": "c" },
        "webhooks": [webhook],
    });
    let configurations = Configurations::from_objects(&[], &[config]);
    configurations.validating[0].clone()
}

fn rule(
    operations: &[&str],
    groups: &[&str],
    versions: &[&str],
    resources: &[&str],
    scope: Option<&str>,
) -> Value {
    let mut rule = json!({ "operations": operations, "apiGroups": groups, "apiVersions": versions, "resources": resources });
    if let Some(scope) = scope {
        rule["scope"] = json!(scope);
    }
    json!({ "rules": [rule] })
}

#[test]
fn rules_table() {
    let ns_create = |namespace: &str| pods_create(namespace);
    let status_update = attributes(Operation::Update, "", "v1", "pods", "status", "team");
    let deploy = attributes(Operation::Delete, "apps", "v1", "deployments", "", "team");
    let namespace_update = attributes(Operation::Update, "", "v1", "namespaces", "", "team");
    let node = attributes(Operation::Connect, "", "v1", "nodes", "proxy", "");
    let cases: Vec<(&str, Value, AdmissionAttributes, bool)> = vec![
        ("exact rule", rule(&["CREATE"], &[""], &["v1"], &["pods"], None), ns_create("team"), true),
        (
            "other operation",
            rule(&["UPDATE"], &[""], &["v1"], &["pods"], None),
            ns_create("team"),
            false,
        ),
        (
            "operation wildcard",
            rule(&["*"], &[""], &["v1"], &["pods"], None),
            ns_create("team"),
            true,
        ),
        (
            "other group",
            rule(&["*"], &["apps"], &["v1"], &["pods"], None),
            ns_create("team"),
            false,
        ),
        ("group wildcard", rule(&["*"], &["*"], &["*"], &["*"], None), deploy.clone(), true),
        (
            "resource without subresource misses status",
            rule(&["*"], &[""], &["v1"], &["pods"], None),
            status_update.clone(),
            false,
        ),
        (
            "pods/status",
            rule(&["*"], &[""], &["v1"], &["pods/status"], None),
            status_update.clone(),
            true,
        ),
        ("pods/*", rule(&["*"], &[""], &["v1"], &["pods/*"], None), status_update.clone(), true),
        (
            "*/status",
            rule(&["*"], &[""], &["v1"], &["*/status"], None),
            status_update.clone(),
            true,
        ),
        (
            "*/* matches subresources",
            rule(&["*"], &["*"], &["*"], &["*/*"], None),
            node.clone(),
            true,
        ),
        ("* misses subresources", rule(&["*"], &["*"], &["*"], &["*"], None), node.clone(), false),
        (
            "*/status misses the main resource",
            rule(&["*"], &[""], &["v1"], &["*/status"], None),
            ns_create("team"),
            false,
        ),
        (
            "namespaced scope",
            rule(&["*"], &[""], &["v1"], &["pods"], Some("Namespaced")),
            ns_create("team"),
            true,
        ),
        (
            "cluster scope misses namespaced",
            rule(&["*"], &[""], &["v1"], &["pods"], Some("Cluster")),
            ns_create("team"),
            false,
        ),
        (
            "cluster scope",
            rule(&["CONNECT"], &[""], &["v1"], &["nodes/proxy"], Some("Cluster")),
            node.clone(),
            true,
        ),
        (
            "namespaced scope misses cluster",
            rule(&["*"], &[""], &["v1"], &["nodes/*"], Some("Namespaced")),
            node,
            false,
        ),
        (
            "namespaces are cluster-scoped",
            rule(&["*"], &[""], &["v1"], &["namespaces"], Some("Cluster")),
            namespace_update.clone(),
            true,
        ),
        (
            "namespaces are not namespaced",
            rule(&["*"], &[""], &["v1"], &["namespaces"], Some("Namespaced")),
            namespace_update,
            false,
        ),
        (
            "unknown scope never matches",
            rule(&["*"], &[""], &["v1"], &["pods"], Some("Galaxy")),
            ns_create("team"),
            false,
        ),
        (
            "equivalent version",
            rule(&["DELETE"], &["apps"], &["v1beta1"], &["deployments"], None),
            deploy.clone(),
            true,
        ),
        ("no rules", json!({}), deploy, false),
    ];
    for (name, overrides, attributes, expected) in cases {
        assert_eq!(should_call(&hook(overrides), &attributes), Ok(expected), "{name}");
    }
}

#[test]
fn match_policy_exact_needs_the_served_version() {
    let deploy = attributes(Operation::Create, "apps", "v1", "deployments", "", "team");
    let mut overrides = rule(&["*"], &["apps"], &["v1beta1"], &["deployments"], None);
    assert_eq!(should_call(&hook(overrides.clone()), &deploy), Ok(true));
    overrides["matchPolicy"] = json!("Exact");
    assert_eq!(should_call(&hook(overrides.clone()), &deploy), Ok(false));
    overrides["rules"][0]["apiVersions"] = json!(["v1beta1", "v1"]);
    assert_eq!(should_call(&hook(overrides), &deploy), Ok(true));
}

fn all_pods(extra: Value) -> Value {
    let mut overrides = rule(&["*"], &["*"], &["*"], &["*"], None);
    if let (Some(target), Value::Object(extra)) = (overrides.as_object_mut(), extra) {
        target.extend(extra);
    }
    overrides
}

#[test]
fn selectors_table() {
    let team = pods_create("team");
    let mut cluster_object = attributes(Operation::Create, "", "v1", "nodes", "", "");
    cluster_object.namespace_labels = None;
    let mut new_namespace = attributes(Operation::Create, "", "v1", "namespaces", "", "");
    new_namespace.namespace_labels = None;
    new_namespace.object = Some(json!({ "metadata": { "name": "n", "labels": { "env": "dev" } } }));
    let mut deleted_namespace = attributes(Operation::Delete, "", "v1", "namespaces", "", "n");
    deleted_namespace.namespace_labels = None;
    deleted_namespace.old_object =
        Some(json!({ "metadata": { "name": "n", "labels": { "env": "dev" } } }));
    deleted_namespace.object = None;
    let mut relabelled = pods_create("team");
    relabelled.operation = Operation::Update;
    relabelled.object = Some(json!({ "metadata": { "labels": { "app": "api" } } }));
    relabelled.old_object = Some(json!({ "metadata": { "labels": { "app": "db" } } }));

    let prod = json!({ "namespaceSelector": { "matchLabels": { "env": "prod" } } });
    let dev = json!({ "namespaceSelector": { "matchExpressions": [{ "key": "env", "operator": "In", "values": ["dev"] }] } });
    let db = json!({ "objectSelector": { "matchLabels": { "app": "db" } } });
    let cases: Vec<(&str, Value, &AdmissionAttributes, bool)> = vec![
        ("namespace labels match", prod.clone(), &team, true),
        ("namespace labels differ", dev.clone(), &team, false),
        ("cluster-scoped objects ignore namespace selectors", dev.clone(), &cluster_object, true),
        ("a new Namespace is matched by its own labels", dev.clone(), &new_namespace, true),
        ("a new Namespace without the labels", prod.clone(), &new_namespace, false),
        ("a deleted Namespace is matched by its stored labels", dev, &deleted_namespace, true),
        (
            "empty selector matches all",
            json!({ "namespaceSelector": {}, "objectSelector": {} }),
            &team,
            true,
        ),
        ("object selector misses", db.clone(), &team, false),
        ("the old object's labels match", db.clone(), &relabelled, true),
        (
            "DoesNotExist",
            json!({ "objectSelector": { "matchExpressions": [{ "key": "tier", "operator": "DoesNotExist" }] } }),
            &team,
            true,
        ),
    ];
    for (name, extra, attributes, expected) in cases {
        assert_eq!(should_call(&hook(all_pods(extra)), attributes), Ok(expected), "{name}");
    }
}

#[test]
fn broken_selectors_only_fail_requests_the_webhook_applies_to() {
    let broken =
        json!({ "objectSelector": { "matchExpressions": [{ "key": "app", "operator": "Near" }] } });
    let unrelated = rule(&["DELETE"], &["apps"], &["v1"], &["deployments"], None);
    let mut overrides = unrelated;
    overrides["objectSelector"] = broken["objectSelector"].clone();
    assert_eq!(should_call(&hook(overrides), &pods_create("team")), Ok(false));

    let error = should_call(&hook(all_pods(broken)), &pods_create("team")).unwrap_err();
    assert_eq!(error.code, 500);
    assert_eq!(
        error.message,
        r#"Internal error occurred: "Near" is not a valid label selector operator"#
    );

    let empty_in = json!({ "namespaceSelector": { "matchExpressions": [{ "key": "env", "operator": "In" }] } });
    let error = should_call(&hook(all_pods(empty_in)), &pods_create("team")).unwrap_err();
    assert_eq!(
        error.message,
        "Internal error occurred: values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty"
    );
}

#[test]
fn admission_configurations_are_exempt() {
    let mut attributes = pods_create("");
    assert!(!is_exempt(&attributes));
    for kind in ["MutatingWebhookConfiguration", "ValidatingAdmissionPolicyBinding"] {
        attributes.kind = GroupVersionKind::new("admissionregistration.k8s.io", "v1", kind);
        assert!(is_exempt(&attributes), "{kind}");
    }
}
