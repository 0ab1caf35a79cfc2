//! ClusterRole aggregation as the aggregation controller leaves it.

mod common;

use certgate_rbac::{Authorizer, BindingOutcome, InvalidObjects, ObjectError, RbacAuthorizer};
use common::{objects, request, review, user};

/// The fixture plus a ClusterRoleBinding `<role>-user` → ClusterRole `<role>` for User
/// `<role>-user`, for every role.
fn authorizer() -> RbacAuthorizer {
    let mut objects = objects(include_str!("fixtures/aggregation.yaml"));
    let names: Vec<String> =
        objects.cluster_roles.iter().filter_map(|r| r.metadata.name.clone()).collect();
    for name in names {
        let binding = serde_json::json!({
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRoleBinding",
            "metadata": {"name": format!("{name}-user")},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name},
            "subjects": [{"kind": "User", "name": format!("{name}-user")}],
        });
        objects.cluster_role_bindings.push(serde_json::from_value(binding).expect("binding"));
    }
    RbacAuthorizer::try_new(objects).expect("fixture is valid")
}

#[test]
fn aggregated_grants() {
    let authorizer = authorizer();
    #[rustfmt::skip]
    let cases = [
        ("admin", "delete", "example.com", "widgets", true),
        ("admin", "update", "example.com", "widgets", true),
        ("admin", "get", "example.com", "widgets", true),
        ("edit", "update", "example.com", "widgets", true),
        ("edit", "get", "example.com", "widgets", true),
        ("edit", "delete", "example.com", "widgets", false),
        ("view", "get", "example.com", "widgets", true),
        ("view", "update", "example.com", "widgets", false),
        ("view", "get", "", "secrets", false),
        ("monitoring", "get", "metrics.k8s.io", "pods", true),
        ("monitoring", "get", "metrics.k8s.io", "nodes", true),
        ("monitoring", "list", "metrics.k8s.io", "pods", false),
        ("monitoring", "watch", "metrics.k8s.io", "pods", false),
        ("cycle-a", "list", "", "services", true),
        ("cycle-b", "list", "", "services", true),
        ("cycle-a", "get", "", "services", false),
        ("selfish", "get", "", "configmaps", false),
        ("everything", "delete", "example.com", "widgets", true),
        ("everything", "watch", "metrics.k8s.io", "pods", true),
        ("everything", "get", "", "secrets", false),
        ("nothing", "get", "example.com", "widgets", false),
        ("widgets-view", "update", "example.com", "widgets", false),
    ];
    for (role, verb, group, resource, allowed) in cases {
        let review =
            review(user(&format!("{role}-user"), &[]), request("ns", verb, group, resource, "w"));
        let decision = authorizer.authorize(&review).expect("RBAC always answers");
        assert_eq!(decision.allowed, allowed, "{role} {verb} {group}/{resource}");
    }
}

#[test]
fn aggregated_rules_are_in_controller_order() {
    // admin's selector matches edit, then widgets-admin (name order); edit's matches view
    // (itself aggregating widgets-view), then widgets-edit.
    let authorizer = authorizer();
    let rule_for = |verb: &str| {
        let review =
            review(user("admin-user", &[]), request("ns", verb, "example.com", "widgets", "w"));
        authorizer.explain(&review).bindings.into_iter().map(|b| b.outcome).collect::<Vec<_>>()
    };
    assert_eq!(rule_for("get"), [BindingOutcome::Allowed { rule: 0 }]);
    assert_eq!(rule_for("update"), [BindingOutcome::Allowed { rule: 1 }]);
    assert_eq!(rule_for("delete"), [BindingOutcome::Allowed { rule: 2 }]);
}

#[test]
fn invalid_selectors() {
    let yaml = r#"
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: broken}
aggregationRule:
  clusterRoleSelectors:
    - matchLabels: {tier: metrics}
    - matchExpressions:
        - {key: tier, operator: In}
        - {key: env, operator: Equals, values: [dev]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: source, labels: {tier: metrics, env: dev}}
rules: [{apiGroups: [""], resources: [pods], verbs: [get]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: b}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: broken}
subjects: [{kind: User, name: u}]
"#;
    let err = RbacAuthorizer::try_new(objects(yaml)).expect_err("invalid selectors");
    assert_eq!(
        err,
        InvalidObjects(vec![
            ObjectError::InvalidSelector {
                cluster_role: "broken".to_owned(),
                field: "aggregationRule.clusterRoleSelectors[1].matchExpressions[0].values"
                    .to_owned(),
                detail: "Required value: must be specified when `operator` is 'In' or 'NotIn'"
                    .to_owned(),
            },
            ObjectError::InvalidSelector {
                cluster_role: "broken".to_owned(),
                field: "aggregationRule.clusterRoleSelectors[1].matchExpressions[1].operator"
                    .to_owned(),
                detail: "Invalid value: \"Equals\": not a valid selector operator".to_owned(),
            },
        ])
    );
    // Built anyway, the invalid selector matches nothing; the valid one still aggregates.
    let authorizer = RbacAuthorizer::new(objects(yaml));
    let get = review(user("u", &[]), request("ns", "get", "", "pods", "p"));
    assert!(authorizer.authorize(&get).expect("answers").allowed);
}
