//! Decisions and reasons over `fixtures/cluster.yaml`, one row per RBAC rule.

mod common;

use certgate_rbac::{
    AccessDecision, Authorizer, NonResourceAttributes, RbacAuthorizer, RbacObjects, UserInfo,
};
use common::{fixture, objects, request, review, user};

fn decide(
    authorizer: &RbacAuthorizer,
    user: UserInfo,
    r: certgate_rbac::ResourceAttributes,
) -> AccessDecision {
    authorizer.authorize(&review(user, r)).expect("RBAC always answers")
}

#[test]
fn fixture_table() {
    let authorizer = RbacAuthorizer::try_new(fixture()).expect("fixture is valid");
    let sa = |ns: &str, name: &str| UserInfo::service_account(ns, name, "uid");
    let bob = || user("bob", &["devs", "system:authenticated"]);
    let signer = "issuers.cert-manager.io/team-a.ca";
    #[rustfmt::skip]
    let cases: Vec<(&str, UserInfo, certgate_rbac::ResourceAttributes, bool, &str)> = vec![
        ("RoleBinding to Role", user("alice", &[]), request("team-a", "update", "", "configmaps", "cm"), true,
            r#"RBAC: allowed by RoleBinding "alice-config/team-a" of Role "config-editor" to User "alice""#),
        ("Role of another namespace", user("alice", &[]), request("team-b", "delete", "", "secrets", "s"), false, ""),
        ("RoleBinding only in its namespace", user("alice", &[]), request("team-b", "update", "", "configmaps", "cm"), false, ""),
        ("second subject named in reason", user("alice", &[]), request("team-a", "get", "", "pods", "p"), true,
            r#"RBAC: allowed by RoleBinding "devs-read-pods/team-a" of ClusterRole "pod-reader" to User "alice""#),
        ("group subject", bob(), request("team-a", "list", "", "pods", ""), true,
            r#"RBAC: allowed by RoleBinding "devs-read-pods/team-a" of ClusterRole "pod-reader" to Group "devs""#),
        ("groups are case-sensitive", user("bob", &["Devs"]), request("team-a", "list", "", "pods", ""), false, ""),
        ("RoleBinding to ClusterRole is not cluster-wide", bob(), request("", "list", "", "pods", ""), false, ""),
        ("RoleBinding to ClusterRole is not cross-namespace", bob(), request("team-b", "list", "", "pods", ""), false, ""),
        ("verb not granted", bob(), request("team-a", "delete", "", "pods", "p"), false, ""),
        ("subresource not granted by resource", bob(), request("team-a", "get", "", "pods/log", "p"), false, ""),
        ("core group only", bob(), request("team-a", "get", "apps", "pods", "p"), false, ""),
        ("SA subject defaults to binding namespace", sa("team-a", "builder"), request("team-a", "update", "apps", "deployments/scale", "d"), true,
            r#"RBAC: allowed by RoleBinding "builder-scales/team-a" of ClusterRole "scaler" to ServiceAccount "builder/team-a""#),
        ("*/sub matches any resource", sa("team-a", "builder"), request("team-a", "patch", "apps", "statefulsets/scale", "s"), true,
            r#"RBAC: allowed by RoleBinding "builder-scales/team-a" of ClusterRole "scaler" to ServiceAccount "builder/team-a""#),
        ("*/sub does not match the parent", sa("team-a", "builder"), request("team-a", "update", "apps", "deployments", "d"), false, ""),
        ("SA of another namespace", sa("team-b", "builder"), request("team-a", "update", "apps", "deployments/scale", "d"), false, ""),
        ("SA subject with explicit namespace", sa("team-b", "builder"), request("team-a", "get", "", "pods/log", "p"), true,
            r#"RBAC: allowed by RoleBinding "foreign-builder/team-a" of ClusterRole "pod-logs" to ServiceAccount "builder/team-b""#),
        ("ClusterRoleBinding SA, named resource", sa("cert-manager", "cert-manager"), request("", "approve", "cert-manager.io", "signers", signer), true,
            r#"RBAC: allowed by ClusterRoleBinding "approvers" of ClusterRole "issuer-approver" to ServiceAccount "cert-manager/cert-manager""#),
        ("resourceNames: other name", sa("cert-manager", "cert-manager"), request("", "approve", "cert-manager.io", "signers", "issuers.cert-manager.io/team-b.ca"), false, ""),
        ("resourceNames: no name", sa("cert-manager", "cert-manager"), request("", "approve", "cert-manager.io", "signers", ""), false, ""),
        ("SA matched by username alone", user("system:serviceaccount:cert-manager:cert-manager", &[]), request("", "approve", "cert-manager.io", "signers", signer), true,
            r#"RBAC: allowed by ClusterRoleBinding "approvers" of ClusterRole "issuer-approver" to ServiceAccount "cert-manager/cert-manager""#),
        ("ClusterRoleBinding applies in namespaces", user("dana", &["approvers"]), request("team-a", "approve", "cert-manager.io", "signers", "clusterissuers.cert-manager.io/root"), true,
            r#"RBAC: allowed by ClusterRoleBinding "approvers" of ClusterRole "issuer-approver" to Group "approvers""#),
        ("ClusterRoleBinding cluster-scoped", user("erin", &["ops"]), request("", "get", "", "nodes", "n1"), true,
            r#"RBAC: allowed by ClusterRoleBinding "ops-nodes" of ClusterRole "node-reader" to Group "ops""#),
        ("system:masters", user("root", &["system:masters"]), request("", "escalate", "rbac.authorization.k8s.io", "clusterroles", "x"), true, ""),
        ("missing roles do not stop other bindings", user("carol", &[]), request("team-a", "get", "", "pods", "p"), true,
            r#"RBAC: allowed by RoleBinding "carol-pods/team-a" of ClusterRole "pod-reader" to User "carol""#),
        ("missing roles are reported on denial", user("carol", &[]), request("team-a", "get", "", "secrets", "s"), false,
            r#"RBAC: [clusterrole.rbac.authorization.k8s.io "does-not-exist" not found, role.rbac.authorization.k8s.io "gone" not found]"#),
        ("only bindings in scope report", user("carol", &[]), request("", "get", "", "nodes", "n"), false,
            r#"RBAC: clusterrole.rbac.authorization.k8s.io "does-not-exist" not found"#),
        ("nobody", user("mallory", &["system:authenticated"]), request("team-a", "get", "", "pods", "p"), false, ""),
    ];
    for (name, user, request, allowed, reason) in cases {
        let decision = decide(&authorizer, user, request);
        assert_eq!(decision, AccessDecision { allowed, reason: reason.to_owned() }, "{name}");
    }
}

#[test]
fn service_account_identity() {
    let user = UserInfo::service_account("cert-manager", "approver", "1234");
    assert_eq!(user.username, "system:serviceaccount:cert-manager:approver");
    assert_eq!(user.uid, "1234");
    assert_eq!(
        user.groups,
        ["system:serviceaccounts", "system:serviceaccounts:cert-manager", "system:authenticated"]
    );
    assert!(user.extra.is_empty());
}

#[test]
fn service_account_groups_come_from_the_user_only() {
    let authorizer = RbacAuthorizer::new(objects(
        r#"
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: reader}
rules: [{apiGroups: [""], resources: [pods], verbs: [get]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: all-sas}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: reader}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: Group, name: "system:serviceaccounts:ns"}]
"#,
    ));
    let get_pod = request("ns", "get", "", "pods", "p");
    let bare = user("system:serviceaccount:ns:sa", &[]);
    assert!(!decide(&authorizer, bare, get_pod.clone()).allowed);
    let authenticated = UserInfo::service_account("ns", "sa", "");
    assert_eq!(
        decide(&authorizer, authenticated, get_pod).reason,
        r#"RBAC: allowed by ClusterRoleBinding "all-sas" of ClusterRole "reader" to Group "system:serviceaccounts:ns""#
    );
}

#[test]
fn role_reference_errors() {
    let authorizer = RbacAuthorizer::new(objects(
        r#"
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: local, namespace: ns}
rules: [{apiGroups: ["*"], resources: ["*"], verbs: ["*"]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: to-a-role}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: local}
subjects: [{kind: User, name: u}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: odd-kind}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Policy, name: local}
subjects: [{kind: User, name: u}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: to-a-role-again}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: local}
subjects: [{kind: User, name: u}]
"#,
    ));
    // A ClusterRoleBinding cannot reach a namespaced Role; repeated errors are reported once.
    assert_eq!(
        decide(&authorizer, user("u", &[]), request("ns", "get", "", "pods", "p")),
        AccessDecision {
            allowed: false,
            reason: r#"RBAC: [role.rbac.authorization.k8s.io "local" not found, unsupported role reference kind: "Policy"]"#
                .to_owned(),
        }
    );
}

#[test]
fn wildcard_role_allows_everything_in_scope() {
    let authorizer = RbacAuthorizer::new(objects(
        r#"
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: all}
rules: [{apiGroups: ["*"], resources: ["*"], verbs: ["*"]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: ns-admin, namespace: ns}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: all}
subjects: [{kind: User, name: u}]
"#,
    ));
    let allowed = decide(
        &authorizer,
        user("u", &[]),
        request("ns", "deletecollection", "apps", "deployments/status", ""),
    );
    assert_eq!(
        allowed.reason,
        r#"RBAC: allowed by RoleBinding "ns-admin/ns" of ClusterRole "all" to User "u""#
    );
    assert!(
        !decide(&authorizer, user("u", &[]), request("", "get", "", "namespaces", "ns")).allowed
    );
}

#[test]
fn non_resource_urls() {
    let authorizer = RbacAuthorizer::new(objects(
        r#"
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: health}
rules: [{nonResourceURLs: ["/healthz", "/readyz/*"], verbs: [get]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: all-resources}
rules: [{apiGroups: ["*"], resources: ["*"], verbs: ["*"]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: probes}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: health}
subjects: [{kind: Group, name: probes}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: resources-only}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: all-resources}
subjects: [{kind: User, name: admin}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: in-namespace, namespace: ns}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: health}
subjects: [{kind: User, name: local}]
"#,
    ));
    let url = |verb: &str, path: &str| NonResourceAttributes {
        verb: verb.to_owned(),
        path: path.to_owned(),
    };
    let probe = user("p", &["probes"]);
    let reason =
        r#"RBAC: allowed by ClusterRoleBinding "probes" of ClusterRole "health" to Group "probes""#;
    assert_eq!(authorizer.authorize_non_resource(&probe, &url("get", "/healthz")).reason, reason);
    assert_eq!(
        authorizer.authorize_non_resource(&probe, &url("get", "/readyz/etcd")).reason,
        reason
    );
    assert!(!authorizer.authorize_non_resource(&probe, &url("get", "/healthz/etcd")).allowed);
    assert!(!authorizer.authorize_non_resource(&probe, &url("post", "/healthz")).allowed);
    // Resource wildcards do not reach URLs, and RoleBindings never grant them.
    assert!(
        !authorizer.authorize_non_resource(&user("admin", &[]), &url("get", "/healthz")).allowed
    );
    assert!(
        !authorizer.authorize_non_resource(&user("local", &[]), &url("get", "/healthz")).allowed
    );
    let masters = user("root", &["system:masters"]);
    assert!(authorizer.authorize_non_resource(&masters, &url("delete", "/anything")).allowed);
}

#[test]
fn later_copies_replace_earlier_ones() {
    let authorizer = RbacAuthorizer::new(objects(
        r#"
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: r}
rules: [{apiGroups: [""], resources: [pods], verbs: [get]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: r}
rules: [{apiGroups: [""], resources: [secrets], verbs: [get]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: b}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: r}
subjects: [{kind: User, name: u}]
"#,
    ));
    assert!(decide(&authorizer, user("u", &[]), request("ns", "get", "", "secrets", "s")).allowed);
    assert!(!decide(&authorizer, user("u", &[]), request("ns", "get", "", "pods", "p")).allowed);
}

#[test]
fn empty_objects() {
    assert!(RbacObjects::default().is_empty());
    assert!(!fixture().is_empty());
    let authorizer = RbacAuthorizer::new(RbacObjects::default());
    let get = request("ns", "get", "", "pods", "p");
    assert_eq!(
        decide(&authorizer, user("u", &[]), get.clone()),
        AccessDecision { allowed: false, reason: String::new() }
    );
    assert!(decide(&authorizer, user("u", &["system:masters"]), get).allowed);
}

/// Thousands of bindings across many namespaces: the index must still find exactly the
/// right one (and none elsewhere).
#[test]
fn many_namespaces() {
    let mut objects = objects(
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: edit}\n\
         rules: [{apiGroups: [\"\"], resources: [configmaps], verbs: [update]}]\n",
    );
    for ns in 0..500 {
        for team in 0..6 {
            let binding = serde_json::json!({
                "apiVersion": "rbac.authorization.k8s.io/v1",
                "kind": "RoleBinding",
                "metadata": {"name": format!("team-{team}"), "namespace": format!("ns-{ns}")},
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "edit"},
                "subjects": [
                    {"kind": "Group", "name": format!("team-{team}-ns-{ns}")},
                    {"kind": "ServiceAccount", "name": format!("deployer-{team}")},
                ],
            });
            objects.role_bindings.push(serde_json::from_value(binding).expect("RoleBinding"));
        }
    }
    let authorizer = RbacAuthorizer::try_new(objects).expect("valid objects");
    let update = |ns: &str| request(ns, "update", "", "configmaps", "c");
    assert_eq!(
        decide(&authorizer, user("x", &["team-3-ns-417"]), update("ns-417")).reason,
        r#"RBAC: allowed by RoleBinding "team-3/ns-417" of ClusterRole "edit" to Group "team-3-ns-417""#
    );
    assert!(!decide(&authorizer, user("x", &["team-3-ns-417"]), update("ns-416")).allowed);
    let deployer = UserInfo::service_account("ns-9", "deployer-5", "");
    assert_eq!(
        decide(&authorizer, deployer.clone(), update("ns-9")).reason,
        r#"RBAC: allowed by RoleBinding "team-5/ns-9" of ClusterRole "edit" to ServiceAccount "deployer-5/ns-9""#
    );
    assert!(!decide(&authorizer, deployer, update("ns-10")).allowed);
}
