//! `RbacAuthorizer::explain`: every applicable binding and why it did or did not allow.

mod common;

use certgate_rbac::{
    AccessDecision, Authorizer, BindingExplanation, BindingKind, BindingOutcome,
    NonResourceAttributes, RbacAuthorizer, RuleMismatch,
};
use common::{fixture, request, review, user};

fn authorizer() -> RbacAuthorizer {
    RbacAuthorizer::try_new(fixture()).expect("fixture is valid")
}

#[test]
fn denial_lists_each_binding_and_the_failed_check() {
    let review =
        review(user("bob", &["devs", "ops"]), request("team-a", "get", "", "pods/log", "p"));
    let explanation = authorizer().explain(&review);
    assert_eq!(explanation.decision, AccessDecision { allowed: false, reason: String::new() });
    assert!(!explanation.superuser);
    assert_eq!(
        explanation.bindings,
        [
            BindingExplanation {
                kind: BindingKind::ClusterRoleBinding,
                namespace: String::new(),
                name: "ops-nodes".to_owned(),
                role_kind: "ClusterRole".to_owned(),
                role_name: "node-reader".to_owned(),
                subject: r#"Group "ops""#.to_owned(),
                outcome: BindingOutcome::NoRuleMatched { mismatches: vec![RuleMismatch::Resource] },
            },
            BindingExplanation {
                kind: BindingKind::RoleBinding,
                namespace: "team-a".to_owned(),
                name: "devs-read-pods".to_owned(),
                role_kind: "ClusterRole".to_owned(),
                role_name: "pod-reader".to_owned(),
                subject: r#"Group "devs""#.to_owned(),
                outcome: BindingOutcome::NoRuleMatched { mismatches: vec![RuleMismatch::Resource] },
            },
        ]
    );
    assert_eq!(
        explanation.to_string(),
        r#"denied: user "bob" with groups ["devs" "ops"] to "get" resource "pods/log" named "p" in namespace "team-a"
- ClusterRoleBinding "ops-nodes" of ClusterRole "node-reader" to Group "ops": no rule allows the request (rule 0: resources do not match)
- RoleBinding "devs-read-pods/team-a" of ClusterRole "pod-reader" to Group "devs": no rule allows the request (rule 0: resources do not match)
"#
    );
}

#[test]
fn missing_roles_are_shown_and_give_the_reason() {
    let review = review(user("carol", &[]), request("team-a", "get", "", "secrets", ""));
    let explanation = authorizer().explain(&review);
    assert_eq!(
        explanation.to_string(),
        r#"denied: user "carol" with groups [] to "get" resource "secrets" in namespace "team-a"
reason: RBAC: [clusterrole.rbac.authorization.k8s.io "does-not-exist" not found, role.rbac.authorization.k8s.io "gone" not found]
- ClusterRoleBinding "carol-ghost" of ClusterRole "does-not-exist" to User "carol": clusterrole.rbac.authorization.k8s.io "does-not-exist" not found
- RoleBinding "carol-ghost-role/team-a" of Role "gone" to User "carol": role.rbac.authorization.k8s.io "gone" not found
- RoleBinding "carol-pods/team-a" of ClusterRole "pod-reader" to User "carol": no rule allows the request (rule 0: resources do not match)
"#
    );
}

#[test]
fn allowed_names_the_first_allowing_binding() {
    let review = review(user("alice", &[]), request("team-a", "get", "", "pods", "p"));
    let authorizer = authorizer();
    let explanation = authorizer.explain(&review);
    assert_eq!(explanation.decision, authorizer.authorize(&review).expect("answers"));
    assert_eq!(
        explanation.to_string(),
        r#"allowed: user "alice" with groups [] to "get" resource "pods" named "p" in namespace "team-a"
reason: RBAC: allowed by RoleBinding "devs-read-pods/team-a" of ClusterRole "pod-reader" to User "alice"
- RoleBinding "alice-config/team-a" of Role "config-editor" to User "alice": no rule allows the request (rule 0: verbs do not match)
- RoleBinding "devs-read-pods/team-a" of ClusterRole "pod-reader" to User "alice": rule 0 allows the request
"#
    );
}

#[test]
fn api_group_and_cluster_scope_in_the_request_text() {
    let review =
        review(user("x", &["a b"]), request("", "update", "apps", "deployments/scale", ""));
    assert_eq!(
        authorizer().explain(&review).to_string(),
        r#"denied: user "x" with groups ["a b"] to "update" resource "deployments.apps/scale" cluster-wide
no ClusterRoleBinding or RoleBinding here names the user or its groups
"#
    );
}

#[test]
fn superuser() {
    let review = review(user("root", &["system:masters"]), request("ns", "get", "", "pods", ""));
    let explanation = authorizer().explain(&review);
    assert!(explanation.superuser);
    assert_eq!(
        explanation.to_string(),
        r#"allowed: user "root" with groups ["system:masters"] to "get" resource "pods" in namespace "ns"
the user is in group "system:masters", which is allowed everything
"#
    );
}

#[test]
fn non_resource_request() {
    let url = NonResourceAttributes { path: "/metrics".to_owned(), verb: "get".to_owned() };
    let explanation = authorizer().explain_non_resource(&user("erin", &["ops"]), &url);
    assert_eq!(
        explanation.to_string(),
        r#"denied: user "erin" with groups ["ops"] to "get" nonResourceURL "/metrics" cluster-wide
- ClusterRoleBinding "ops-nodes" of ClusterRole "node-reader" to Group "ops": no rule allows the request (rule 0: nonResourceURLs do not match)
"#
    );
}

#[test]
fn serializes_for_json_output() {
    let review = review(user("carol", &[]), request("", "get", "", "nodes", ""));
    let json = serde_json::to_value(authorizer().explain(&review)).expect("serializes");
    assert_eq!(
        json,
        serde_json::json!({
            "decision": {"allowed": false, "reason": "RBAC: clusterrole.rbac.authorization.k8s.io \"does-not-exist\" not found"},
            "superuser": false,
            "request": "user \"carol\" with groups [] to \"get\" resource \"nodes\" cluster-wide",
            "bindings": [{
                "kind": "ClusterRoleBinding",
                "namespace": "",
                "name": "carol-ghost",
                "roleKind": "ClusterRole",
                "roleName": "does-not-exist",
                "subject": "User \"carol\"",
                "outcome": {
                    "result": "roleUnresolved",
                    "error": "clusterrole.rbac.authorization.k8s.io \"does-not-exist\" not found",
                },
            }],
        })
    );
}
