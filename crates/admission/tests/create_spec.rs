//! CREATE validation of `spec.issuerRef`, `spec.request` presence and decoding, and
//! `spec.usages` names, with the exact texts the API server shows.

mod common;

use certgate_admission::certificate_request::validate_create;
use certgate_api::CertificateRequestSpec;
use common::{Csr, cr, render, shown, strings, valid_spec};
use pretty_assertions::assert_eq;

fn issuer_ref(kind: Option<&str>, group: Option<&str>) -> CertificateRequestSpec {
    let mut spec = valid_spec();
    spec.issuer_ref.kind = kind.map(str::to_owned);
    spec.issuer_ref.group = group.map(str::to_owned);
    spec
}

#[test]
fn issuer_ref_rules() {
    let hint = "spec.issuerRef.kind: Invalid value: \"AWSPCAClusterIssuer\": must be one of Issuer or \
                ClusterIssuer (did you forget to set spec.issuerRef.kind.group?)";
    let no_hint = "spec.issuerRef.kind: Invalid value: \"AWSPCAClusterIssuer\": must be one of Issuer \
                   or ClusterIssuer";
    let cases: Vec<(&str, CertificateRequestSpec, Option<&str>)> = vec![
        ("kind Issuer", issuer_ref(Some("Issuer"), None), None),
        ("kind ClusterIssuer", issuer_ref(Some("ClusterIssuer"), Some("cert-manager.io")), None),
        ("no kind, no group", issuer_ref(None, None), None),
        ("empty kind", issuer_ref(Some(""), Some("")), None),
        ("foreign kind, group unset", issuer_ref(Some("AWSPCAClusterIssuer"), None), Some(hint)),
        (
            "foreign kind, group empty",
            issuer_ref(Some("AWSPCAClusterIssuer"), Some("")),
            Some(hint),
        ),
        (
            "foreign kind, cert-manager group",
            issuer_ref(Some("AWSPCAClusterIssuer"), Some("cert-manager.io")),
            Some(no_hint),
        ),
        (
            "external group, any kind",
            issuer_ref(Some("AWSPCAClusterIssuer"), Some("awspca.cert-manager.io")),
            None,
        ),
        ("external group, no kind", issuer_ref(None, Some("example.io")), None),
        (
            "kind is Go-quoted, not JSON",
            issuer_ref(Some("<Issuer>"), Some("cert-manager.io")),
            Some(
                "spec.issuerRef.kind: Invalid value: \"<Issuer>\": must be one of Issuer or \
                 ClusterIssuer",
            ),
        ),
        (
            "kind is case-sensitive",
            issuer_ref(Some("issuer"), Some("cert-manager.io")),
            Some(
                "spec.issuerRef.kind: Invalid value: \"issuer\": must be one of Issuer or ClusterIssuer",
            ),
        ),
    ];
    for (name, spec, want) in cases {
        assert_eq!(render(&validate_create(&cr(spec))).as_deref(), want, "case: {name}");
    }
}

#[test]
fn issuer_name_is_required_and_kind_still_checked() {
    let mut spec = issuer_ref(Some("Foo"), None);
    spec.issuer_ref.name = String::new();
    assert_eq!(
        render(&validate_create(&cr(spec))).as_deref(),
        Some(
            "[spec.issuerRef.name: Required value: must be specified, spec.issuerRef.kind: Invalid \
             value: \"Foo\": must be one of Issuer or ClusterIssuer (did you forget to set \
             spec.issuerRef.kind.group?)]"
        )
    );
}

#[test]
fn missing_request_stops_request_checks() {
    let mut spec = valid_spec();
    spec.issuer_ref.name = String::new();
    spec.request = Vec::new();
    // Unknown usages are not reported once the request is missing.
    spec.usages = Some(strings(&["foo"]));
    assert_eq!(
        render(&validate_create(&cr(spec))).as_deref(),
        Some(
            "[spec.issuerRef.name: Required value: must be specified, spec.request: Required \
             value: must be specified]"
        )
    );
}

#[test]
fn unknown_usages_are_reported_and_the_csr_is_not_checked() {
    let cases: Vec<(&str, &[&str], &str)> = vec![
        (
            "unknown names listed Go-style, value as JSON",
            &["server auth", "foo bar", "baz"],
            "spec.usages: Invalid value: [\"server auth\",\"foo bar\",\"baz\"]: unknown key usages: \
             [foo bar baz]",
        ),
        (
            "JSON escapes <, > and & in the value only",
            &["<a&b>"],
            "spec.usages: Invalid value: [\"\\u003ca\\u0026b\\u003e\"]: unknown key usages: [<a&b>]",
        ),
        (
            "names are case-sensitive",
            &["Server Auth"],
            "spec.usages: Invalid value: [\"Server Auth\"]: unknown key usages: [Server Auth]",
        ),
    ];
    for (name, usages, want) in cases {
        let mut spec = valid_spec();
        spec.usages = Some(strings(usages));
        spec.is_ca = Some(true);
        spec.request = b"not a CSR".to_vec();
        assert_eq!(render(&validate_create(&cr(spec))).as_deref(), Some(want), "case: {name}");
    }
}

#[test]
fn every_cert_manager_usage_name_is_known() {
    let all = certgate_api::certificate_request::KEY_USAGES;
    // A CSR without usage extensions is not compared, so only the names are checked.
    let mut spec = valid_spec();
    spec.request = Csr::cert_manager_default().key_usages(&[]).pem();
    spec.usages = Some(strings(&all));
    assert_eq!(render(&validate_create(&cr(spec))), None);
}

#[test]
fn undecodable_requests_show_the_request_and_the_decode_error() {
    let long_garbage = "x".repeat(101).into_bytes();
    let mut corrupted = Csr::cert_manager_default().pem();
    // Inside the base64 body, well past the header: corrupts the encoded CSR.
    if let Some(byte) = corrupted.get_mut(120) {
        *byte = if *byte == b'A' { b'B' } else { b'A' };
    }
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("not PEM", b"not a CSR".to_vec()),
        ("100 bytes are shown whole", "x".repeat(100).into_bytes()),
        ("101 bytes are cut to 97 plus ...", long_garbage),
        ("corrupted PEM CSR, newlines Go-escaped", corrupted),
    ];
    for (name, request) in cases {
        let decode_error = certgate_pki::decode_csr(&request).unwrap_err();
        let want = format!("spec.request: Invalid value: {}: {decode_error}", shown(&request));
        let mut spec = valid_spec();
        spec.request = request;
        assert_eq!(render(&validate_create(&cr(spec))), Some(want), "case: {name}");
    }
}

#[test]
fn shown_request_is_cut_after_97_bytes() {
    // Guards the helper the other tests build expectations with.
    assert_eq!(
        shown(format!("{}\nyz", "a".repeat(98)).as_bytes()),
        format!("\"{}...\"", "a".repeat(97))
    );
    assert_eq!(shown(b"a\nb"), "\"a\\nb\"");
}

#[test]
fn valid_request_passes() {
    assert_eq!(render(&validate_create(&cr(valid_spec()))), None);
}
