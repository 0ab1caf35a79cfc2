//! The bootstrap policy, loaded into RBAC, answers as a fresh kube-apiserver does.

use certgate_access::{
    RequestAuthorizer, UserInfo, anonymous, bootstrap_policy, forbidden_status_message,
    request_attributes, self_subject_access_review,
};
use certgate_rbac::{RbacAuthorizer, RbacObjects};
use serde_json::{Value, json};

fn authorizer(extra: &[Value]) -> RbacAuthorizer {
    let mut objects = RbacObjects::default();
    for object in bootstrap_policy().iter().chain(extra) {
        // The element types come from RbacObjects' fields (k8s-openapi RBAC types).
        match object["kind"].as_str() {
            Some("ClusterRole") => objects.cluster_roles.push(decode(object)),
            Some("ClusterRoleBinding") => objects.cluster_role_bindings.push(decode(object)),
            Some("RoleBinding") => objects.role_bindings.push(decode(object)),
            other => panic!("unexpected kind {other:?}"),
        }
    }
    RbacAuthorizer::try_new(objects).expect("the bootstrap objects are valid")
}

fn decode<T: serde::de::DeserializeOwned>(object: &Value) -> T {
    serde_json::from_value(object.clone()).expect("a valid RBAC object")
}

fn role_binding(namespace: &str, role: &str, user: &str) -> Value {
    json!({
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "RoleBinding",
        "metadata": {"name": format!("{user}-{role}"), "namespace": namespace},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role},
        "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": user}],
    })
}

fn user(name: &str) -> UserInfo {
    UserInfo {
        username: name.into(),
        groups: vec!["system:authenticated".into()],
        ..UserInfo::default()
    }
}

fn may(rbac: &RbacAuthorizer, who: &UserInfo, method: &str, path: &str) -> bool {
    let attributes = request_attributes(method, path, "").expect("a valid URL");
    rbac.authorize(who, &attributes).allowed
}

#[test]
fn everyone_may_discover_and_review_themselves() {
    let rbac = authorizer(&[]);
    let alice = user("alice");
    for (method, path) in [
        ("GET", "/version"),
        ("GET", "/healthz"),
        ("GET", "/readyz"),
        ("GET", "/api"),
        ("GET", "/api/v1"),
        ("GET", "/apis/rbac.authorization.k8s.io/v1"),
        ("GET", "/openapi/v3"),
        ("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"),
        ("POST", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews"),
        ("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews"),
    ] {
        assert!(may(&rbac, &alice, method, path), "{method} {path}");
    }
    assert!(!may(&rbac, &alice, "GET", "/api/v1/namespaces"));
    assert!(!may(&rbac, &alice, "POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews"));

    let anonymous = anonymous();
    assert!(may(&rbac, &anonymous, "GET", "/version"));
    assert!(may(&rbac, &anonymous, "GET", "/livez"));
    assert!(!may(&rbac, &anonymous, "GET", "/api"));
    assert!(!may(&rbac, &anonymous, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews"));
    let attributes = request_attributes("GET", "/api", "").expect("valid");
    assert_eq!(
        forbidden_status_message(&anonymous.username, &attributes, ""),
        r#"forbidden: User "system:anonymous" cannot get path "/api""#
    );
}

#[test]
fn view_edit_and_admin_in_a_namespace() {
    let rbac = authorizer(&[
        role_binding("team", "view", "viola"),
        role_binding("team", "edit", "ed"),
        role_binding("team", "admin", "ada"),
    ]);
    let (viola, ed, ada) = (user("viola"), user("ed"), user("ada"));

    assert!(may(&rbac, &viola, "GET", "/api/v1/namespaces/team/configmaps"));
    assert!(may(&rbac, &viola, "GET", "/api/v1/namespaces/team/serviceaccounts/default"));
    assert!(may(&rbac, &viola, "GET", "/api/v1/namespaces/team/events"));
    assert!(may(&rbac, &viola, "GET", "/api/v1/namespaces/team"));
    assert!(!may(&rbac, &viola, "GET", "/api/v1/namespaces/team/secrets"));
    assert!(!may(&rbac, &viola, "GET", "/api/v1/namespaces/team/secrets/s"));
    assert!(!may(&rbac, &viola, "POST", "/api/v1/namespaces/team/configmaps"));
    assert!(!may(&rbac, &viola, "GET", "/api/v1/namespaces/other/configmaps"));
    let read_secret =
        request_attributes("GET", "/api/v1/namespaces/team/secrets/s", "").expect("valid");
    assert_eq!(
        forbidden_status_message("viola", &read_secret, ""),
        r#"secrets "s" is forbidden: User "viola" cannot get resource "secrets" in API group "" in the namespace "team""#
    );

    assert!(may(&rbac, &ed, "GET", "/api/v1/namespaces/team/secrets/s"));
    assert!(may(&rbac, &ed, "POST", "/api/v1/namespaces/team/configmaps"));
    assert!(may(&rbac, &ed, "DELETE", "/api/v1/namespaces/team/secrets"));
    assert!(may(&rbac, &ed, "POST", "/api/v1/namespaces/team/serviceaccounts/default/token"));
    assert!(may(&rbac, &ed, "GET", "/api/v1/namespaces/team/configmaps"));
    assert!(!may(&rbac, &ed, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team/roles"));
    assert!(!may(&rbac, &ed, "PUT", "/api/v1/namespaces/team/resourcequotas/q"));

    assert!(may(
        &rbac,
        &ada,
        "POST",
        "/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings"
    ));
    assert!(may(
        &rbac,
        &ada,
        "POST",
        "/apis/authorization.k8s.io/v1/namespaces/team/localsubjectaccessreviews"
    ));
    assert!(may(&rbac, &ada, "PATCH", "/api/v1/namespaces/team/secrets/s"));
    assert!(!may(&rbac, &ada, "DELETE", "/api/v1/namespaces/team"));
    assert!(!may(&rbac, &ada, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"));
}

#[test]
fn masters_may_do_anything() {
    let rbac = authorizer(&[]);
    let admin = UserInfo {
        username: "sandbox-admin".into(),
        groups: vec!["system:masters".into(), "system:authenticated".into()],
        ..UserInfo::default()
    };
    assert!(may(&rbac, &admin, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"));
    assert!(may(&rbac, &admin, "DELETE", "/api/v1/namespaces/kube-system"));
    assert!(may(&rbac, &admin, "GET", "/metrics"));
}

#[test]
fn kubectl_auth_can_i_through_rbac() {
    let rbac = authorizer(&[role_binding("team", "view", "viola")]);
    let ask = |verb: &str, resource: &str| {
        let body = json!({
            "apiVersion": "authorization.k8s.io/v1",
            "kind": "SelfSubjectAccessReview",
            "spec": {"resourceAttributes": {"namespace": "team", "verb": verb, "resource": resource}},
        });
        self_subject_access_review(&body, &user("viola"), &rbac).expect("answered")["status"]
            .clone()
    };
    assert_eq!(
        ask("list", "configmaps"),
        json!({"allowed": true, "reason": r#"RBAC: allowed by RoleBinding "viola-view/team" of ClusterRole "view" to User "viola""#})
    );
    assert_eq!(ask("get", "secrets"), json!({"allowed": false}));
}

#[test]
fn kubectl_auth_can_i_list_through_rbac() {
    let mut missing = role_binding("team", "no-such-role", "viola");
    missing["metadata"]["name"] = json!("broken");
    let rbac = authorizer(&[role_binding("team", "view", "viola"), missing]);
    let body = json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectRulesReview", "spec": {"namespace": "team"}});
    let review =
        certgate_access::self_subject_rules_review(&body, &user("viola"), &rbac).expect("answered");
    assert_eq!(review["kind"], "SelfSubjectRulesReview");
    assert_eq!(review["spec"], json!({}));
    let status = &review["status"];
    assert_eq!(status["incomplete"], json!(false));
    assert_eq!(
        status["evaluationError"],
        json!(r#"clusterrole.rbac.authorization.k8s.io "no-such-role" not found"#)
    );
    let resource_rules = status["resourceRules"].as_array().expect("list");
    assert!(resource_rules.contains(&json!({
        "verbs": ["create"],
        "apiGroups": ["authorization.k8s.io"],
        "resources": ["selfsubjectaccessreviews", "selfsubjectrulesreviews"],
    })));
    assert!(resource_rules.contains(
        &json!({"verbs": ["get", "list", "watch"], "apiGroups": [""], "resources": ["namespaces"]})
    ));
    assert!(
        !resource_rules.iter().any(|rule| rule["resources"]
            .as_array()
            .is_some_and(|r| r.contains(&json!("secrets"))))
    );
    assert!(status["nonResourceRules"].as_array().expect("list").contains(&json!({
        "verbs": ["get"],
        "nonResourceURLs": ["/healthz", "/livez", "/readyz", "/version", "/version/"],
    })));
    let status =
        certgate_access::self_subject_rules_review(&json!({"spec": {}}), &user("viola"), &rbac)
            .expect_err("needs a namespace")
            .status();
    assert_eq!((status.code, status.message.as_str()), (400, "no namespace on request"));
}
