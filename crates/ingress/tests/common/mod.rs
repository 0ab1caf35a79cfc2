//! Shared helpers for the integration tests: manifest builders and PEM fixtures.
#![allow(dead_code)]

use base64::Engine as _;
use certgate_ingress::{CheckOptions, CheckReport, CheckResult, NoCrlInspection, check};
use serde_json::{Value, json};

pub const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");

/// A fixture PEM file (generated once by `fixtures_gen.rs`, kept as text).
pub fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!("{FIXTURES}/{name}")).expect("fixture exists")
}

pub fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// A Secret manifest with `data` base64-encoded.
pub fn secret(ns: &str, name: &str, type_: &str, data: &[(&str, &[u8])]) -> Value {
    let mut encoded = serde_json::Map::new();
    for (key, value) in data {
        encoded.insert((*key).to_string(), Value::String(b64(value)));
    }
    json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"namespace": ns, "name": name}, "type": type_, "data": encoded})
}

/// The serving Secret every TLS test proxy uses (`default/server`).
pub fn serving_secret(ns: &str, name: &str) -> Value {
    let crt = fixture("tls.crt");
    let key = fixture("tls.key");
    secret(
        ns,
        name,
        "kubernetes.io/tls",
        &[("tls.crt", crt.as_bytes()), ("tls.key", key.as_bytes())],
    )
}

pub fn ca_secret(ns: &str, name: &str) -> Value {
    secret(ns, name, "Opaque", &[("ca.crt", fixture("ca.crt").as_bytes())])
}

pub fn crl_secret(ns: &str, name: &str) -> Value {
    secret(ns, name, "Opaque", &[("crl.pem", fixture("crl.pem").as_bytes())])
}

/// A root proxy `ns/name` on `fqdn` with one route and the given `tls` block.
pub fn proxy_with_tls(ns: &str, name: &str, fqdn: &str, tls: Value) -> Value {
    json!({
        "apiVersion": "projectcontour.io/v1",
        "kind": "HTTPProxy",
        "metadata": {"namespace": ns, "name": name, "generation": 3},
        "spec": {
            "virtualhost": {"fqdn": fqdn, "tls": tls},
            "routes": [{"conditions": [{"prefix": "/"}], "services": [{"name": "app", "port": 80}]}]
        }
    })
}

/// A proxy `default/proxy` whose TLS terminates with `default/server` and has this validation.
pub fn proxy_with_validation(client_validation: Value) -> Value {
    proxy_with_tls(
        "default",
        "proxy",
        "example.com",
        json!({"secretName": "server", "clientValidation": client_validation}),
    )
}

pub fn delegation(ns: &str, name: &str, secret_name: &str, targets: &[&str]) -> Value {
    json!({
        "apiVersion": "projectcontour.io/v1",
        "kind": "TLSCertificateDelegation",
        "metadata": {"namespace": ns, "name": name},
        "spec": {"delegations": [{"secretName": secret_name, "targetNamespaces": targets}]}
    })
}

pub fn run(objects: &[Value]) -> CheckReport {
    check(objects, &NoCrlInspection, &CheckOptions::default())
}

pub fn result<'a>(report: &'a CheckReport, ns: &str, name: &str) -> &'a CheckResult {
    report.results.iter().find(|r| r.namespace == ns && r.name == name).expect("result for proxy")
}

/// `(type, reason, message)` of every error of the `Valid` condition.
pub fn errors(result: &CheckResult) -> Vec<(String, String, String)> {
    result
        .status
        .conditions
        .iter()
        .flatten()
        .flat_map(|c| c.errors.iter())
        .map(|e| (e.type_.clone(), e.reason.clone(), e.message.clone()))
        .collect()
}

/// Asserts an invalid status with exactly these TLSError `(reason, message)` entries.
pub fn assert_tls_errors(result: &CheckResult, expected: &[(&str, &str)]) {
    let got = errors(result);
    let want: Vec<(String, String, String)> = expected
        .iter()
        .map(|(r, m)| ("TLSError".to_string(), (*r).to_string(), (*m).to_string()))
        .collect();
    pretty_assertions::assert_eq!(got, want);
    assert!(!result.valid);
    let status = serde_json::to_value(&result.status).unwrap();
    assert_eq!(status["currentStatus"], "invalid");
    assert_eq!(status["description"], "At least one error present, see Errors for details");
    let cond = &status["conditions"][0];
    assert_eq!(cond["type"], "Valid");
    assert_eq!(cond["status"], "False");
    assert_eq!(cond["reason"], "ErrorPresent");
    assert_eq!(cond["message"], "At least one error present, see Errors for details");
    for e in cond["errors"].as_array().unwrap() {
        assert_eq!(e["status"], "True");
    }
}

pub fn assert_valid(result: &CheckResult) {
    assert!(result.valid, "expected valid, got {:?}", errors(result));
    let status = serde_json::to_value(&result.status).unwrap();
    assert_eq!(status["currentStatus"], "valid");
    assert_eq!(status["description"], "Valid HTTPProxy");
    assert_eq!(status["conditions"][0]["status"], "True");
    assert_eq!(status["conditions"][0]["reason"], "Valid");
}
