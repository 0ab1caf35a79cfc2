//! Contour's messages for `crl.pem` and `ca.crt` whose framing Go's `encoding/pem.Decode`
//! rejects: a stray `\r` on a BEGIN/END line, and a BEGIN line swallowed as a header line.

mod common;

use common::*;
use serde_json::{Value, json};

const INVALID_CA: &str = "Spec.VirtualHost.TLS client validation is invalid: invalid CA Secret";
const INVALID_CRL: &str = "Spec.VirtualHost.TLS client validation is invalid: invalid CRL Secret";

fn run_with(extra: Vec<Value>, validation: Value) -> certgate_ingress::CheckReport {
    let mut objects = vec![serving_secret("default", "server")];
    objects.extend(extra);
    objects.push(proxy_with_validation(validation));
    run(&objects)
}

fn crl_error(crl_pem: &[u8], err: &str) {
    // The CA is fine; only the CRL Secret is broken.
    let report = run_with(
        vec![
            ca_secret("default", "ca"),
            secret("default", "badcrl", "Opaque", &[("crl.pem", crl_pem)]),
        ],
        json!({"caSecret": "ca", "crlSecret": "badcrl"}),
    );
    let r = result(&report, "default", "proxy");
    assert_tls_errors(
        r,
        &[("ClientValidationInvalid", &format!("{INVALID_CRL} \"default/badcrl\": {err}"))],
    );
    assert!(r.envoy.is_null());
}

fn ca_error(ca_crt: &[u8], err: &str) {
    let report = run_with(
        vec![secret("default", "badca", "Opaque", &[("ca.crt", ca_crt)])],
        json!({"caSecret": "badca"}),
    );
    let r = result(&report, "default", "proxy");
    assert_tls_errors(
        r,
        &[(
            "ClientValidationInvalid",
            &format!("{INVALID_CA} \"default/badca\": invalid CA certificate bundle: {err}"),
        )],
    );
    assert!(r.envoy.is_null());
}

#[test]
fn crl_with_stray_carriage_returns_fails_to_parse() {
    for crl in [
        &b"-----BEGIN X509 CRL-----\r\r\nAAAA\n-----END X509 CRL-----\n"[..],
        b"-----BEGIN X509 CRL-----\r \nAAAA\n-----END X509 CRL-----\n",
        b"-----BEGIN X509 CRL-----\nAAAA\n-----END X509 CRL-----\r",
    ] {
        crl_error(crl, "failed to parse PEM block");
    }
}

#[test]
fn crl_begin_line_swallowed_as_header_fails_to_parse() {
    // Not "failed to locate CRL": Go never decodes the `B:C` block, so the walk stops at a
    // header with no block.
    crl_error(
        b"-----BEGIN A-----\n-----BEGIN B:C-----\nAAAA\n-----END B:C-----\n",
        "failed to parse PEM block",
    );
}

#[test]
fn ca_with_stray_carriage_returns_fails_to_parse() {
    ca_error(
        b"-----BEGIN CERTIFICATE-----\r\r\nAAAA\n-----END CERTIFICATE-----\n",
        "failed to parse PEM block",
    );
    ca_error(
        b"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\r",
        "failed to parse PEM block",
    );
    // The header-swallowed `X509 CRL:` block is skipped; the real next block is reported.
    ca_error(
        b"-----BEGIN A-----\n-----BEGIN X509 CRL:-----\nAAAA\n-----END X509 CRL:-----\n\
-----BEGIN X509 CRL-----\nAAAA\n-----END X509 CRL-----\n",
        "unexpected block type 'X509 CRL'",
    );
}

#[test]
fn crl_with_crlf_line_ends_is_valid() {
    let crl = fixture("crl.pem").replace('\n', "\r\n");
    let report = run_with(
        vec![
            ca_secret("default", "ca"),
            secret("default", "crlf", "Opaque", &[("crl.pem", crl.as_bytes())]),
        ],
        json!({"caSecret": "ca", "crlSecret": "crlf"}),
    );
    assert_valid(result(&report, "default", "proxy"));
}
