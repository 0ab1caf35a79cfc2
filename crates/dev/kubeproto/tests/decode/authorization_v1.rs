//! `authorization.k8s.io/v1` SelfSubjectAccessReview, SubjectAccessReview,
//! LocalSubjectAccessReview, SelfSubjectRulesReview.

use certgate_kubeproto::decode;
use serde_json::{Value, json};

use crate::support::{Msg, envelope, go_object_meta, msg};

const AUTHZ: &str = "authorization.k8s.io/v1";

fn decoded(kind: &str, object: Msg) -> Value {
    decode(&envelope(AUTHZ, kind, object)).unwrap()
}

/// SubjectAccessReviewStatus{} as Go marshals it.
fn empty_status() -> Msg {
    msg().bool(1, false).string(2, "").string(3, "").bool(4, false)
}

/// ResourceAttributes as Go marshals it: all seven strings, pointers only when set.
fn resource_attributes(
    namespace: &str,
    verb: &str,
    group: &str,
    resource: &str,
    name: &str,
) -> Msg {
    msg()
        .string(1, namespace)
        .string(2, verb)
        .string(3, group)
        .string(4, "")
        .string(5, resource)
        .string(6, "")
        .string(7, name)
}

#[test]
fn kubectl_auth_can_i() {
    // kubectl auth can-i create deployments.apps -n prod
    let object = msg()
        .message(1, go_object_meta("", ""))
        .message(
            2,
            msg().message(1, resource_attributes("prod", "create", "apps", "deployments", "")),
        )
        .message(3, empty_status());
    assert_eq!(
        decoded("SelfSubjectAccessReview", object),
        json!({
            "kind": "SelfSubjectAccessReview",
            "apiVersion": AUTHZ,
            "metadata": {"creationTimestamp": null},
            "spec": {
                "resourceAttributes": {
                    "namespace": "prod",
                    "verb": "create",
                    "group": "apps",
                    "resource": "deployments",
                },
            },
            "status": {"allowed": false},
        })
    );
}

#[test]
fn kubectl_auth_can_i_for_a_non_resource_url() {
    // kubectl auth can-i get /healthz
    let object = msg()
        .message(1, go_object_meta("", ""))
        .message(2, msg().message(2, msg().string(1, "/healthz").string(2, "get")))
        .message(3, empty_status());
    assert_eq!(
        decoded("SelfSubjectAccessReview", object)["spec"],
        json!({"nonResourceAttributes": {"path": "/healthz", "verb": "get"}})
    );
}

#[test]
fn resource_attributes_with_field_and_label_selectors() {
    let field_selector = msg()
        .string(1, "spec.nodeName=n1")
        .message(2, msg().string(1, "spec.nodeName").string(2, "In").strings(3, &["n1"]));
    let label_selector = msg()
        .string(1, "")
        .message(2, msg().string(1, "app").string(2, "Exists"))
        .message(2, msg().string(1, "tier").string(2, "NotIn").strings(3, &["db", "cache"]));
    let attributes = resource_attributes("", "list", "", "pods", "")
        .string(6, "log")
        .string(4, "v1")
        .message(8, field_selector)
        .message(9, label_selector);
    let object = msg().message(2, msg().message(1, attributes));
    assert_eq!(
        decoded("SelfSubjectAccessReview", object)["spec"],
        json!({
            "resourceAttributes": {
                "verb": "list",
                "version": "v1",
                "resource": "pods",
                "subresource": "log",
                "fieldSelector": {
                    "rawSelector": "spec.nodeName=n1",
                    "requirements": [{"key": "spec.nodeName", "operator": "In", "values": ["n1"]}],
                },
                "labelSelector": {
                    "requirements": [
                        {"key": "app", "operator": "Exists"},
                        {"key": "tier", "operator": "NotIn", "values": ["db", "cache"]},
                    ],
                },
            },
        })
    );
}

#[test]
fn subject_access_review_with_every_spec_field() {
    let spec = msg()
        .message(1, resource_attributes("prod", "get", "", "secrets", "db"))
        .message(2, msg().string(1, "/metrics").string(2, "get"))
        .string(3, "alice")
        .strings(4, &["devs", "system:authenticated"])
        .message(5, msg().string(1, "scopes").message(2, msg().strings(1, &["read"])))
        .message(5, msg().string(1, "empty").message(2, msg()))
        .string(6, "a1b2");
    let status =
        msg().bool(1, true).string(2, "RBAC: allowed by RoleBinding").string(3, "").bool(4, false);
    let object = msg().message(1, go_object_meta("", "")).message(2, spec).message(3, status);
    assert_eq!(
        decoded("SubjectAccessReview", object),
        json!({
            "kind": "SubjectAccessReview",
            "apiVersion": AUTHZ,
            "metadata": {"creationTimestamp": null},
            "spec": {
                "resourceAttributes": {"namespace": "prod", "verb": "get", "resource": "secrets", "name": "db"},
                "nonResourceAttributes": {"path": "/metrics", "verb": "get"},
                "user": "alice",
                "groups": ["devs", "system:authenticated"],
                "extra": {"empty": [], "scopes": ["read"]},
                "uid": "a1b2",
            },
            "status": {"allowed": true, "reason": "RBAC: allowed by RoleBinding"},
        })
    );
}

#[test]
fn a_denied_answer_writes_denied_and_the_evaluation_error() {
    let status = msg().bool(1, false).string(2, "no").string(3, "webhook timed out").bool(4, true);
    let object = msg().message(3, status);
    assert_eq!(
        decoded("SubjectAccessReview", object)["status"],
        json!({"allowed": false, "denied": true, "reason": "no", "evaluationError": "webhook timed out"})
    );
}

#[test]
fn local_subject_access_review() {
    let object = msg()
        .message(1, go_object_meta("", "prod"))
        .message(
            2,
            msg()
                .message(1, resource_attributes("prod", "delete", "", "pods", ""))
                .string(3, "bob"),
        )
        .message(3, empty_status());
    assert_eq!(
        decoded("LocalSubjectAccessReview", object),
        json!({
            "kind": "LocalSubjectAccessReview",
            "apiVersion": AUTHZ,
            "metadata": {"namespace": "prod", "creationTimestamp": null},
            "spec": {
                "resourceAttributes": {"namespace": "prod", "verb": "delete", "resource": "pods"},
                "user": "bob",
            },
            "status": {"allowed": false},
        })
    );
}

#[test]
fn kubectl_auth_can_i_list() {
    // kubectl auth can-i --list -n prod: SelfSubjectRulesReview; the empty status is written
    // as Go writes SubjectRulesReviewStatus{} (its lists and incomplete have no omitempty).
    let object = msg()
        .message(1, go_object_meta("", ""))
        .message(2, msg().string(1, "prod"))
        .message(3, msg().bool(3, false).string(4, ""));
    assert_eq!(
        decoded("SelfSubjectRulesReview", object),
        json!({
            "kind": "SelfSubjectRulesReview",
            "apiVersion": AUTHZ,
            "metadata": {"creationTimestamp": null},
            "spec": {"namespace": "prod"},
            "status": {"resourceRules": null, "nonResourceRules": null, "incomplete": false},
        })
    );
}

#[test]
fn self_subject_rules_review_answer() {
    let status = msg()
        .message(
            1,
            msg()
                .strings(1, &["get", "list"])
                .strings(2, &[""])
                .strings(3, &["pods"])
                .strings(4, &["web"]),
        )
        .message(1, msg())
        .message(2, msg().strings(1, &["get"]).strings(2, &["/healthz"]))
        .bool(3, true)
        .string(4, "webhook authorizer does not support rules");
    let object = msg().message(3, status);
    assert_eq!(
        decoded("SelfSubjectRulesReview", object)["status"],
        json!({
            "resourceRules": [
                {"verbs": ["get", "list"], "apiGroups": [""], "resources": ["pods"], "resourceNames": ["web"]},
                {"verbs": null},
            ],
            "nonResourceRules": [{"verbs": ["get"], "nonResourceURLs": ["/healthz"]}],
            "incomplete": true,
            "evaluationError": "webhook authorizer does not support rules",
        })
    );
}
