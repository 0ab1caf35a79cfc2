//! `RbacObjects::validate` / `RbacAuthorizer::try_new`, and what `new` does with the same
//! objects.

mod common;

use certgate_rbac::{Authorizer, InvalidObjects, ObjectError, RbacAuthorizer};
use common::{fixture, objects, request, review, user};

const INVALID: &str = r#"
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: no-namespace}
rules: [{apiGroups: ["*"], resources: ["*"], verbs: ["*"]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {}
rules: [{apiGroups: ["*"], resources: ["*"], verbs: ["*"]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: all}
rules: [{apiGroups: ["*"], resources: ["*"], verbs: ["*"]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: nowhere}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: all}
subjects: [{kind: User, name: u}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: twice, namespace: ns}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: all}
subjects: [{kind: User, name: twice}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: twice, namespace: ns}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: all}
subjects: [{kind: User, name: twice}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: sa-without-namespace}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: all}
subjects: [{kind: User, name: v}, {kind: ServiceAccount, name: default}]
"#;

#[test]
fn reports_every_problem() {
    let err = RbacAuthorizer::try_new(objects(INVALID)).expect_err("invalid objects");
    assert_eq!(
        err,
        InvalidObjects(vec![
            ObjectError::MissingNamespace { kind: "Role", name: "no-namespace".to_owned() },
            ObjectError::MissingName { kind: "ClusterRole", position: 0 },
            ObjectError::MissingNamespace { kind: "RoleBinding", name: "nowhere".to_owned() },
            ObjectError::Duplicate { kind: "RoleBinding", id: "ns/twice".to_owned() },
            ObjectError::ServiceAccountWithoutNamespace {
                binding: "sa-without-namespace".to_owned(),
                index: 1,
            },
        ])
    );
    assert_eq!(
        err.to_string(),
        "5 invalid RBAC object(s): \
         Role \"no-namespace\" has no metadata.namespace; a Role only takes effect in its own namespace, so set metadata.namespace; \
         ClusterRole at position 0 has no metadata.name; every ClusterRole needs a name; \
         RoleBinding \"nowhere\" has no metadata.namespace; a RoleBinding only takes effect in its own namespace, so set metadata.namespace; \
         RoleBinding ns/twice is given more than once; the last copy is used, remove the others; \
         ClusterRoleBinding \"sa-without-namespace\": subjects[1] is a ServiceAccount without a namespace, so it matches nobody; set subjects[1].namespace"
    );
}

#[test]
fn fixture_is_valid() {
    assert_eq!(fixture().validate(), Ok(()));
}

#[test]
fn new_builds_what_can_take_effect() {
    let authorizer = RbacAuthorizer::new(objects(INVALID));
    let decide = |name: &str, namespace: &str| {
        let review = review(user(name, &[]), request(namespace, "get", "", "pods", "p"));
        authorizer.authorize(&review).expect("answers").allowed
    };
    // A RoleBinding without a namespace applies nowhere, not even to cluster-scoped requests.
    assert!(!decide("u", "ns"));
    assert!(!decide("u", ""));
    assert!(decide("twice", "ns"));
    assert!(decide("v", ""));
    assert!(!decide("system:serviceaccount::default", ""));
}
