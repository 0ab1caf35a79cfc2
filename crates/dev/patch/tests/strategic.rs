//! Strategic merge patch for the built-in kinds, including what kubectl sends.

use certgate_patch::{PatchError, PatchType, apply_patch, builtin_strategy};
use serde_json::{Value, json};

fn smp(group: &str, kind: &str, live: Value, patch: Value) -> Result<Value, PatchError> {
    let strategy = builtin_strategy(group, kind);
    apply_patch(&live, PatchType::StrategicMerge, patch.to_string().as_bytes(), strategy, None)
}

#[test]
fn service_account_secrets_merge_by_name_and_image_pull_secrets_replace() {
    let live = json!({
        "secrets": [{"name": "a"}, {"name": "b", "namespace": "x"}],
        "imagePullSecrets": [{"name": "p1"}]
    });
    let patch = json!({
        "secrets": [{"name": "b", "namespace": "y"}, {"name": "c"}],
        "imagePullSecrets": [{"name": "p2"}]
    });
    assert_eq!(
        smp("", "ServiceAccount", live, patch).unwrap(),
        json!({
            "secrets": [{"name": "a"}, {"name": "b", "namespace": "y"}, {"name": "c"}],
            "imagePullSecrets": [{"name": "p2"}]
        })
    );
}

#[test]
fn webhooks_merge_by_name() {
    let live = json!({"webhooks": [
        {"name": "a.example.com", "failurePolicy": "Fail", "sideEffects": "None"},
        {"name": "b.example.com", "failurePolicy": "Fail"}
    ]});
    let patch = json!({"webhooks": [
        {"name": "b.example.com", "failurePolicy": "Ignore"},
        {"name": "a.example.com", "$patch": "delete"}
    ]});
    for kind in ["ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"] {
        assert_eq!(
            smp("admissionregistration.k8s.io", kind, live.clone(), patch.clone()).unwrap(),
            json!({"webhooks": [{"name": "b.example.com", "failurePolicy": "Ignore"}]})
        );
    }
}

#[test]
fn finalizers_merge_as_a_set_and_owner_references_by_uid() {
    let live = json!({"metadata": {
        "finalizers": ["a", "b"],
        "ownerReferences": [{"uid": "1", "name": "one"}, {"uid": "2", "name": "two"}]
    }});
    let patch = json!({"metadata": {
        "finalizers": ["b", "c"],
        "ownerReferences": [{"uid": "2", "controller": true}, {"uid": "3", "name": "three"}]
    }});
    assert_eq!(
        smp("", "ConfigMap", live, patch).unwrap(),
        json!({"metadata": {
            "finalizers": ["a", "b", "c"],
            "ownerReferences": [
                {"uid": "1", "name": "one"},
                {"uid": "2", "name": "two", "controller": true},
                {"uid": "3", "name": "three"}
            ]
        }})
    );
}

#[test]
fn rbac_rules_and_subjects_are_replaced() {
    let live = json!({"rules": [{"verbs": ["get"]}], "subjects": [{"kind": "User", "name": "a"}]});
    let patch =
        json!({"rules": [{"verbs": ["list"]}], "subjects": [{"kind": "User", "name": "b"}]});
    for kind in ["Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"] {
        assert_eq!(
            smp("rbac.authorization.k8s.io", kind, live.clone(), patch.clone()).unwrap(),
            patch
        );
    }
}

#[test]
fn namespace_conditions_merge_by_type() {
    let live = json!({"status": {"conditions": [{"type": "A", "status": "True"}]}});
    let patch = json!({"status": {"conditions": [{"type": "B", "status": "False"}]}});
    assert_eq!(
        smp("", "Namespace", live, patch).unwrap(),
        json!({"status": {"conditions": [
            {"type": "A", "status": "True"}, {"type": "B", "status": "False"}
        ]}})
    );
}

#[test]
fn patch_directives_on_maps_and_lists() {
    let live = json!({"data": {"a": "1", "b": "2"}, "metadata": {"labels": {"x": "1"}, "finalizers": ["f1", "f2"]}});
    let cases = [
        (
            json!({"data": {"$patch": "replace", "c": "3"}}),
            json!({"data": {"c": "3"}, "metadata": {"labels": {"x": "1"}, "finalizers": ["f1", "f2"]}}),
        ),
        (
            json!({"data": {"$patch": "delete"}}),
            json!({"metadata": {"labels": {"x": "1"}, "finalizers": ["f1", "f2"]}}),
        ),
        (
            json!({"metadata": {"finalizers": [{"$patch": "replace"}, "f3"]}}),
            json!({"data": {"a": "1", "b": "2"}, "metadata": {"labels": {"x": "1"}, "finalizers": ["f3"]}}),
        ),
        (
            json!({"metadata": {"$deleteFromPrimitiveList/finalizers": ["f1"]}}),
            json!({"data": {"a": "1", "b": "2"}, "metadata": {"labels": {"x": "1"}, "finalizers": ["f2"]}}),
        ),
        (
            json!({"data": {"$retainKeys": ["b", "c"], "c": "3"}}),
            json!({"data": {"b": "2", "c": "3"}, "metadata": {"labels": {"x": "1"}, "finalizers": ["f1", "f2"]}}),
        ),
    ];
    for (patch, expected) in cases {
        assert_eq!(smp("", "ConfigMap", live.clone(), patch.clone()).unwrap(), expected, "{patch}");
    }
}

#[test]
fn set_element_order_is_accepted_and_orders_the_list() {
    let live = json!({"metadata": {"finalizers": ["a", "b"]}});
    let patch = json!({"metadata": {
        "$setElementOrder/finalizers": ["c", "b", "a"],
        "finalizers": ["c"]
    }});
    assert_eq!(
        smp("", "Secret", live, patch).unwrap(),
        json!({"metadata": {"finalizers": ["c", "b", "a"]}})
    );
    let live = json!({"webhooks": [{"name": "a"}, {"name": "b"}]});
    let patch = json!({"$setElementOrder/webhooks": [{"name": "b"}, {"name": "a"}]});
    assert_eq!(
        smp("admissionregistration.k8s.io", "ValidatingWebhookConfiguration", live, patch).unwrap(),
        json!({"webhooks": [{"name": "b"}, {"name": "a"}]})
    );
}

#[test]
fn kubectl_apply_configmap_edit() {
    // kubectl apply (client-side) after removing key `b` and changing `a` in a ConfigMap
    // sends the new last-applied annotation plus a data merge with null for deleted keys.
    let live = json!({
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "cm", "namespace": "default",
            "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{old}", "keep": "me"},
            "labels": {"app": "x", "gone": "y"}},
        "data": {"a": "1", "b": "2", "server": "side"}
    });
    let patch = json!({
        "data": {"a": "10", "b": null, "c": "3"},
        "metadata": {
            "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{new}"},
            "labels": {"gone": null, "tier": "web"}
        }
    });
    assert_eq!(
        smp("", "ConfigMap", live, patch).unwrap(),
        json!({
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "cm", "namespace": "default",
                "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{new}", "keep": "me"},
                "labels": {"app": "x", "tier": "web"}},
            "data": {"a": "10", "server": "side", "c": "3"}
        })
    );
}

#[test]
fn custom_resources_get_415() {
    assert!(builtin_strategy("cert-manager.io", "CertificateRequest").is_none());
    let err =
        smp("cert-manager.io", "CertificateRequest", json!({}), json!({"spec": {}})).unwrap_err();
    assert_eq!((err.status_code(), err.reason()), (415, "UnsupportedMediaType"));
    assert_eq!(
        err.status_message(),
        "the body of the request was in an unknown format - accepted media types include: \
         application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"
    );
}

#[test]
fn strategic_merge_errors() {
    let cases: [(Value, u16, &str); 5] = [
        (json!({"data": {"$retainKeys": "a"}}), 400, "invalid patch format of retainKeys"),
        (
            json!({"data": {"$retainKeys": ["a"], "b": "1"}}),
            422,
            "patch content doesn't match retainKeys list",
        ),
        (
            json!({"metadata": {"$deleteFromPrimitiveList/finalizers": "a"}}),
            400,
            "invalid patch format of primitive list",
        ),
        (
            json!({"metadata": {"$setElementOrder/finalizers": "a"}}),
            400,
            "invalid patch format of setElementOrder list",
        ),
        (json!({"metadata": {"finalizers": [["a"]]}}), 422, "lists of lists are not supported"),
    ];
    for (patch, status, message) in cases {
        let err = smp("", "ConfigMap", json!({"data": {}}), patch.clone()).unwrap_err();
        assert_eq!((err.status_code(), err.to_string().as_str()), (status, message), "{patch}");
    }
    let err = smp("", "ConfigMap", json!({}), json!([1])).unwrap_err();
    assert_eq!(
        err.to_string(),
        "json: cannot unmarshal array into Go value of type map[string]interface {}"
    );
    let err =
        smp("", "ServiceAccount", json!({}), json!({"secrets": [{"namespace": "x"}]})).unwrap_err();
    assert_eq!(
        err.to_string(),
        "map: {\"namespace\":\"x\"} does not contain declared merge key: name"
    );
}
