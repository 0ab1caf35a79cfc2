//! `/validate` of CertificateRequests: identity (§2.2, §2.3), spec and annotation
//! immutability and the condition rules (§3), with upstream's messages and aggregates.

mod common;

use certgate_admission::review::Endpoint;
use common::webhook::*;
use common::{cr, valid_spec, with_conditions};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

/// A stored CR created by `user`: its identity fields are the user's.
fn stored_by(user: &Value) -> Value {
    let mut object = cr_object(&cr(valid_spec()));
    object["spec"]["uid"] = user["uid"].clone();
    object["spec"]["username"] = user["username"].clone();
    object["spec"]["groups"] = user["groups"].clone();
    if let Some(extra) = user.get("extra") {
        object["spec"]["extra"] = extra.clone();
    }
    object
}

fn create(user: Value, object: Value) -> Value {
    review(Target::CertificateRequests, "CREATE", user, object, None)
}

fn update(target: Target, user: Value, old: &Value, new: &Value) -> Value {
    review(target, "UPDATE", user, new.clone(), Some(old.clone()))
}

fn conditions(object: &mut Value, conditions: Value) {
    object["status"] = json!({ "conditions": conditions });
}

#[test]
fn create_by_the_requester_is_allowed_for_users_and_service_accounts() {
    for user in [alice(), service_account()] {
        assert_allowed(&permissive(), Endpoint::Validate, &create(user.clone(), stored_by(&user)));
    }
}

#[test]
fn create_with_another_identity_lists_every_field_in_order() {
    let message = forbidden(
        &permissive(),
        Endpoint::Validate,
        &create(alice(), stored_by(&service_account())),
    );
    assert_eq!(
        message,
        "[spec.uid: Forbidden: uid identity must be that of the requester, \
spec.username: Forbidden: username identity must be that of the requester, \
spec.groups: Forbidden: groups identity must be that of the requester, \
spec.extra: Forbidden: extra identity must be that of the requester]"
    );
}

#[test]
fn create_compares_groups_and_extra_values_ignoring_order() {
    let user = service_account();
    let mut object = stored_by(&user);
    object["spec"]["groups"] = json!([
        "system:authenticated",
        "system:serviceaccounts:cert-manager",
        "system:serviceaccounts"
    ]);
    let mut requester = user.clone();
    requester["extra"]["scopes"] = json!(["b", "a"]);
    object["spec"]["extra"]["scopes"] = json!(["a", "b"]);
    assert_allowed(&permissive(), Endpoint::Validate, &create(requester, object));
}

#[test]
fn create_rejects_extra_with_a_missing_key_or_different_values() {
    let user = service_account();
    let mut fewer = stored_by(&user);
    fewer["spec"]["extra"]
        .as_object_mut()
        .unwrap()
        .remove("authentication.kubernetes.io/node-name");
    let mut other = stored_by(&user);
    other["spec"]["extra"]["authentication.kubernetes.io/node-name"] = json!(["node-b"]);
    for object in [fewer, other] {
        assert_eq!(
            forbidden(&permissive(), Endpoint::Validate, &create(user.clone(), object)),
            "spec.extra: Forbidden: extra identity must be that of the requester"
        );
    }
    // Unset groups equal a requester without groups.
    let mut object = stored_by(&json!({"username": "bob", "uid": ""}));
    object["spec"].as_object_mut().unwrap().remove("groups");
    assert_allowed(&permissive(), Endpoint::Validate, &create(json!({"username": "bob"}), object));
}

#[test]
fn create_runs_spec_and_condition_rules_after_identity() {
    let user = alice();
    let mut spec = valid_spec();
    spec.issuer_ref.name = String::new();
    spec.issuer_ref.group = None;
    spec.issuer_ref.kind = Some("Foo".to_owned());
    let mut object = cr_object(&with_conditions(cr(spec), &[("Approved", "False")]));
    object["spec"]["uid"] = user["uid"].clone();
    object["spec"]["groups"] = user["groups"].clone();
    object["spec"]["username"] = json!("mallory");
    assert_eq!(
        forbidden(&permissive(), Endpoint::Validate, &create(user, object)),
        "[spec.username: Forbidden: username identity must be that of the requester, \
spec.issuerRef.name: Required value: must be specified, \
spec.issuerRef.kind: Invalid value: \"Foo\": must be one of Issuer or ClusterIssuer (did you forget to set spec.issuerRef.kind.group?), \
status.conditions.Approved: Invalid value: \"False\": \"Approved\" condition may only be set to True]"
    );
}

#[test]
fn update_may_not_change_identity_groups_ignore_order_extra_does_not() {
    let user = service_account();
    let old = stored_by(&user);
    let mut reordered = old.clone();
    reordered["spec"]["groups"] = json!([
        "system:authenticated",
        "system:serviceaccounts",
        "system:serviceaccounts:cert-manager"
    ]);
    // Reordered groups are the same identity, but still a different spec.
    assert_eq!(
        forbidden(
            &permissive(),
            Endpoint::Validate,
            &update(Target::CertificateRequests, alice(), &old, &reordered),
        ),
        "spec: Forbidden: cannot change spec after creation"
    );

    let mut changed = old.clone();
    changed["spec"]["uid"] = json!("other");
    changed["spec"]["username"] = json!("alice");
    changed["spec"]["groups"] = json!(["system:authenticated"]);
    changed["spec"]["extra"]["authentication.kubernetes.io/pod-name"] = json!(["other-pod"]);
    let message = forbidden(
        &permissive(),
        Endpoint::Validate,
        &update(Target::CertificateRequests, alice(), &old, &changed),
    );
    assert_eq!(
        message,
        "[spec.uid: Forbidden: uid identity cannot be changed once set, \
spec.username: Forbidden: username identity cannot be changed once set, \
spec.groups: Forbidden: groups identity cannot be changed once set, \
spec.extra: Forbidden: extra identity cannot be changed once set, \
spec: Forbidden: cannot change spec after creation]"
    );

    let mut old_two = old.clone();
    old_two["spec"]["extra"]["scopes"] = json!(["a", "b"]);
    let mut new_two = old_two.clone();
    new_two["spec"]["extra"]["scopes"] = json!(["b", "a"]);
    assert_eq!(
        forbidden(
            &permissive(),
            Endpoint::Validate,
            &update(Target::CertificateRequestsStatus, alice(), &old_two, &new_two),
        ),
        "[spec.extra: Forbidden: extra identity cannot be changed once set, \
spec: Forbidden: cannot change spec after creation]"
    );
}

#[test]
fn update_may_not_change_the_spec() {
    let old = stored_by(&alice());
    let mut new = old.clone();
    new["spec"]["isCA"] = json!(true);
    assert_eq!(
        forbidden(
            &permissive(),
            Endpoint::Validate,
            &update(Target::CertificateRequests, alice(), &old, &new)
        ),
        "spec: Forbidden: cannot change spec after creation"
    );
    // Unchanged spec, other metadata changes: allowed.
    let mut labelled = old.clone();
    labelled["metadata"]["labels"] = json!({"team": "a"});
    assert_allowed(
        &permissive(),
        Endpoint::Validate,
        &update(Target::CertificateRequests, alice(), &old, &labelled),
    );
}

#[test]
fn cert_manager_annotations_are_immutable_by_prefix() {
    let mut old = stored_by(&alice());
    old["metadata"]["annotations"] = json!({
        "cert-manager.io/issuer-name": "my-issuer",
        "acme.cert-manager.io/order": "o-1",
        "example.com/free": "x"
    });
    let mut new = old.clone();
    new["metadata"]["annotations"] = json!({
        "cert-manager.io/issuer-name": "other",
        "cert-manager.iox": "added",
        "example.com/free": "changed"
    });
    assert_eq!(
        forbidden(
            &permissive(),
            Endpoint::Validate,
            &update(Target::CertificateRequests, alice(), &old, &new)
        ),
        "[metadata.annotations.acme.cert-manager.io/order: Forbidden: cannot change cert-manager annotation after creation, \
metadata.annotations.cert-manager.io/issuer-name: Forbidden: cannot change cert-manager annotation after creation, \
metadata.annotations.cert-manager.iox: Forbidden: cannot change cert-manager annotation after creation]"
    );
}

fn approved(time: &str) -> Value {
    json!({
        "type": "Approved",
        "status": "True",
        "reason": "policy.cert-manager.io",
        "message": "Approved by CertificateRequestPolicy: \"default\"",
        "lastTransitionTime": time
    })
}

#[test]
fn set_conditions_may_not_be_modified_or_removed() {
    let mut old = stored_by(&alice());
    conditions(&mut old, json!([approved("2026-11-20T10:00:01Z")]));

    let mut retimed = old.clone();
    conditions(&mut retimed, json!([approved("2026-11-20T10:05:00Z")]));
    let mut removed = old.clone();
    conditions(&mut removed, json!([{"type": "Ready", "status": "False"}]));
    for new in [retimed, removed] {
        assert_eq!(
            forbidden(
                &permissive(),
                Endpoint::Validate,
                &update(Target::CertificateRequestsStatus, alice(), &old, &new)
            ),
            "status.conditions: Forbidden: 'Approved' condition may not be modified once set"
        );
    }

    // Other conditions may change alongside an unchanged Approved.
    let mut ready = old.clone();
    conditions(
        &mut ready,
        json!([approved("2026-11-20T10:00:01Z"), {"type": "Ready", "status": "True"}]),
    );
    assert_allowed(
        &permissive(),
        Endpoint::Validate,
        &update(Target::CertificateRequestsStatus, alice(), &old, &ready),
    );
}

#[test]
fn update_runs_the_create_condition_rules_on_the_new_object() {
    let mut old = stored_by(&alice());
    conditions(&mut old, json!([{"type": "Denied", "status": "True"}]));
    let mut new = old.clone();
    conditions(
        &mut new,
        json!([{"type": "Denied", "status": "True"}, {"type": "Approved", "status": "False"}]),
    );
    assert_eq!(
        forbidden(
            &permissive(),
            Endpoint::Validate,
            &update(Target::CertificateRequestsStatus, alice(), &old, &new)
        ),
        "[status.conditions.Approved: Invalid value: \"False\": \"Approved\" condition may only be set to True, \
status.conditions: Forbidden: both 'Denied' and 'Approved' conditions cannot coexist]"
    );
}

#[test]
fn deleting_a_certificate_request_is_allowed() {
    let old = stored_by(&alice());
    let review = review(Target::CertificateRequests, "DELETE", alice(), Value::Null, Some(old));
    assert_allowed(&permissive(), Endpoint::Validate, &review);
}
