//! Anything that cannot be evaluated is rejected or denied, never allowed.

mod common;

use certgate_admission::review::{Endpoint, MAX_BODY_BYTES, RESOURCE_UNSET, Rejection};
use common::webhook::*;
use common::{cr, valid_spec};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

fn create_review() -> Value {
    review(Target::CertificateRequests, "CREATE", alice(), cr_object(&cr(valid_spec())), None)
}

fn rejection(body: &[u8]) -> Rejection {
    send(&permissive(), Endpoint::Validate, body).unwrap_err()
}

/// A denial for a review that could not be evaluated: 400 BadRequest.
fn bad_request(endpoint: Endpoint, review: &Value) -> String {
    let answer = answer(&permissive(), endpoint, review);
    assert!(!answer.allowed);
    assert_eq!(answer.code, Some(400));
    assert_eq!(answer.reason.as_deref(), Some("BadRequest"));
    answer.message.unwrap_or_default()
}

#[test]
fn the_handle_future_is_send() {
    fn assert_send<T: Send>(_: &T) {}
    let admission = permissive();
    assert_send(&admission.handle(Endpoint::Validate, b"{}"));
}

#[test]
fn an_oversize_body_is_rejected_with_413() {
    let mut body = serde_json::to_vec(&create_review()).unwrap();
    body.resize(MAX_BODY_BYTES + 1, b' ');
    let rejected = rejection(&body);
    assert_eq!(rejected.status, 413);
    assert_eq!(
        rejected.message,
        format!(
            "the AdmissionReview is {} bytes, more than the 3145728 accepted",
            MAX_BODY_BYTES + 1
        )
    );
    // Whitespace up to the limit is still read.
    body.truncate(MAX_BODY_BYTES);
    assert!(send(&permissive(), Endpoint::Validate, &body).is_ok());
}

#[test]
fn bodies_that_name_no_request_are_rejected_with_400() {
    let cases: [(&[u8], &str); 9] = [
        (b"", "the body is not an AdmissionReview: expected a JSON object"),
        (
            b"{\"apiVersion\":\"\xff\"}",
            "the body is not JSON: it is not UTF-8 text (invalid utf-8 sequence of 1 bytes from index 15)",
        ),
        (b"[\"admission.k8s.io/v1\", \"AdmissionReview\"]", "the body is not an AdmissionReview: expected a JSON object"),
        (b" {\"apiVersion\":", "the body is not JSON: EOF while parsing a value at line 1 column 15"),
        (
            br#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":7}}"#,
            "the AdmissionReview request has no uid to answer to",
        ),
        (
            br#"{"apiVersion":1}"#,
            "expected apiVersion \"admission.k8s.io/v1\" and kind \"AdmissionReview\", got \"\" and \"\"; register the webhook with admissionReviewVersions [\"v1\"]",
        ),
        (
            br#"{"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","request":{"uid":"u"}}"#,
            "expected apiVersion \"admission.k8s.io/v1\" and kind \"AdmissionReview\", got \"admission.k8s.io/v1beta1\" and \"AdmissionReview\"; register the webhook with admissionReviewVersions [\"v1\"]",
        ),
        (
            br#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}"#,
            "the AdmissionReview has no request; the API server always sends one",
        ),
        (
            br#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"operation":"CREATE"}}"#,
            "the AdmissionReview request has no uid to answer to",
        ),
    ];
    for (body, message) in cases {
        assert_eq!(rejection(body), Rejection { status: 400, message: message.to_owned() });
    }
}

#[test]
fn a_mistyped_review_with_a_uid_is_denied() {
    let mut review = create_review();
    review["request"]["userInfo"]["groups"] = json!("system:masters");
    let message = bad_request(Endpoint::Mutate, &review);
    assert!(
        message.starts_with("the AdmissionReview request is malformed: invalid type: string \"system:masters\", expected a sequence"),
        "{message}"
    );
}

#[test]
fn a_request_without_resource_is_denied_with_upstreams_message() {
    for endpoint in [Endpoint::Mutate, Endpoint::Validate] {
        let mut review = create_review();
        review["request"].as_object_mut().unwrap().remove("resource");
        assert_eq!(forbidden(&permissive(), endpoint, &review), RESOURCE_UNSET);
        review["request"]["resource"] = json!({"group": "", "version": "", "resource": ""});
        assert_eq!(forbidden(&permissive(), endpoint, &review), RESOURCE_UNSET);
    }
    assert_eq!(RESOURCE_UNSET, "internal error: admission request Resource field is unset");
}

#[test]
fn an_object_of_the_wrong_kind_is_denied() {
    for endpoint in [Endpoint::Mutate, Endpoint::Validate] {
        let mut review = create_review();
        review["request"]["object"]["kind"] = json!("Certificate");
        assert_eq!(
            bad_request(endpoint, &review),
            "request.object has apiVersion \"cert-manager.io/v1\" and kind \"Certificate\", \
expected \"cert-manager.io/v1\" and \"CertificateRequest\""
        );
    }
    let mut review =
        review(Target::Policies, "CREATE", alice(), cr_object(&cr(valid_spec())), None);
    assert_eq!(
        bad_request(Endpoint::Validate, &review),
        "request.object has apiVersion \"cert-manager.io/v1\" and kind \"CertificateRequest\", \
expected \"policy.cert-manager.io/v1alpha1\" and \"CertificateRequestPolicy\""
    );
    // Not objects, though serde would read a struct from the array by position.
    for object in [
        json!("not an object"),
        json!(["policy.cert-manager.io/v1alpha1", "CertificateRequestPolicy"]),
    ] {
        review["request"]["object"] = object;
        assert_eq!(
            bad_request(Endpoint::Validate, &review),
            "request.object has apiVersion \"\" and kind \"\", \
expected \"policy.cert-manager.io/v1alpha1\" and \"CertificateRequestPolicy\""
        );
    }
}

#[test]
fn objects_that_do_not_decode_or_are_missing_are_denied() {
    let mut sent = create_review();
    sent["request"]["object"]["spec"]["request"] = json!("not base64!");
    let message = bad_request(Endpoint::Validate, &sent);
    assert!(
        message.starts_with(
            "request.object is not a valid cert-manager.io/v1 CertificateRequest: invalid base64"
        ),
        "{message}"
    );

    for spec in [json!([]), json!("spec"), json!(1), Value::Null] {
        let mut sent = create_review();
        sent["request"]["object"]["spec"] = spec;
        assert_eq!(
            bad_request(Endpoint::Mutate, &sent),
            "request.object has no `spec` object to stamp the requester identity into"
        );
    }
    let mut sent = create_review();
    sent["request"]["object"].as_object_mut().unwrap().remove("spec");
    assert_eq!(
        bad_request(Endpoint::Mutate, &sent),
        "request.object has no `spec` object to stamp the requester identity into"
    );

    for endpoint in [Endpoint::Mutate, Endpoint::Validate] {
        let mut sent = create_review();
        sent["request"]["object"] = Value::Null;
        assert_eq!(
            bad_request(endpoint, &sent),
            match endpoint {
                Endpoint::Mutate => {
                    "request.object is missing; it must hold the CertificateRequest being created"
                }
                Endpoint::Validate => {
                    "request.object is missing; it must hold the CertificateRequest being admitted"
                }
            }
        );
    }

    let object = cr_object(&cr(valid_spec()));
    let update = review(Target::CertificateRequestsStatus, "UPDATE", alice(), object, None);
    assert_eq!(
        bad_request(Endpoint::Validate, &update),
        "request.oldObject is missing; it must hold the CertificateRequest being admitted"
    );
}

/// As cert-manager's webhook answers what none of its plugins handles (its validating
/// configuration routes every `cert-manager.io` resource to `/validate`): allowed, no patch,
/// no status, and marked unreviewed for the server's metrics and logs.
#[test]
fn resources_and_operations_without_rules_are_allowed_unreviewed_without_a_patch() {
    let object = cr_object(&cr(valid_spec()));
    let mut certificate = create_review();
    certificate["request"]["resource"]["group"] = json!("acme.cert-manager.io");
    certificate["request"]["resource"]["resource"] = json!("orders");
    let mut connect = create_review();
    connect["request"]["operation"] = json!("CONNECT");
    let update = review(
        Target::CertificateRequests,
        "UPDATE",
        alice(),
        object.clone(),
        Some(object.clone()),
    );
    let policy = review(Target::Policies, "CREATE", alice(), json!({}), None);
    for (endpoint, sent) in [
        (Endpoint::Validate, &certificate),
        (Endpoint::Mutate, &certificate),
        (Endpoint::Validate, &connect),
        (Endpoint::Mutate, &update),
        (Endpoint::Mutate, &policy),
    ] {
        let handled = answer(&permissive(), endpoint, sent).handled;
        assert!(handled.allowed && !handled.reviewed, "{endpoint:?} {sent}");
        let body: Value = serde_json::from_slice(&handled.body).unwrap();
        assert_eq!(
            body["response"],
            json!({"uid": sent["request"]["uid"], "allowed": true}),
            "{endpoint:?} {sent}"
        );
    }
    // Reviewed requests say so.
    assert!(answer(&permissive(), Endpoint::Validate, &create_review()).handled.reviewed);
}

/// The exception: a resource certgate has rules for, at a version it does not know, is
/// denied: allowing it would skip identity stamping and the approval rules.
#[test]
fn handled_resources_at_unknown_versions_are_denied() {
    let mut v1beta1 = create_review();
    v1beta1["request"]["resource"]["version"] = json!("v1beta1");
    assert_eq!(
        bad_request(Endpoint::Validate, &v1beta1),
        "certgate does not admit CREATE of cert-manager.io/v1beta1/certificaterequests on /validate: it handles \
CREATE and UPDATE of cert-manager.io/v1 certificaterequests (and their status), certificates, \
issuers and clusterissuers (and their status), CREATE, UPDATE and DELETE of policy.cert-manager.io/v1alpha1 certificaterequestpolicies, and CREATE, UPDATE and \
DELETE of policy.open-cluster-management.io/v1 policies and v1beta1 policysets; check the webhook \
configuration's rules"
    );
    assert!(bad_request(Endpoint::Mutate, &v1beta1).starts_with(
        "certgate does not admit CREATE of cert-manager.io/v1beta1/certificaterequests on /mutate"
    ));
    let mut policy = review(Target::Policies, "CREATE", alice(), json!({}), None);
    policy["request"]["resource"]["version"] = json!("v1");
    assert!(!answer(&permissive(), Endpoint::Validate, &policy).allowed);
}
