//! `authentication.k8s.io/v1` TokenRequest, TokenReview, SelfSubjectReview.

use certgate_kubeproto::decode;
use serde_json::{Value, json};

use crate::support::{Msg, envelope, go_object_meta, msg, time};

const AUTHN: &str = "authentication.k8s.io/v1";

fn decoded(kind: &str, object: Msg) -> Value {
    decode(&envelope(AUTHN, kind, object)).unwrap()
}

#[test]
fn kubectl_create_token_bound_to_a_pod() {
    // kubectl create token builder --audience=a --audience=b --duration=1h
    //   --bound-object-kind=Pod --bound-object-name=web-0 --bound-object-uid=1234
    let bound = msg().string(1, "Pod").string(2, "v1").string(3, "web-0").string(4, "1234");
    let object = msg()
        .message(1, go_object_meta("", ""))
        .message(2, msg().strings(1, &["a", "b"]).message(3, bound).int(4, 3600))
        .message(3, msg().string(1, "").message(2, msg()));
    assert_eq!(
        decoded("TokenRequest", object),
        json!({
            "kind": "TokenRequest",
            "apiVersion": AUTHN,
            "metadata": {"creationTimestamp": null},
            "spec": {
                "audiences": ["a", "b"],
                "expirationSeconds": 3600,
                "boundObjectRef": {"kind": "Pod", "apiVersion": "v1", "name": "web-0", "uid": "1234"},
            },
            "status": {"token": "", "expirationTimestamp": null},
        })
    );
}

#[test]
fn a_token_request_without_spec_fields_writes_nulls() {
    // TokenRequestSpec has no omitempty at all: nil audiences and pointers are null.
    assert_eq!(
        decoded("TokenRequest", msg()),
        json!({
            "kind": "TokenRequest",
            "apiVersion": AUTHN,
            "metadata": {"creationTimestamp": null},
            "spec": {"audiences": null, "expirationSeconds": null, "boundObjectRef": null},
            "status": {"token": "", "expirationTimestamp": null},
        })
    );
}

#[test]
fn a_token_request_answer_carries_its_token_and_expiry() {
    let object = msg().message(3, msg().string(1, "eyJhbGciOi").message(2, time(1_700_003_600)));
    assert_eq!(
        decoded("TokenRequest", object)["status"],
        json!({"token": "eyJhbGciOi", "expirationTimestamp": "2023-11-14T23:13:20Z"})
    );
}

#[test]
fn token_review_with_every_field() {
    let user = msg()
        .string(1, "system:serviceaccount:ci:builder")
        .string(2, "5b3e")
        .strings(3, &["system:serviceaccounts", "system:authenticated"])
        .message(
            4,
            msg()
                .string(1, "authentication.kubernetes.io/pod-name")
                .message(2, msg().strings(1, &["web-0"])),
        )
        .message(4, msg().string(1, "empty").message(2, msg()))
        .message(4, msg().string(1, "no-value"));
    let object = msg()
        .message(1, go_object_meta("", ""))
        .message(2, msg().string(1, "eyJhbGciOi").strings(2, &["https://kubernetes.default.svc"]))
        .message(
            3,
            msg()
                .bool(1, true)
                .message(2, user)
                .string(3, "")
                .strings(4, &["https://kubernetes.default.svc"]),
        );
    assert_eq!(
        decoded("TokenReview", object),
        json!({
            "kind": "TokenReview",
            "apiVersion": AUTHN,
            "metadata": {"creationTimestamp": null},
            "spec": {"token": "eyJhbGciOi", "audiences": ["https://kubernetes.default.svc"]},
            "status": {
                "authenticated": true,
                "user": {
                    "username": "system:serviceaccount:ci:builder",
                    "uid": "5b3e",
                    "groups": ["system:serviceaccounts", "system:authenticated"],
                    // Go starts each entry from an empty ExtraValue: [] rather than null.
                    "extra": {
                        "authentication.kubernetes.io/pod-name": ["web-0"],
                        "empty": [],
                        "no-value": [],
                    },
                },
                "audiences": ["https://kubernetes.default.svc"],
            },
        })
    );
}

#[test]
fn a_token_review_request_has_an_empty_status() {
    // TokenReviewStatus{} as Go marshals it: authenticated false, empty user, empty error.
    let object = msg().message(1, go_object_meta("", "")).message(2, msg().string(1, "t")).message(
        3,
        msg().bool(1, false).message(2, msg().string(1, "").string(2, "")).string(3, ""),
    );
    assert_eq!(
        decoded("TokenReview", object),
        json!({
            "kind": "TokenReview",
            "apiVersion": AUTHN,
            "metadata": {"creationTimestamp": null},
            "spec": {"token": "t"},
            "status": {"user": {}},
        })
    );
}

#[test]
fn kubectl_auth_whoami() {
    // SelfSubjectReview{} as Go marshals it.
    let object = msg()
        .message(1, go_object_meta("", ""))
        .message(2, msg().message(1, msg().string(1, "").string(2, "")));
    assert_eq!(
        decoded("SelfSubjectReview", object),
        json!({
            "kind": "SelfSubjectReview",
            "apiVersion": AUTHN,
            "metadata": {"creationTimestamp": null},
            "status": {"userInfo": {}},
        })
    );
}

#[test]
fn self_subject_review_answer() {
    let user = msg()
        .string(1, "alice")
        .strings(3, &["devs"])
        .message(4, msg().string(1, "scopes").message(2, msg().strings(1, &["a", "b"])));
    let object = msg().message(2, msg().message(1, user));
    assert_eq!(
        decoded("SelfSubjectReview", object)["status"],
        json!({"userInfo": {"username": "alice", "groups": ["devs"], "extra": {"scopes": ["a", "b"]}}})
    );
}
