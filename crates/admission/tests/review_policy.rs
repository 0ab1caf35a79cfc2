//! `/validate` of CertificateRequestPolicies: approver-policy's webhook checks (spec §8)
//! through the approval crate; DELETE always allowed.

mod common;

use certgate_admission::review::Endpoint;
use common::webhook::*;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

fn policy(spec: Value) -> Value {
    json!({
        "apiVersion": "policy.cert-manager.io/v1alpha1",
        "kind": "CertificateRequestPolicy",
        "metadata": {"name": "default", "uid": "3e0f1a2b-0000-4000-8000-000000000042"},
        "spec": spec
    })
}

fn admin() -> Value {
    json!({"username": "kubernetes-admin", "groups": ["kubeadm:cluster-admins", "system:authenticated"]})
}

#[test]
fn a_valid_policy_is_allowed_on_create_and_update() {
    let valid = policy(json!({
        "selector": {"issuerRef": {}},
        "allowed": {"dnsNames": {"validations": [{"rule": "self.endsWith('.example.com')"}]}}
    }));
    let create = review(Target::Policies, "CREATE", admin(), valid.clone(), None);
    assert_allowed(&permissive(), Endpoint::Validate, &create);
    let update = review(Target::Policies, "UPDATE", admin(), valid.clone(), Some(valid));
    let answer = answer(&permissive(), Endpoint::Validate, &update);
    assert!(answer.allowed);
    assert_eq!(
        answer.handled.resource,
        "policy.cert-manager.io/v1alpha1/certificaterequestpolicies"
    );
}

#[test]
fn every_error_is_reported_with_cel_positions() {
    let invalid = policy(json!({
        "plugins": {"example": {}},
        "selector": {},
        "allowed": {"dnsNames": {"validations": [{"rule": "self == foo"}]}},
        "constraints": {"privateKey": {"maxSize": 9000}}
    }));
    let review = review(Target::Policies, "CREATE", admin(), invalid, None);
    assert_eq!(
        forbidden(&permissive(), Endpoint::Validate, &review),
        "[spec.plugins: Unsupported value: \"example\", \
spec.selector: Required value: one of issuerRef or namespace must be defined, hint: `{}` on either matches everything, \
spec.allowed.dnsNames.validations[0]: Invalid value: \"self == foo\": ERROR: <input>:1:9: undeclared reference to 'foo' (in container '')\n \
| self == foo\n \
| ........^, \
spec.constraints.privateKey.maxSize: Invalid value: 9000: must be between 0 and 8192 inclusive]"
    );
}

/// Issue #16: the work of one review is bounded before anything is compiled.
#[test]
fn policies_over_the_rule_limits_are_denied() {
    let rules = |count: usize, len: usize| -> Vec<Value> {
        (0..count)
            .map(|i| {
                let head = format!("self != '{i}'");
                json!({"rule": format!("{head}{}", " ".repeat(len.saturating_sub(head.len())))})
            })
            .collect()
    };
    let allowed = |validations| json!({"dnsNames": {"validations": validations}});
    let too_many =
        policy(json!({"selector": {"issuerRef": {}}, "allowed": allowed(rules(129, 0))}));
    let review_many = review(Target::Policies, "CREATE", admin(), too_many, None);
    assert_eq!(
        forbidden(&permissive(), Endpoint::Validate, &review_many),
        "spec.allowed: Too many: 129: must have at most 128 validation rules in one policy; \
         split the policy"
    );
    let too_long =
        policy(json!({"selector": {"issuerRef": {}}, "allowed": allowed(rules(9, 32 * 1024))}));
    let review_long = review(Target::Policies, "CREATE", admin(), too_long, None);
    assert_eq!(
        forbidden(&permissive(), Endpoint::Validate, &review_long),
        "spec.allowed: Too long: may not be more than 262144 bytes of validation rules in one \
         policy (these total 294912); shorten the rules or split the policy"
    );
}

#[test]
fn update_validates_the_new_object() {
    let valid = policy(json!({"selector": {"namespace": {}}}));
    let invalid = policy(json!({"selector": {}, "constraints": {"minDuration": "-1h"}}));
    let review = review(Target::Policies, "UPDATE", admin(), invalid, Some(valid));
    assert_eq!(
        forbidden(&permissive(), Endpoint::Validate, &review),
        "[spec.selector: Required value: one of issuerRef or namespace must be defined, hint: `{}` on either matches everything, \
spec.constraints.minDuration: Invalid value: \"-1h0m0s\": minDuration must be a value greater or equal to 0]"
    );
}

#[test]
fn delete_is_always_allowed() {
    let invalid = policy(json!({"selector": {}}));
    let review = review(Target::Policies, "DELETE", admin(), Value::Null, Some(invalid));
    assert_allowed(&permissive(), Endpoint::Validate, &review);
}
