//! `rules_for`: the rules behind a SelfSubjectRulesReview.

mod common;

use certgate_rbac::{RbacAuthorizer, UserRules};
use common::{objects, user};
use k8s_openapi::api::rbac::v1::PolicyRule;

const POLICY: &str = r#"
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: reader}
rules:
- {verbs: [get, list], apiGroups: [""], resources: [pods]}
- {verbs: [get], nonResourceURLs: [/healthz]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: writer, namespace: team}
rules:
- {verbs: [create], apiGroups: [""], resources: [configmaps], resourceNames: [cm]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: readers}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: reader}
subjects: [{kind: Group, name: devs}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: writers, namespace: team}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: writer}
subjects: [{kind: User, name: alice}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: again, namespace: team}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: reader}
subjects: [{kind: User, name: alice}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: broken, namespace: team}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: missing}
subjects: [{kind: User, name: alice}]
"#;

fn rule(
    verbs: &[&str],
    groups: &[&str],
    resources: &[&str],
    names: &[&str],
    urls: &[&str],
) -> PolicyRule {
    let list = |items: &[&str]| {
        (!items.is_empty()).then(|| items.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>())
    };
    PolicyRule {
        verbs: verbs.iter().map(|s| (*s).to_owned()).collect(),
        api_groups: list(groups),
        resources: list(resources),
        resource_names: list(names),
        non_resource_urls: list(urls),
    }
}

#[test]
fn lists_rules_in_binding_order_with_errors() {
    let authorizer = RbacAuthorizer::new(objects(POLICY));
    let alice = user("alice", &["devs"]);
    let pods = rule(&["get", "list"], &[""], &["pods"], &[], &[]);
    let healthz = rule(&["get"], &[], &[], &[], &["/healthz"]);
    let configmap = rule(&["create"], &[""], &["configmaps"], &["cm"], &[]);
    assert_eq!(
        authorizer.rules_for(&alice, "team"),
        UserRules {
            rules: vec![pods.clone(), healthz.clone(), configmap, pods.clone(), healthz.clone()],
            errors: vec![r#"clusterrole.rbac.authorization.k8s.io "missing" not found"#.to_owned()],
        }
    );
    // Other namespaces see the cluster-wide bindings only.
    assert_eq!(
        authorizer.rules_for(&alice, "other"),
        UserRules { rules: vec![pods, healthz], errors: Vec::new() }
    );
    assert_eq!(authorizer.rules_for(&user("bob", &[]), "team"), UserRules::default());
    // No shortcut for system:masters: nothing is bound to it here.
    assert_eq!(
        authorizer.rules_for(&user("root", &["system:masters"]), "team"),
        UserRules::default()
    );
}
