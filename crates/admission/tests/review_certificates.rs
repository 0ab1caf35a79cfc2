//! Certificates, Issuers and ClusterIssuers through `Admission::handle`: cert-manager's
//! webhook decisions and texts (403, upstream's aggregate of field errors), the status
//! subresource and DELETE left alone, other versions and malformed objects denied.

mod common;

use certgate_admission::review::Endpoint;
use common::webhook::*;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

/// An AdmissionReview for a cert-manager.io `resource` as the API server sends it.
fn kind_review(resource: &str, operation: &str, object: Value) -> Value {
    let kind = object["kind"].clone();
    let gvk = json!({"group": "cert-manager.io", "version": "v1", "kind": kind});
    let gvr = json!({"group": "cert-manager.io", "version": "v1", "resource": resource});
    let old = if operation == "UPDATE" { object.clone() } else { Value::Null };
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
            "name": "x",
            "namespace": "apps",
            "operation": operation,
            "userInfo": alice(),
            "object": object,
            "oldObject": old,
            "dryRun": false
        }
    })
}

fn certificate(spec: Value) -> Value {
    json!({
        "apiVersion": "cert-manager.io/v1",
        "kind": "Certificate",
        "metadata": {"name": "web", "namespace": "apps"},
        "spec": spec
    })
}

fn issuer(kind: &str, spec: Value) -> Value {
    json!({"apiVersion": "cert-manager.io/v1", "kind": kind, "metadata": {"name": "ca"}, "spec": spec})
}

fn valid_certificate() -> Value {
    certificate(json!({
        "secretName": "web-tls",
        "issuerRef": {"name": "ca", "kind": "ClusterIssuer"},
        "dnsNames": ["web.apps.svc"],
        "privateKey": {"algorithm": "ECDSA", "size": 256},
        "duration": "24h",
        "renewBefore": "8h"
    }))
}

#[test]
fn valid_objects_are_allowed_on_create_and_update() {
    for operation in ["CREATE", "UPDATE"] {
        let sent = [
            kind_review("certificates", operation, valid_certificate()),
            kind_review("issuers", operation, issuer("Issuer", json!({"selfSigned": {}}))),
            kind_review(
                "clusterissuers",
                operation,
                issuer("ClusterIssuer", json!({"ca": {"secretName": "root"}})),
            ),
        ];
        for review in &sent {
            let answer = answer(&permissive(), Endpoint::Validate, review);
            assert!(answer.allowed && answer.handled.reviewed, "{review}: {:?}", answer.message);
            assert_eq!(answer.patch, None);
        }
    }
}

#[test]
fn invalid_certificates_are_denied_with_upstreams_aggregate() {
    let object = certificate(json!({
        "secretName": "",
        "issuerRef": {"name": "ca"},
        "dnsNames": ["web"],
        "privateKey": {"algorithm": "RSA", "size": 1024},
        "duration": "30m"
    }));
    for operation in ["CREATE", "UPDATE"] {
        let message = forbidden(
            &permissive(),
            Endpoint::Validate,
            &kind_review("certificates", operation, object.clone()),
        );
        assert_eq!(
            message,
            "[spec.secretName: Required value: must be specified, spec.privateKey.size: Invalid \
             value: 1024: must be between 2048 and 8192 for rsa keyAlgorithm, spec.duration: \
             Invalid value: 1800000000000: certificate duration must be greater than 1h0m0s]"
        );
    }
    let one = certificate(json!({"secretName": "s", "issuerRef": {"name": "ca"}}));
    assert_eq!(
        forbidden(&permissive(), Endpoint::Validate, &kind_review("certificates", "CREATE", one)),
        "spec: Invalid value: \"\": at least one of commonName (from the commonName field or \
         from a literalSubject), dnsNames, emailSANs, ipAddresses, otherNames, or uriSANs must be set"
    );
}

#[test]
fn invalid_issuers_and_cluster_issuers_are_denied() {
    for (resource, kind) in [("issuers", "Issuer"), ("clusterissuers", "ClusterIssuer")] {
        let two = issuer(kind, json!({"ca": {"secretName": "root"}, "selfSigned": {}}));
        assert_eq!(
            forbidden(&permissive(), Endpoint::Validate, &kind_review(resource, "CREATE", two)),
            "spec.selfSigned: Forbidden: may not specify more than one issuer type"
        );
        let none = issuer(kind, json!({}));
        assert_eq!(
            forbidden(&permissive(), Endpoint::Validate, &kind_review(resource, "UPDATE", none)),
            "spec: Required value: at least one issuer must be configured"
        );
        let empty_secret = issuer(kind, json!({"ca": {"secretName": ""}}));
        assert_eq!(
            forbidden(
                &permissive(),
                Endpoint::Validate,
                &kind_review(resource, "CREATE", empty_secret)
            ),
            "spec.ca.secretName: Required value"
        );
    }
}

/// Upstream's plugin does not look at the subresource: an UPDATE of `status` is checked too.
#[test]
fn status_updates_are_checked_and_delete_is_allowed() {
    let invalid = certificate(json!({"secretName": "s", "issuerRef": {"name": "ca"}}));
    let mut status = kind_review("certificates", "UPDATE", invalid.clone());
    status["request"]["subResource"] = json!("status");
    assert!(
        forbidden(&permissive(), Endpoint::Validate, &status)
            .starts_with("spec: Invalid value: \"\": at least one of commonName")
    );
    let mut status =
        kind_review("issuers", "UPDATE", issuer("Issuer", json!({"ca": {"secretName": "r"}})));
    status["request"]["subResource"] = json!("status");
    assert!(answer(&permissive(), Endpoint::Validate, &status).handled.reviewed);
    let delete = kind_review("issuers", "DELETE", issuer("Issuer", json!({})));
    assert!(answer(&permissive(), Endpoint::Validate, &delete).allowed);
    // The mutating path has nothing to say about these kinds.
    let create = kind_review("certificates", "CREATE", invalid);
    let handled = answer(&permissive(), Endpoint::Mutate, &create).handled;
    assert!(handled.allowed && !handled.reviewed);
}

#[test]
fn unknown_versions_wrong_kinds_and_mistyped_objects_are_denied() {
    let mut v1beta1 = kind_review("issuers", "CREATE", issuer("Issuer", json!({"selfSigned": {}})));
    v1beta1["request"]["resource"]["version"] = json!("v1beta1");
    let answer_ = answer(&permissive(), Endpoint::Validate, &v1beta1);
    assert!(!answer_.allowed);
    assert_eq!(answer_.code, Some(400));
    assert!(answer_.message.unwrap().starts_with(
        "certgate does not admit CREATE of cert-manager.io/v1beta1/issuers on /validate"
    ));

    let misrouted = kind_review("issuers", "CREATE", valid_certificate());
    let answer_ = answer(&permissive(), Endpoint::Validate, &misrouted);
    assert_eq!((answer_.allowed, answer_.code), (false, Some(400)));
    assert_eq!(
        answer_.message.as_deref(),
        Some(
            "request.object has apiVersion \"cert-manager.io/v1\" and kind \"Certificate\", \
             expected \"cert-manager.io/v1\" and \"Issuer\""
        )
    );

    let mut mistyped = valid_certificate();
    mistyped["spec"]["dnsNames"] = json!("web");
    let answer_ =
        answer(&permissive(), Endpoint::Validate, &kind_review("certificates", "CREATE", mistyped));
    assert_eq!((answer_.allowed, answer_.code), (false, Some(400)));
    assert!(
        answer_
            .message
            .unwrap()
            .starts_with("request.object is not a valid cert-manager.io/v1 Certificate: ")
    );

    let mut missing = kind_review("certificates", "CREATE", valid_certificate());
    missing["request"]["object"] = Value::Null;
    assert!(!answer(&permissive(), Endpoint::Validate, &missing).allowed);
}

/// Upstream warns of the deprecated `externalAccountBinding.keyAlgorithm`, allowed or denied.
#[test]
fn the_deprecated_eab_key_algorithm_is_warned_about() {
    let warning = "ACME issuer spec field 'externalAccount.keyAlgorithm' is deprecated. The value \
                   of this field will be ignored.";
    let eab =
        json!({"keyID": "k", "keySecretRef": {"name": "s", "key": "k"}, "keyAlgorithm": "HS256"});
    let valid = issuer(
        "Issuer",
        json!({"acme": {"server": "https://acme", "privateKeySecretRef": {"name": "a"}, "externalAccountBinding": eab}}),
    );
    let allowed =
        answer(&permissive(), Endpoint::Validate, &kind_review("issuers", "CREATE", valid));
    assert!(allowed.allowed);
    assert_eq!(allowed.warnings, [warning]);
    let invalid = issuer("ClusterIssuer", json!({"acme": {"externalAccountBinding": eab}}));
    let denied = answer(
        &permissive(),
        Endpoint::Validate,
        &kind_review("clusterissuers", "UPDATE", invalid),
    );
    assert!(!denied.allowed);
    assert_eq!(denied.warnings, [warning]);
}

#[test]
fn a_flood_of_bad_entries_is_reported_bounded() {
    let ips: Vec<String> = (0..10_000).map(|i| format!("not-an-ip-{i}")).collect();
    let object = certificate(json!({
        "secretName": "s",
        "issuerRef": {"name": "ca"},
        "ipAddresses": ips
    }));
    let message = forbidden(
        &permissive(),
        Endpoint::Validate,
        &kind_review("certificates", "CREATE", object),
    );
    assert!(
        message.starts_with(
            "[spec.ipAddresses[0]: Invalid value: \"not-an-ip-0\": invalid IP address, "
        )
    );
    assert!(message.contains("spec.ipAddresses[99]: Invalid value"));
    assert!(!message.contains("spec.ipAddresses[100]:"));
    assert!(
        message.ends_with(
            "and 9900 more errors not shown (certgate lists at most 100, 262144 bytes)]"
        ),
        "{}",
        &message[message.len() - 100..]
    );
}

#[test]
fn long_values_are_reported_bounded_in_bytes() {
    // 50 bad addresses of 20 KiB each: the answer stops before 256 KiB of texts.
    let ips: Vec<String> = (0..50).map(|i| format!("{i}{}", "x".repeat(20 * 1024))).collect();
    let object =
        certificate(json!({"secretName": "s", "issuerRef": {"name": "ca"}, "ipAddresses": ips}));
    let message = forbidden(
        &permissive(),
        Endpoint::Validate,
        &kind_review("certificates", "CREATE", object),
    );
    assert!(message.len() < 256 * 1024 + 1024, "{}", message.len());
    assert!(message.contains("spec.ipAddresses[11]: Invalid value"));
    assert!(!message.contains("spec.ipAddresses[12]:"));
    assert!(
        message
            .ends_with("and 38 more errors not shown (certgate lists at most 100, 262144 bytes)]")
    );

    // A literal subject past 16 KiB is refused unread, once.
    let literal = format!("CN=a,{}", "X=y,".repeat(5000));
    let object = certificate(
        json!({"secretName": "s", "issuerRef": {"name": "ca"}, "dnsNames": ["a"], "literalSubject": literal}),
    );
    assert_eq!(
        forbidden(
            &permissive(),
            Endpoint::Validate,
            &kind_review("certificates", "CREATE", object)
        ),
        "spec.literalSubject: Too long: may not be more than 16384 bytes"
    );
}
