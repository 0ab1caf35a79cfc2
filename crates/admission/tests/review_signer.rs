//! The signer permission check on status updates that add `Approved` or `Denied`
//! (cert-manager-requests spec §4), against fake SubjectAccessReview and discovery.

mod common;

use std::sync::Arc;

use certgate_admission::review::{Admission, Endpoint};
use certgate_cel::PolicyCel;
use certgate_rbac::ResourceAttributes;
use certgate_rbac::{NO_CLUSTER, NoCluster};
use common::webhook::*;
use common::{cr, valid_spec};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

/// A stored CR created by alice for `issuer_ref`, and the same CR with `added` conditions.
fn approval(issuer_ref: Value, added: Value) -> (Value, Value) {
    let user = alice();
    let mut old = cr_object(&cr(valid_spec()));
    for field in ["uid", "username", "groups"] {
        old["spec"][field] = user[field].clone();
    }
    old["spec"]["issuerRef"] = issuer_ref;
    let mut new = old.clone();
    new["status"] = json!({ "conditions": added });
    (old, new)
}

fn approved() -> Value {
    json!([{
        "type": "Approved",
        "status": "True",
        "reason": "KubectlCertManager",
        "message": "manually approved by \"cmctl\"",
        "lastTransitionTime": "2026-11-20T10:00:01Z"
    }])
}

fn status_update(user: Value, old: &Value, new: &Value) -> Value {
    review(Target::CertificateRequestsStatus, "UPDATE", user, new.clone(), Some(old.clone()))
}

fn approver() -> Value {
    json!({
        "username": "system:serviceaccount:cert-manager:policy-approver",
        "uid": "1d2c3b4a-0000-4000-8000-00000000abcd",
        "groups": ["system:serviceaccounts", "system:serviceaccounts:cert-manager", "system:authenticated"],
        "extra": {"authentication.kubernetes.io/pod-name": ["approver-0"]}
    })
}

#[test]
fn the_review_carries_the_requester_and_asks_approve_on_signers() {
    let access = FakeAccess::allowing(&["issuers.cert-manager.io/*"]);
    let admission = admission_with(access.clone(), FakeKinds::cert_manager());
    let (old, new) = approval(json!({"name": "my-issuer"}), approved());
    assert_allowed(&admission, Endpoint::Validate, &status_update(approver(), &old, &new));

    let asked = access.asked();
    assert_eq!(asked.len(), 1, "the wildcard allowed, the specific name is not asked");
    let review = &asked[0];
    assert_eq!(review.user.username, "system:serviceaccount:cert-manager:policy-approver");
    assert_eq!(review.user.uid, "1d2c3b4a-0000-4000-8000-00000000abcd");
    assert_eq!(review.user.groups.len(), 3);
    assert_eq!(review.user.extra["authentication.kubernetes.io/pod-name"], vec!["approver-0"]);
    assert_eq!(
        review.resource,
        ResourceAttributes {
            namespace: String::new(),
            verb: "approve".to_owned(),
            group: "cert-manager.io".to_owned(),
            version: "*".to_owned(),
            resource: "signers".to_owned(),
            subresource: String::new(),
            name: "issuers.cert-manager.io/*".to_owned(),
        }
    );
}

#[test]
fn namespaced_issuers_are_named_with_the_namespace() {
    let access = FakeAccess::allowing(&["issuers.cert-manager.io/my-ns.my-issuer"]);
    let kinds = FakeKinds::cert_manager();
    let admission = admission_with(access.clone(), kinds.clone());
    let (old, new) = approval(json!({"name": "my-issuer"}), approved());
    assert_allowed(&admission, Endpoint::Validate, &status_update(alice(), &old, &new));
    assert_eq!(
        access.asked_names(),
        ["issuers.cert-manager.io/*", "issuers.cert-manager.io/my-ns.my-issuer"]
    );
    // Defaults: empty group and kind resolve as cert-manager.io Issuer.
    assert_eq!(kinds.asked(), [("cert-manager.io".to_owned(), "Issuer".to_owned())]);
}

#[test]
fn cluster_scoped_and_external_issuers_use_the_discovered_plural() {
    let access = FakeAccess::default();
    let admission = admission_with(access.clone(), FakeKinds::cert_manager());
    let issuer =
        json!({"name": "ca", "kind": "GoogleCASClusterIssuer", "group": "cas-issuer.jetstack.io"});
    let (old, new) = approval(issuer, approved());
    assert_eq!(
        forbidden(&admission, Endpoint::Validate, &status_update(alice(), &old, &new)),
        "status.conditions: Forbidden: user \"alice\" does not have permissions to set \
approved/denied conditions for issuer {ca GoogleCASClusterIssuer cas-issuer.jetstack.io}"
    );
    assert_eq!(
        access.asked_names(),
        [
            "googlecasclusterissuers.cas-issuer.jetstack.io/*",
            "googlecasclusterissuers.cas-issuer.jetstack.io/ca"
        ]
    );

    let access = FakeAccess::allowing(&["clusterissuers.cert-manager.io/ca"]);
    let second = admission_with(access.clone(), FakeKinds::cert_manager());
    let (old, new) = approval(json!({"name": "ca", "kind": "ClusterIssuer"}), approved());
    assert_allowed(&second, Endpoint::Validate, &status_update(alice(), &old, &new));
    assert_eq!(
        access.asked_names(),
        ["clusterissuers.cert-manager.io/*", "clusterissuers.cert-manager.io/ca"]
    );
}

#[test]
fn adding_denied_needs_the_same_permission() {
    let access = FakeAccess::default();
    let admission = admission_with(access.clone(), FakeKinds::cert_manager());
    let (old, new) = approval(
        json!({"name": "my-issuer", "kind": "Issuer", "group": "cert-manager.io"}),
        json!([{"type": "Denied", "status": "True", "reason": "r", "message": "m"}]),
    );
    assert_eq!(
        forbidden(&admission, Endpoint::Validate, &status_update(alice(), &old, &new)),
        "status.conditions: Forbidden: user \"alice\" does not have permissions to set \
approved/denied conditions for issuer {my-issuer Issuer cert-manager.io}"
    );
    assert_eq!(access.asked().len(), 2);
}

#[test]
fn an_unknown_kind_is_a_missing_signer_printed_as_written() {
    let access = FakeAccess::default();
    let admission = admission_with(access.clone(), FakeKinds::cert_manager());
    let (old, new) = approval(json!({"name": "x", "group": "example.io"}), approved());
    assert_eq!(
        forbidden(&admission, Endpoint::Validate, &status_update(alice(), &old, &new)),
        "spec.issuerRef: Forbidden: referenced signer resource does not exist: {x  example.io}"
    );
    assert!(access.asked().is_empty());
}

#[test]
fn a_checker_error_denies_without_trying_the_specific_name() {
    let access = FakeAccess {
        failing: Some("issuers.cert-manager.io/*".to_owned()),
        allowed: vec!["issuers.cert-manager.io/my-ns.my-issuer".to_owned()],
        ..Default::default()
    };
    let admission = admission_with(access.clone(), FakeKinds::cert_manager());
    let (old, new) = approval(json!({"name": "my-issuer"}), approved());
    assert_eq!(
        forbidden(&admission, Endpoint::Validate, &status_update(alice(), &old, &new)),
        "status.conditions: Forbidden: user \"alice\" does not have permissions to set \
approved/denied conditions for issuer {my-issuer  }"
    );
    assert_eq!(access.asked_names(), ["issuers.cert-manager.io/*"]);
}

#[test]
fn a_discovery_error_denies_with_its_text() {
    let kinds = FakeKinds {
        failing: Some("unable to retrieve the complete list of server APIs".to_owned()),
        ..FakeKinds::cert_manager()
    };
    let access = FakeAccess::allowing(&["issuers.cert-manager.io/*"]);
    let admission = admission_with(access.clone(), kinds);
    let (old, new) = approval(json!({"name": "my-issuer"}), approved());
    assert_eq!(
        forbidden(&admission, Endpoint::Validate, &status_update(alice(), &old, &new)),
        "unable to retrieve the complete list of server APIs"
    );
    assert!(access.asked().is_empty());
}

#[test]
fn no_check_unless_a_condition_is_added_on_the_status_subresource() {
    let access = FakeAccess::default();
    let admission = admission_with(access.clone(), FakeKinds::cert_manager());
    let (mut old, mut new) = approval(json!({"name": "my-issuer"}), approved());
    // Already approved: re-sending the same condition with a Ready change is no addition.
    old["status"] = new["status"].clone();
    new["status"]["conditions"]
        .as_array_mut()
        .unwrap()
        .push(json!({"type": "Ready", "status": "True", "reason": "Issued"}));
    assert_allowed(&admission, Endpoint::Validate, &status_update(alice(), &old, &new));
    // The main resource, not the status subresource: no check (the API server ignores
    // status there anyway).
    let (old, new) = approval(json!({"name": "my-issuer"}), approved());
    let main = review(Target::CertificateRequests, "UPDATE", alice(), new, Some(old));
    assert_allowed(&admission, Endpoint::Validate, &main);
    assert!(access.asked().is_empty());
}

#[test]
fn signer_errors_join_the_other_rules_in_plugin_order() {
    let access = FakeAccess::default();
    let admission = admission_with(access, FakeKinds::cert_manager());
    let (old, mut new) = approval(json!({"name": "my-issuer"}), approved());
    new["spec"]["username"] = json!("mallory");
    new["status"]["conditions"]
        .as_array_mut()
        .unwrap()
        .push(json!({"type": "Denied", "status": "True"}));
    assert_eq!(
        forbidden(&admission, Endpoint::Validate, &status_update(alice(), &old, &new)),
        "[spec.username: Forbidden: username identity cannot be changed once set, \
status.conditions: Forbidden: user \"alice\" does not have permissions to set approved/denied conditions for issuer {my-issuer  }, \
status.conditions: Forbidden: both 'Denied' and 'Approved' conditions cannot coexist, \
spec: Forbidden: cannot change spec after creation]"
    );
}

#[test]
fn without_a_cluster_approval_is_denied_and_other_updates_pass() {
    let admission = Admission::new(Arc::new(PolicyCel::default()), NoCluster, NoCluster);
    let decide = |review: &Value| {
        let handled =
            block_on(admission.handle(Endpoint::Validate, &serde_json::to_vec(review).unwrap()))
                .unwrap();
        let answer: Value = serde_json::from_slice(&handled.body).unwrap();
        (handled.allowed, answer["response"]["status"]["message"].as_str().map(str::to_owned))
    };
    let (old, new) = approval(json!({"name": "my-issuer"}), approved());
    assert_eq!(decide(&status_update(alice(), &old, &new)), (false, Some(NO_CLUSTER.to_owned())));
    assert_eq!(NO_CLUSTER, "no cluster connection configured: certgate cannot ask the API server");
    // A status update that adds no approval needs no cluster.
    assert_eq!(decide(&status_update(alice(), &old, &old)), (true, None));
}
