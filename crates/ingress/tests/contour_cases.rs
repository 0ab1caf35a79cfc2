//! Every client-validation case of spec §4, with Contour's exact status.

mod common;

use common::*;
use serde_json::{Value, json};

const INVALID_CA: &str = "Spec.VirtualHost.TLS client validation is invalid: invalid CA Secret";
const INVALID_CRL: &str = "Spec.VirtualHost.TLS client validation is invalid: invalid CRL Secret";

fn base() -> Vec<Value> {
    vec![
        serving_secret("default", "server"),
        ca_secret("default", "ca"),
        crl_secret("default", "crl"),
    ]
}

fn run_with(extra: Vec<Value>, validation: Value) -> certgate_ingress::CheckReport {
    let mut objects = base();
    objects.extend(extra);
    objects.push(proxy_with_validation(validation));
    run(&objects)
}

#[test]
fn ca_and_crl_valid() {
    let report = run_with(vec![], json!({"caSecret": "ca", "crlSecret": "crl"}));
    let r = result(&report, "default", "proxy");
    assert_valid(r);
    let vc = &r.envoy["commonTlsContext"]["validationContext"];
    assert_eq!(vc["trustedCa"]["inlineBytes"], b64(fixture("ca.crt").as_bytes()));
    assert_eq!(vc["crl"]["inlineBytes"], b64(fixture("crl.pem").as_bytes()));
    assert!(vc.get("onlyVerifyLeafCertCrl").is_none());
    assert!(vc.get("trustChainVerification").is_none(), "VERIFY_TRUST_CHAIN is the proto default");
    assert_eq!(r.envoy["requireClientCertificate"], true);
}

#[test]
fn passthrough_with_client_validation() {
    let proxy = proxy_with_tls(
        "default",
        "proxy",
        "example.com",
        json!({"passthrough": true, "clientValidation": {"caSecret": "ca"}}),
    );
    let report = run(&[proxy]);
    let r = result(&report, "default", "proxy");
    assert_tls_errors(
        r,
        &[(
            "TLSIncompatibleFeatures",
            "Spec.VirtualHost.TLS passthrough cannot be combined with tls.clientValidation",
        )],
    );
    assert!(r.envoy.is_null());
}

#[test]
fn fallback_with_client_validation() {
    let proxy = proxy_with_tls(
        "default",
        "proxy",
        "example.com",
        json!({"secretName": "server", "enableFallbackCertificate": true, "clientValidation": {"caSecret": "ca"}}),
    );
    let mut objects = base();
    objects.push(proxy);
    let report = run(&objects);
    assert_tls_errors(
        result(&report, "default", "proxy"),
        &[(
            "TLSIncompatibleFeatures",
            "Spec.Virtualhost.TLS fallback & client validation are incompatible",
        )],
    );
}

#[test]
fn ca_delegation_not_permitted_even_when_missing() {
    for objects in [vec![ca_secret("certs", "ca")], vec![]] {
        let report = run_with(objects, json!({"caSecret": "certs/ca"}));
        assert_tls_errors(
            result(&report, "default", "proxy"),
            &[(
                "DelegationNotPermitted",
                "Spec.VirtualHost.TLS CA Secret \"certs/ca\" is invalid: certificate delegation not permitted",
            )],
        );
    }
}

#[test]
fn ca_secret_not_found() {
    let report = run_with(vec![], json!({"caSecret": "missing"}));
    assert_tls_errors(
        result(&report, "default", "proxy"),
        &[(
            "ClientValidationInvalid",
            &format!("{INVALID_CA} \"default/missing\": Secret not found"),
        )],
    );
}

fn ca_case(secret: Value, err: &str) {
    let report = run_with(vec![secret], json!({"caSecret": "bad"}));
    let r = result(&report, "default", "proxy");
    assert_tls_errors(
        r,
        &[("ClientValidationInvalid", &format!("{INVALID_CA} \"default/bad\": {err}"))],
    );
    assert!(r.envoy.is_null(), "no listener when the CA Secret is invalid");
}

#[test]
fn ca_secret_checks() {
    let ca = fixture("ca.crt");
    ca_case(
        secret("default", "bad", "kubernetes.io/dockerconfigjson", &[("ca.crt", ca.as_bytes())]),
        "secret type is not \"kubernetes.io/tls\" or \"Opaque\"",
    );
    ca_case(secret("default", "bad", "Opaque", &[]), "empty \"ca.crt\" key");
    ca_case(secret("default", "bad", "Opaque", &[("ca.crt", b"")]), "empty \"ca.crt\" key");
    ca_case(
        secret(
            "default",
            "bad",
            "Opaque",
            &[("ca.crt", b"-----BEGIN CERTIFICATE-----\nnot base64!\n-----END CERTIFICATE-----\n")],
        ),
        "invalid CA certificate bundle: failed to parse PEM block",
    );
    let mixed = format!("{ca}{}", fixture("crl.pem"));
    ca_case(
        secret("default", "bad", "Opaque", &[("ca.crt", mixed.as_bytes())]),
        "invalid CA certificate bundle: unexpected block type 'X509 CRL'",
    );
    ca_case(
        secret("default", "bad", "Opaque", &[("ca.crt", b"just text, no PEM")]),
        "invalid CA certificate bundle: failed to locate certificate",
    );
}

#[test]
fn ca_bundle_is_not_parsed_and_tls_type_is_accepted() {
    // Only framing and block type are checked: garbage DER under CERTIFICATE passes.
    let fake =
        b"leading text\n-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\ntrailing";
    let report = run_with(
        vec![secret("default", "fake", "kubernetes.io/tls", &[("ca.crt", fake)])],
        json!({"caSecret": "fake"}),
    );
    assert_valid(result(&report, "default", "proxy"));
}

#[test]
fn ca_must_be_specified_continues_to_crl() {
    let report = run_with(vec![], json!({"crlSecret": "crl"}));
    let r = result(&report, "default", "proxy");
    assert_tls_errors(
        r,
        &[(
            "ClientValidationInvalid",
            "Spec.VirtualHost.TLS client validation is invalid: CA Secret must be specified",
        )],
    );
    // Processing continued: the CRL is attached, without a trusted CA.
    let vc = &r.envoy["commonTlsContext"]["validationContext"];
    assert!(vc.get("trustedCa").is_none());
    assert!(vc.get("crl").is_some());
}

#[test]
fn ca_must_be_specified_then_crl_error_gives_two_entries() {
    let report = run_with(vec![], json!({"crlSecret": "nocrl"}));
    assert_tls_errors(
        result(&report, "default", "proxy"),
        &[
            (
                "ClientValidationInvalid",
                "Spec.VirtualHost.TLS client validation is invalid: CA Secret must be specified",
            ),
            (
                "ClientValidationInvalid",
                &format!("{INVALID_CRL} \"default/nocrl\": Secret not found"),
            ),
        ],
    );
}

#[test]
fn skip_validation_without_ca() {
    let report = run_with(vec![], json!({"skipClientCertValidation": true, "crlSecret": "crl"}));
    let r = result(&report, "default", "proxy");
    assert_valid(r);
    let vc = &r.envoy["commonTlsContext"]["validationContext"];
    assert_eq!(vc["trustChainVerification"], "ACCEPT_UNTRUSTED");
    assert!(vc.get("trustedCa").is_none());
}

#[test]
fn crl_delegation_not_permitted() {
    let report = run_with(
        vec![crl_secret("other", "crl")],
        json!({"caSecret": "ca", "crlSecret": "other/crl"}),
    );
    assert_tls_errors(
        result(&report, "default", "proxy"),
        &[(
            "DelegationNotPermitted",
            "Spec.VirtualHost.TLS CRL Secret \"other/crl\" is invalid: certificate delegation not permitted",
        )],
    );
}

fn crl_case(secret: Value, err: &str) {
    let report = run_with(vec![secret], json!({"caSecret": "ca", "crlSecret": "badcrl"}));
    let r = result(&report, "default", "proxy");
    assert_tls_errors(
        r,
        &[("ClientValidationInvalid", &format!("{INVALID_CRL} \"default/badcrl\": {err}"))],
    );
    assert!(r.envoy.is_null());
}

#[test]
fn crl_secret_checks() {
    let crl = fixture("crl.pem");
    crl_case(secret("default", "other", "Opaque", &[]), "Secret not found");
    crl_case(
        secret(
            "default",
            "badcrl",
            "bootstrap.kubernetes.io/token",
            &[("crl.pem", crl.as_bytes())],
        ),
        "secret type is not \"kubernetes.io/tls\" or \"Opaque\"",
    );
    crl_case(
        secret("default", "badcrl", "Opaque", &[("ca.crt", crl.as_bytes())]),
        "empty \"crl.pem\" key",
    );
    crl_case(
        secret(
            "default",
            "badcrl",
            "Opaque",
            &[("crl.pem", b"-----BEGIN X509 CRL-----\n@@@\n-----END X509 CRL-----\n")],
        ),
        "failed to parse PEM block",
    );
    // The header quirk: a newline inside the last ten bytes still counts as a header.
    crl_case(
        secret("default", "badcrl", "Opaque", &[("crl.pem", b"-----BEGIN X\n-----")]),
        "failed to parse PEM block",
    );
    crl_case(
        secret("default", "badcrl", "Opaque", &[("crl.pem", fixture("ca.crt").as_bytes())]),
        "failed to locate CRL",
    );
    crl_case(
        secret("default", "badcrl", "Opaque", &[("crl.pem", b"not pem at all")]),
        "failed to locate CRL",
    );
}

#[test]
fn crl_accepted_shapes() {
    // Other blocks before the CRL, a CRL whose DER is not a CRL, and text around blocks pass;
    // the bytes go to Envoy unchanged.
    let odd = format!(
        "comment\n{}-----BEGIN X509 CRL-----\nAAAA\n-----END X509 CRL-----\n-----BEGIN JUNK-----\n",
        fixture("ca.crt")
    );
    let report = run_with(
        vec![secret("default", "odd", "kubernetes.io/tls", &[("crl.pem", odd.as_bytes())])],
        json!({"caSecret": "ca", "crlSecret": "odd", "crlOnlyVerifyLeafCert": true}),
    );
    let r = result(&report, "default", "proxy");
    assert_valid(r);
    let vc = &r.envoy["commonTlsContext"]["validationContext"];
    assert_eq!(vc["crl"]["inlineBytes"], b64(odd.as_bytes()));
    assert_eq!(vc["onlyVerifyLeafCertCrl"], true);
}

#[test]
fn leaf_only_without_crl_is_ignored() {
    let report = run_with(
        vec![],
        json!({"caSecret": "ca", "crlOnlyVerifyLeafCert": true, "optionalClientCertificate": true}),
    );
    let r = result(&report, "default", "proxy");
    assert_valid(r);
    let vc = &r.envoy["commonTlsContext"]["validationContext"];
    assert!(vc.get("onlyVerifyLeafCertCrl").is_none());
    assert!(vc.get("crl").is_none());
    assert_eq!(r.envoy["requireClientCertificate"], false);
}

#[test]
fn empty_namespace_part_resolves_to_proxy_namespace() {
    let report = run_with(vec![], json!({"caSecret": "/ca", "crlSecret": "/crl"}));
    assert_valid(result(&report, "default", "proxy"));
    let report = run_with(vec![], json!({"caSecret": "/ca", "crlSecret": "/nope"}));
    assert_tls_errors(
        result(&report, "default", "proxy"),
        &[(
            "ClientValidationInvalid",
            &format!("{INVALID_CRL} \"default/nope\": Secret not found"),
        )],
    );
}

#[test]
fn names_are_go_quoted_and_long_messages_truncated() {
    let report = run_with(vec![], json!({"caSecret": "ca", "crlSecret": "x/a\"b\\c\u{7}"}));
    assert_tls_errors(
        result(&report, "default", "proxy"),
        &[(
            "DelegationNotPermitted",
            "Spec.VirtualHost.TLS CRL Secret \"x/a\\\"b\\\\c\\a\" is invalid: certificate delegation not permitted",
        )],
    );
    let long = format!("x/{}", "n".repeat(40_000));
    let report = run_with(vec![], json!({"caSecret": "ca", "crlSecret": long}));
    let errs = errors(result(&report, "default", "proxy"));
    assert_eq!(errs[0].2.len(), 32760);
    assert!(errs[0].2.starts_with("Spec.VirtualHost.TLS CRL Secret \"x/nnn"));
}

#[test]
fn general_tls_checks_come_first() {
    let proxy = proxy_with_tls(
        "default",
        "proxy",
        "example.com",
        json!({"passthrough": true, "enableFallbackCertificate": true, "secretName": "server", "clientValidation": {}}),
    );
    let report = run(&[proxy]);
    assert_tls_errors(
        result(&report, "default", "proxy"),
        &[
            (
                "TLSIncompatibleFeatures",
                "Spec.VirtualHost.TLS: both Passthrough and enableFallbackCertificate were specified",
            ),
            (
                "TLSConfigNotValid",
                "Spec.VirtualHost.TLS: both Passthrough and SecretName were specified",
            ),
        ],
    );
    let neither = proxy_with_tls(
        "default",
        "proxy",
        "example.com",
        json!({"clientValidation": {"caSecret": "ca"}}),
    );
    assert_tls_errors(
        result(&run(&[neither]), "default", "proxy"),
        &[(
            "TLSConfigNotValid",
            "Spec.VirtualHost.TLS: neither Passthrough nor SecretName were specified",
        )],
    );
}

#[test]
fn serving_secret_and_versions_stop_before_client_validation() {
    let report = run(&[proxy_with_validation(json!({"crlSecret": "crl"}))]);
    assert_tls_errors(
        result(&report, "default", "proxy"),
        &[(
            "SecretNotValid",
            "Spec.VirtualHost.TLS Secret \"server\" is invalid: Secret not found",
        )],
    );
    let proxy = proxy_with_tls(
        "default",
        "proxy",
        "example.com",
        json!({"secretName": "server", "minimumProtocolVersion": "1.3", "maximumProtocolVersion": "1.2", "clientValidation": {"crlSecret": "missing"}}),
    );
    let mut objects = base();
    objects.push(proxy);
    assert_tls_errors(
        result(&run(&objects), "default", "proxy"),
        &[(
            "TLSConfigNotValid",
            "Spec.Virtualhost.TLS the minimum protocol version is greater than the maximum protocol version",
        )],
    );
    let proxy = proxy_with_tls(
        "default",
        "proxy",
        "example.com",
        json!({"secretName": "elsewhere/server"}),
    );
    assert_tls_errors(
        result(&run(&[proxy]), "default", "proxy"),
        &[(
            "DelegationNotPermitted",
            "Spec.VirtualHost.TLS Secret \"elsewhere/server\" certificate delegation not permitted",
        )],
    );
}

#[test]
fn status_is_exactly_what_contour_writes() {
    let options = certgate_ingress::CheckOptions {
        transition_time: Some("2026-11-25T10:00:00Z".to_string()),
        ..Default::default()
    };
    let mut objects = base();
    objects.push(proxy_with_validation(json!({"caSecret": "ca", "crlSecret": "gone"})));
    let report = certgate_ingress::check(&objects, &certgate_ingress::NoCrlInspection, &options);
    let status = serde_json::to_value(&report.results[0].status).unwrap();
    pretty_assertions::assert_eq!(
        status,
        json!({
            "currentStatus": "invalid",
            "description": "At least one error present, see Errors for details",
            "loadBalancer": {},
            "conditions": [{
                "type": "Valid",
                "status": "False",
                "observedGeneration": 3,
                "lastTransitionTime": "2026-11-25T10:00:00Z",
                "reason": "ErrorPresent",
                "message": "At least one error present, see Errors for details",
                "errors": [{
                    "type": "TLSError",
                    "status": "True",
                    "reason": "ClientValidationInvalid",
                    "message": "Spec.VirtualHost.TLS client validation is invalid: invalid CRL Secret \"default/gone\": Secret not found"
                }]
            }]
        })
    );
}

#[test]
fn fqdn_conflicts_and_orphans() {
    let a = proxy_with_tls("default", "a", "Dup.example.com", json!({"secretName": "server"}));
    let b = proxy_with_tls("other", "b", "dup.example.com", json!({"secretName": "server"}));
    let child = json!({"apiVersion": "projectcontour.io/v1", "kind": "HTTPProxy",
        "metadata": {"namespace": "default", "name": "child"}, "spec": {"routes": [{"services": [{"name": "s", "port": 80}]}]}});
    let report = run(&[a, b, child]);
    let msg = "fqdn \"dup.example.com\" is used in multiple HTTPProxies: default/a, other/b";
    assert_eq!(
        errors(result(&report, "other", "b")),
        vec![("VirtualHostError".to_string(), "DuplicateVhost".to_string(), msg.to_string())]
    );
    let orphan = serde_json::to_value(&result(&report, "default", "child").status).unwrap();
    assert_eq!(orphan["currentStatus"], "orphaned");
    assert_eq!(
        orphan["description"],
        "this HTTPProxy is not part of a delegation chain from a root HTTPProxy"
    );
}
