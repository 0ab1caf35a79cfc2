//! OCM Policies and PolicySets through `Admission::handle`: governance-policy-propagator's
//! webhook decisions and texts, answered as controller-runtime answers (403 `Forbidden`,
//! no `status`), and malformed reviews denied, never allowed.

mod common;

use certgate_admission::review::Endpoint;
use common::webhook::*;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

const NAME_TOO_LONG: &str =
    "the combined length of the policy namespace and name cannot exceed 62 characters";
const UNSET: &str =
    "RemediationAction field of the policy and policy template cannot both be unset";

#[derive(Clone, Copy)]
enum Kind {
    Policy,
    PolicySet,
}

/// An AdmissionReview for an OCM `kind` as the API server sends it.
fn ocm_review(kind: Kind, operation: &str, object: Value, old_object: Option<Value>) -> Value {
    let (version, kind_name, resource) = match kind {
        Kind::Policy => ("v1", "Policy", "policies"),
        Kind::PolicySet => ("v1beta1", "PolicySet", "policysets"),
    };
    let group = "policy.open-cluster-management.io";
    let gvk = json!({"group": group, "version": version, "kind": kind_name});
    let gvr = json!({"group": group, "version": version, "resource": resource});
    let object = if operation == "DELETE" { Value::Null } else { object };
    json!({
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "request": {
            "uid": UID,
            "kind": gvk,
            "resource": gvr,
            "requestKind": gvk,
            "requestResource": gvr,
            "name": object.pointer("/metadata/name").cloned().unwrap_or(Value::Null),
            "namespace": "policies",
            "operation": operation,
            "userInfo": alice(),
            "object": object,
            "oldObject": old_object,
            "dryRun": false
        }
    })
}

fn policy(name: &str, spec: Value) -> Value {
    json!({
        "apiVersion": "policy.open-cluster-management.io/v1",
        "kind": "Policy",
        "metadata": {"name": name, "namespace": "policies", "uid": "1f0c1d1e-0000-4000-8000-000000000001"},
        "spec": spec
    })
}

fn configuration_policy(spec: Value) -> Value {
    json!({
        "objectDefinition": {
            "apiVersion": "policy.open-cluster-management.io/v1",
            "kind": "ConfigurationPolicy",
            "metadata": {"name": "namespaces"},
            "spec": spec
        }
    })
}

fn spec(remediation_action: Option<&str>, templates: Value) -> Value {
    let mut spec = json!({"disabled": false, "policy-templates": templates});
    if let Some(action) = remediation_action {
        spec["remediationAction"] = json!(action);
    }
    spec
}

fn policy_set(policies: &[&str], exclusions: &[&str]) -> Value {
    let exclusions: Vec<Value> = exclusions
        .iter()
        .map(|name| json!({"policyName": name, "clusterNames": ["cluster-a"]}))
        .collect();
    json!({
        "apiVersion": "policy.open-cluster-management.io/v1beta1",
        "kind": "PolicySet",
        "metadata": {"name": "set", "namespace": "policies"},
        "spec": {"policies": policies, "exclusions": exclusions}
    })
}

/// The raw response of an answered review.
fn response(review: &Value) -> Value {
    let body = serde_json::to_vec(review).unwrap();
    let handled = block_on(permissive().handle(Endpoint::Validate, &body)).unwrap();
    let answer: Value = serde_json::from_slice(&handled.body).unwrap();
    assert_eq!(answer["response"]["allowed"].as_bool(), Some(handled.allowed));
    assert!(handled.reviewed, "{review}");
    answer["response"].clone()
}

/// controller-runtime's `admission.Denied(message)`, as the API server receives it.
fn denied(message: &str) -> Value {
    json!({"uid": UID, "allowed": false, "status": {"code": 403, "reason": "Forbidden", "message": message}})
}

fn allowed() -> Value {
    json!({"uid": UID, "allowed": true})
}

/// The message of a 400 denial: a review that cannot be evaluated.
fn bad_request(review: &Value) -> String {
    let response = response(review);
    assert_eq!(response["allowed"], false, "{response}");
    assert_eq!(response["status"]["code"], 400, "{response}");
    assert_eq!(response["status"]["reason"], "BadRequest", "{response}");
    response["status"]["message"].as_str().unwrap().to_owned()
}

#[test]
fn the_answers_are_shaped_as_controller_runtimes() {
    let long = policy(&"p".repeat(60), spec(Some("inform"), json!([])));
    assert_eq!(response(&ocm_review(Kind::Policy, "CREATE", long, None)), denied(NAME_TOO_LONG));
    let fine = policy("p", spec(Some("inform"), json!([])));
    assert_eq!(response(&ocm_review(Kind::Policy, "CREATE", fine, None)), allowed());
}

#[test]
fn policy_create_and_update() {
    let lacking = configuration_policy(json!({"severity": "low"}));
    let complete = configuration_policy(json!({"remediationAction": "inform"}));
    let other_kind = json!({"objectDefinition": {
        "apiVersion": "policy.open-cluster-management.io/v1",
        "kind": "CertificatePolicy",
        "metadata": {"name": "certs"}
    }});
    let name = |n: usize| "p".repeat(n);
    // (name, labels, spec, CREATE answer, UPDATE answer)
    type Case = (String, Value, Value, Option<&'static str>, Option<&'static str>);
    let cases: Vec<Case> = vec![
        // "policies" is 8 characters: 54 + 8 = 62.
        (name(54), json!(null), spec(Some("inform"), json!([lacking])), None, None),
        (name(55), json!(null), spec(Some("inform"), json!([])), Some(NAME_TOO_LONG), None),
        // Characters, not bytes: 54 two-byte characters fit.
        ("é".repeat(54), json!(null), spec(Some("enforce"), json!([])), None, None),
        // Replicas keep the remediation check only.
        (
            name(100),
            json!({"policy.open-cluster-management.io/root-policy": "policies.p"}),
            spec(None, json!([complete])),
            None,
            None,
        ),
        (
            name(100),
            json!({"policy.open-cluster-management.io/root-policy": ""}),
            spec(None, json!([lacking])),
            Some(UNSET),
            Some(UNSET),
        ),
        (
            name(100),
            json!({"policy.open-cluster-management.io/root-policy-x": "a"}),
            spec(None, json!([])),
            Some(NAME_TOO_LONG),
            None,
        ),
        // The name check comes first.
        (name(63), json!(null), spec(None, json!([lacking])), Some(NAME_TOO_LONG), Some(UNSET)),
        (name(5), json!(null), spec(None, json!([lacking])), Some(UNSET), Some(UNSET)),
        (
            name(5),
            json!(null),
            spec(Some(""), json!([complete, lacking])),
            Some(UNSET),
            Some(UNSET),
        ),
        (name(5), json!(null), spec(None, json!([complete, other_kind])), None, None),
        (name(5), json!(null), spec(None, json!([{"objectDefinition": "text"}])), None, None),
        (name(5), json!(null), spec(None, json!([{"objectDefinition": null}, {}])), None, None),
        (name(5), json!(null), spec(None, json!(null)), None, None),
    ];
    for (name, labels, spec, create, update) in cases {
        let mut object = policy(&name, spec);
        if !labels.is_null() {
            object["metadata"]["labels"] = labels;
        }
        let expect = |answer: Option<&str>| answer.map_or_else(allowed, denied);
        let at = format!("{object}");
        let review = ocm_review(Kind::Policy, "CREATE", object.clone(), None);
        assert_eq!(response(&review), expect(create), "CREATE {at}");
        let review = ocm_review(Kind::Policy, "UPDATE", object.clone(), Some(object));
        assert_eq!(response(&review), expect(update), "UPDATE {at}");
    }
}

#[test]
fn policy_sets_name_each_excluded_policy_once_and_only_listed_ones() {
    let cases: Vec<(&[&str], &[&str], Option<&str>)> = vec![
        (&["a", "b"], &[], None),
        (&["a", "b"], &["a"], None),
        (&["a"], &["a", "a"], Some("policy in spec.exclusions has a duplicate entry: a")),
        (&["a"], &["z"], Some("policy in spec.exclusions is not listed in spec.policies: z")),
        (
            &["a", "b"],
            &["b", "y", "b", "x", "y"],
            Some(
                "policy in spec.exclusions has a duplicate entry: b, y\n\
                 policy in spec.exclusions is not listed in spec.policies: y, x",
            ),
        ),
    ];
    for (policies, exclusions, expected) in cases {
        let object = policy_set(policies, exclusions);
        let expect = expected.map_or_else(allowed, denied);
        let review = ocm_review(Kind::PolicySet, "CREATE", object.clone(), None);
        assert_eq!(response(&review), expect, "CREATE {object}");
        let review = ocm_review(Kind::PolicySet, "UPDATE", object.clone(), Some(object.clone()));
        assert_eq!(response(&review), expect, "UPDATE {object}");
    }
    // Absent or null exclusions and names read as Go's zero values.
    let mut object = policy_set(&["a"], &[]);
    object["spec"]["exclusions"] = json!([null, {"clusterNames": ["c"]}]);
    assert_eq!(
        response(&ocm_review(Kind::PolicySet, "CREATE", object, None)),
        denied(
            "policy in spec.exclusions has a duplicate entry: \n\
             policy in spec.exclusions is not listed in spec.policies: "
        )
    );
}

#[test]
fn delete_is_allowed_and_status_is_not_reviewed() {
    let object = policy(&"p".repeat(100), spec(None, json!([configuration_policy(json!({}))])));
    for kind in [Kind::Policy, Kind::PolicySet] {
        let review = ocm_review(kind, "DELETE", Value::Null, Some(object.clone()));
        assert_eq!(response(&review), allowed());
    }
    let mut status = ocm_review(Kind::Policy, "UPDATE", object.clone(), Some(object.clone()));
    status["request"]["subResource"] = json!("status");
    let body = serde_json::to_vec(&status).unwrap();
    let handled = block_on(permissive().handle(Endpoint::Validate, &body)).unwrap();
    assert!(handled.allowed && !handled.reviewed);
    // Nothing is mutated.
    let review = ocm_review(Kind::Policy, "CREATE", object, None);
    let body = serde_json::to_vec(&review).unwrap();
    let handled = block_on(permissive().handle(Endpoint::Mutate, &body)).unwrap();
    assert!(handled.allowed && !handled.reviewed);
}

#[test]
fn malformed_reviews_are_denied_with_400() {
    let fine = policy("p", spec(Some("inform"), json!([])));
    let with = |path: &str, value: Value| {
        let mut object = fine.clone();
        let field = path.split('/').skip(1).fold(&mut object, |at, key| &mut at[key]);
        *field = value;
        ocm_review(Kind::Policy, "CREATE", object, None)
    };
    let prefix = "request.object is not a valid policy.open-cluster-management.io/v1 Policy: ";
    let cases: Vec<(Value, String)> = vec![
        (
            ocm_review(Kind::Policy, "CREATE", Value::Null, None),
            "request.object is missing; it must hold the Policy being admitted".to_owned(),
        ),
        (
            ocm_review(Kind::Policy, "UPDATE", fine.clone(), None),
            "request.oldObject is missing; it must hold the Policy being admitted".to_owned(),
        ),
        (
            ocm_review(Kind::Policy, "CREATE", json!(["Policy"]), None),
            "request.object has apiVersion \"\" and kind \"\", expected \
             \"policy.open-cluster-management.io/v1\" and \"Policy\""
                .to_owned(),
        ),
        (
            ocm_review(Kind::Policy, "CREATE", policy_set(&["a"], &[]), None),
            "request.object has apiVersion \"policy.open-cluster-management.io/v1beta1\" and kind \
             \"PolicySet\", expected \"policy.open-cluster-management.io/v1\" and \"Policy\""
                .to_owned(),
        ),
        (
            with("/spec/remediationAction", json!(1)),
            format!("{prefix}invalid type: integer `1`, expected a string"),
        ),
        (
            with("/spec/policy-templates", json!({})),
            format!("{prefix}invalid type: map, expected a sequence"),
        ),
        (
            with("/spec", json!(["inform", []])),
            format!("{prefix}invalid type: sequence, expected a JSON object"),
        ),
        (
            with("/metadata/labels", json!({"a": 1})),
            format!("{prefix}invalid type: integer `1`, expected a string"),
        ),
        (
            with("/spec", json!({"policy-templates": [null]})),
            format!("{prefix}spec.policy-templates[0] is null"),
        ),
    ];
    for (review, expected) in cases {
        // serde's position in the object's text is left out.
        let message = bad_request(&review);
        let message = message.split(" at line 1 column ").next().unwrap();
        assert_eq!(message, expected, "{review}");
    }
    // An unknown version of a handled resource is refused as certgate refuses the others.
    let mut review = ocm_review(Kind::Policy, "CREATE", fine, None);
    review["request"]["resource"]["version"] = json!("v1beta1");
    assert!(
        bad_request(&review).starts_with(
            "certgate does not admit CREATE of policy.open-cluster-management.io/v1beta1/policies on /validate"
        )
    );
}
