//! Response decoding and verification against upstream's texts.

use super::*;
use serde_json::json;

fn answer(status: u16, content_type: Option<&str>, body: &[u8]) -> HttpAnswer {
    HttpAnswer { status, content_type: content_type.map(str::to_owned), body: body.to_vec() }
}

fn json_answer(value: Value) -> HttpAnswer {
    answer(200, Some("application/json"), value.to_string().as_bytes())
}

fn v1(response: Value) -> HttpAnswer {
    json_answer(
        json!({ "apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": response }),
    )
}

fn error(answer: &HttpAnswer, mutating: bool) -> String {
    read(answer, ReviewVersion::V1, "u1", mutating).unwrap_err().to_string()
}

#[test]
fn verifies_v1_responses() {
    let ok = read(
        &v1(json!({ "uid": "u1", "allowed": true, "warnings": ["w"] })),
        ReviewVersion::V1,
        "u1",
        false,
    )
    .unwrap();
    assert!(ok.allowed);
    assert_eq!(ok.warnings, ["w"]);

    assert_eq!(
        error(
            &json_answer(json!({ "apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview" })),
            false
        ),
        "received invalid webhook response: webhook response was absent"
    );
    assert_eq!(
        error(&v1(json!({ "uid": "u2", "allowed": true })), false),
        r#"received invalid webhook response: expected response.uid="u1", got "u2""#
    );
    let beta = json_answer(
        json!({ "apiVersion": "admission.k8s.io/v1beta1", "kind": "AdmissionReview", "response": { "uid": "u1" } }),
    );
    assert_eq!(
        error(&beta, false),
        "received invalid webhook response: expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got admission.k8s.io/v1beta1, Kind=AdmissionReview"
    );
}

#[test]
fn checks_patch_fields() {
    let patch = json!({ "uid": "u1", "allowed": true, "patch": "W10=", "patchType": "JSONPatch" });
    let ok = read(&v1(patch.clone()), ReviewVersion::V1, "u1", true).unwrap();
    assert_eq!((ok.patch.as_slice(), ok.patch_type.as_str()), (b"[]".as_slice(), "JSONPatch"));
    assert_eq!(
        error(&v1(patch), false),
        "received invalid webhook response: validating webhook may not return response.patch"
    );
    assert_eq!(
        error(&v1(json!({ "uid": "u1", "patchType": "JSONPatch" })), false),
        "received invalid webhook response: validating webhook may not return response.patchType"
    );
    assert_eq!(
        error(&v1(json!({ "uid": "u1", "patchType": "JSONPatch" })), true),
        "received invalid webhook response: webhook returned response.patchType but not response.patch"
    );
    assert_eq!(
        error(&v1(json!({ "uid": "u1", "patch": "W10=", "patchType": "" })), true),
        "received invalid webhook response: webhook returned invalid response.patchType of \"\""
    );
    assert_eq!(
        error(&v1(json!({ "uid": "u1", "patch": "W10*", "patchType": "JSONPatch" })), true),
        "failed to call webhook: illegal base64 data at input byte 3"
    );
}

#[test]
fn v1beta1_is_not_checked_for_uid_kind_or_patch_type() {
    let body =
        json_answer(json!({ "response": { "uid": "other", "allowed": false, "patch": "W10=" } }));
    let mutating = read(&body, ReviewVersion::V1beta1, "u1", true).unwrap();
    assert_eq!((mutating.patch_type.as_str(), mutating.patch.len()), ("JSONPatch", 2));
    let validating = read(&body, ReviewVersion::V1beta1, "u1", false).unwrap();
    assert!(validating.patch.is_empty(), "a validating webhook's v1beta1 patch is ignored");
}

#[test]
fn reads_denial_statuses() {
    let denied = read(
        &v1(json!({ "uid": "u1", "allowed": false, "status": { "message": "m", "reason": "r", "code": 409, "details": null } })),
        ReviewVersion::V1,
        "u1",
        false,
    )
    .unwrap();
    assert_eq!(
        denied.status,
        Some(WebhookStatus { message: "m".into(), reason: "r".into(), code: 409, details: None })
    );
}

#[test]
fn reports_unusable_bodies_as_client_go_does() {
    let cases: Vec<(HttpAnswer, &str)> = vec![
        (answer(200, None, b""), "failed to call webhook: 0-length response with status code: 200 and content type: application/json"),
        (answer(200, Some("text/html; charset=utf-8"), b"<p>"), "failed to call webhook: serializer for text/html; charset=utf-8 doesn't exist"),
        (answer(200, Some("application/json"), b"[1]"), "failed to call webhook: couldn't get version/kind; json parse error: expected a JSON object, got an array"),
        (answer(503, Some("text/plain"), b"down"), "failed to call webhook: the server is currently unable to handle the request"),
        (answer(502, None, b"bad gateway"), "failed to call webhook: an error on the server (\"bad gateway\") has prevented the request from succeeding"),
        (answer(500, Some("application/octet-stream"), b"\x00"), "failed to call webhook: an error on the server (\"unknown\") has prevented the request from succeeding"),
        (answer(403, Some("text/plain"), b"go away"), "failed to call webhook: go away"),
        (answer(302, Some("text/plain"), b""), "failed to call webhook: the server responded with the status code 302 but did not return more information"),
        (
            answer(401, Some("application/json"), br#"{"kind":"Status","apiVersion":"v1","status":"Failure","message":"token expired"}"#),
            "failed to call webhook: token expired",
        ),
        (
            answer(200, Some("application/json"), br#"{"kind":"Status","apiVersion":"v1","status":"Failure","message":"nope"}"#),
            "failed to call webhook: nope",
        ),
        (
            answer(200, Some("application/json"), br#"{"kind":"AdmissionReview","response":{"uid":7}}"#),
            "failed to call webhook: invalid type: integer `7`, expected a string",
        ),
    ];
    for (answer, expected) in cases {
        assert_eq!(error(&answer, false), expected, "{answer:?}");
    }
    let syntax = error(&answer(200, Some("application/json"), b"{"), false);
    assert!(
        syntax.starts_with("failed to call webhook: couldn't get version/kind; json parse error: "),
        "{syntax}"
    );
}

#[test]
fn quotes_at_most_2048_bytes_of_an_error_body() {
    let long = "é".repeat(2000);
    let message = error(&answer(500, Some("text/plain"), long.as_bytes()), false);
    assert_eq!(message.matches('é').count(), 1024);
}
