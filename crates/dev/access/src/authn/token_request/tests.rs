use std::collections::HashMap;

use chrono::TimeZone;
use serde_json::json;

use super::*;
use crate::authn::{Authenticator, ServiceAccounts, StaticUsers};

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2025, 1, 2, 3, 4, 5).single().expect("valid time")
}

fn signer() -> TokenSigner {
    TokenSigner::generate().expect("key")
}

#[derive(Default)]
struct Objects {
    accounts: HashMap<(String, String), String>,
    secrets: HashMap<(String, String), String>,
}

impl ServiceAccounts for Objects {
    fn service_account_uid(&self, namespace: &str, name: &str) -> Option<String> {
        self.accounts.get(&(namespace.to_owned(), name.to_owned())).cloned()
    }
    fn secret_uid(&self, namespace: &str, name: &str) -> Option<String> {
        self.secrets.get(&(namespace.to_owned(), name.to_owned())).cloned()
    }
}

fn request(signer: &TokenSigner, body: Value) -> Result<Value, TokenRequestError> {
    token_request(signer, &body, "ns", "builder", "uid-1", None, now())
}

#[test]
fn defaults_like_kube_apiserver() {
    let signer = signer();
    let response =
        request(&signer, json!({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest"}))
            .expect("issued");
    let token = response["status"]["token"].as_str().expect("token").to_owned();
    let mut without_token = response.clone();
    without_token["status"]["token"] = json!("<token>");
    assert_eq!(
        without_token,
        json!({
            "kind": "TokenRequest",
            "apiVersion": "authentication.k8s.io/v1",
            "metadata": {"name": "builder", "namespace": "ns", "creationTimestamp": "2025-01-02T03:04:05Z"},
            "spec": {
                "audiences": ["https://kubernetes.default.svc.cluster.local"],
                "expirationSeconds": 3600,
                "boundObjectRef": null,
            },
            "status": {"token": "<token>", "expirationTimestamp": "2025-01-02T04:04:05Z"},
        })
    );
    // The token is a working credential for the ServiceAccount.
    let authenticator =
        Authenticator::new("admin", StaticUsers::empty(), signer).expect("authenticator");
    let mut objects = Objects::default();
    objects.accounts.insert(("ns".into(), "builder".into()), "uid-1".into());
    let header = format!("Bearer {token}");
    let user = authenticator.authenticate(Some(header.as_bytes()), now(), &objects).expect("valid");
    assert_eq!(user.username, "system:serviceaccount:ns:builder");
    assert_eq!(user.uid, "uid-1");
    let credential = &user.extra[crate::authn::CREDENTIAL_ID_KEY][0];
    assert!(credential.starts_with("JTI="), "{credential}");
    let jti = credential.trim_start_matches("JTI=");
    assert_eq!(jti.len(), 36);
    assert_eq!(&jti[14..15], "4", "version 4 UUID: {jti}");
}

#[test]
fn expiration_bounds_have_kubernetes_messages() {
    let signer = signer();
    #[rustfmt::skip]
    let cases: &[(i64, &str)] = &[
        (599, r#"TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes"#),
        (0, r#"TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 0: may not specify a duration less than 10 minutes"#),
        (-5, r#"TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: -5: may not specify a duration less than 10 minutes"#),
        ((1 << 32) + 1, r#"TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 4294967297: may not specify a duration larger than 2^32 seconds"#),
    ];
    for (seconds, message) in cases {
        let error = request(&signer, json!({"spec": {"expirationSeconds": seconds}})).unwrap_err();
        assert_eq!(error.to_string(), *message);
        let status = error.status();
        assert_eq!((status.code, status.reason), (422, "Invalid"));
    }
    for seconds in [600, 1_i64 << 32] {
        let response =
            request(&signer, json!({"spec": {"expirationSeconds": seconds}})).expect("in range");
        assert_eq!(response["spec"]["expirationSeconds"], json!(seconds));
    }
}

#[test]
fn body_metadata_must_match_the_url() {
    let signer = signer();
    let error = request(&signer, json!({"metadata": {"name": "other"}})).unwrap_err();
    assert_eq!(
        error.to_string(),
        r#"TokenRequest.authentication.k8s.io "builder" is invalid: metadata.name: Invalid value: "other": must match the service account name if specified"#
    );
    let error = request(&signer, json!({"metadata": {"namespace": "other"}})).unwrap_err();
    let status = error.status();
    assert_eq!((status.code, status.reason), (400, "BadRequest"));
    assert_eq!(
        status.message,
        "the namespace of the provided object does not match the namespace sent on the request"
    );
    assert!(request(&signer, json!({"metadata": {"name": "builder", "namespace": "ns"}})).is_ok());
}

#[test]
fn audiences_are_kept() {
    let signer = signer();
    let response =
        request(&signer, json!({"spec": {"audiences": ["vault", "https://example.com"]}}))
            .expect("issued");
    assert_eq!(response["spec"]["audiences"], json!(["vault", "https://example.com"]));
}

#[test]
fn binds_to_secrets_only() {
    let signer = signer();
    let body =
        json!({"spec": {"boundObjectRef": {"kind": "Secret", "apiVersion": "v1", "name": "s"}}});
    assert_eq!(bound_secret_name(&body).as_deref(), Some("s"));
    let bound =
        token_request(&signer, &body, "ns", "builder", "uid-1", Some(("s", "uid-s")), now())
            .expect("bound token");
    assert_eq!(
        bound["spec"]["boundObjectRef"],
        json!({"kind": "Secret", "apiVersion": "v1", "name": "s"})
    );

    let missing = token_request(&signer, &body, "ns", "builder", "uid-1", None, now()).unwrap_err();
    let status = missing.status();
    assert_eq!(
        (status.code, status.reason, status.message.as_str()),
        (404, "NotFound", r#"secrets "s" not found"#)
    );

    let stale = json!({"spec": {"boundObjectRef": {"kind": "Secret", "apiVersion": "v1", "name": "s", "uid": "old"}}});
    let status =
        token_request(&signer, &stale, "ns", "builder", "uid-1", Some(("s", "uid-s")), now())
            .unwrap_err()
            .status();
    assert_eq!((status.code, status.reason), (409, "Conflict"));
    assert_eq!(
        status.message,
        r#"Operation cannot be fulfilled on Secret "s": the UID in the bound object reference (old) does not match the UID in record. The object might have been deleted and then recreated"#
    );

    let pod = json!({"spec": {"boundObjectRef": {"kind": "Pod", "apiVersion": "v1", "name": "p"}}});
    assert_eq!(bound_secret_name(&pod), None);
    let error = request(&signer, pod).unwrap_err();
    assert_eq!(error.status().code, 422);
    assert_eq!(
        error.to_string(),
        r#"TokenRequest.authentication.k8s.io "builder" is invalid: spec.boundObjectRef.kind: Unsupported value: "Pod": certgate dev binds tokens to Secrets only: it serves no Pods or Nodes; supported values: "Secret""#
    );

    let config_map =
        json!({"spec": {"boundObjectRef": {"kind": "ConfigMap", "apiVersion": "v1", "name": "c"}}});
    let status = request(&signer, config_map).unwrap_err().status();
    assert_eq!(
        (status.code, status.message.as_str()),
        (400, "cannot bind token to object of type /v1, Kind=ConfigMap")
    );
    let apps = json!({"spec": {"boundObjectRef": {"kind": "Secret", "apiVersion": "apps/v1", "name": "c"}}});
    assert_eq!(bound_secret_name(&apps), None);
    let status = request(&signer, apps).unwrap_err().status();
    assert_eq!(status.message, "cannot bind token to object of type apps/v1, Kind=Secret");
}

#[test]
fn undecodable_bodies_are_bad_requests() {
    let signer = signer();
    let status =
        request(&signer, json!({"spec": {"expirationSeconds": "1h"}})).unwrap_err().status();
    assert_eq!(status.code, 400);
    assert_eq!(
        status.message,
        r#"TokenRequest in version "v1" cannot be handled as a TokenRequest: json: cannot unmarshal string into Go struct field TokenRequestSpec.spec.expirationSeconds of type int64"#
    );
    let status = request(&signer, json!({"spec": {"audiences": "x"}})).unwrap_err().status();
    assert_eq!(
        status.message,
        r#"TokenRequest in version "v1" cannot be handled as a TokenRequest: json: cannot unmarshal string into Go struct field TokenRequestSpec.spec.audiences of type []string"#
    );
    assert_eq!(request(&signer, json!("x")).unwrap_err().status().code, 400);
}
