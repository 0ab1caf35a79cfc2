//! TLSCertificateDelegation rules (spec §3) for CA, CRL and serving Secrets.

mod common;

use certgate_ingress::types::TlsCertificateDelegation;
use certgate_ingress::{NamespacedName, delegation_permitted};
use common::*;
use serde_json::json;

fn parsed(ns: &str, secret: &str, targets: &[&str]) -> TlsCertificateDelegation {
    TlsCertificateDelegation::from_value(&delegation(ns, "d", secret, targets)).unwrap()
}

#[test]
fn rules() {
    let secret = NamespacedName::new("certs", "crl");
    assert!(delegation_permitted(&secret, "certs", &[]), "same namespace needs nothing");
    assert!(!delegation_permitted(&secret, "apps", &[]));
    assert!(delegation_permitted(&secret, "apps", &[parsed("certs", "crl", &["apps"])]));
    assert!(delegation_permitted(&secret, "apps", &[parsed("certs", "crl", &["*"])]));
    assert!(
        !delegation_permitted(&secret, "apps", &[parsed("certs", "crl", &["other", "*"])]),
        "* in a list is literal"
    );
    assert!(
        !delegation_permitted(&secret, "apps", &[parsed("elsewhere", "crl", &["apps"])]),
        "delegation lives in the Secret's namespace"
    );
    assert!(!delegation_permitted(&secret, "apps", &[parsed("certs", "other", &["apps"])]));
}

#[test]
fn cross_namespace_ca_and_crl_allowed_with_delegation() {
    let objects = vec![
        serving_secret("certs", "server"),
        ca_secret("certs", "ca"),
        crl_secret("certs", "crl"),
        delegation("certs", "d1", "ca", &["default"]),
        delegation("certs", "d2", "crl", &["*"]),
        delegation("certs", "d3", "server", &["default"]),
        proxy_with_tls(
            "default",
            "proxy",
            "example.com",
            json!({"secretName": "certs/server", "clientValidation": {"caSecret": "certs/ca", "crlSecret": "certs/crl"}}),
        ),
    ];
    let report = run(&objects);
    let r = result(&report, "default", "proxy");
    assert_valid(r);
    let name =
        r.envoy["commonTlsContext"]["tlsCertificateSdsSecretConfigs"][0]["name"].as_str().unwrap();
    assert!(name.starts_with("certs/server/"), "{name}");
}

#[test]
fn cross_namespace_crl_denied_for_other_targets() {
    let objects = vec![
        serving_secret("default", "server"),
        ca_secret("default", "ca"),
        crl_secret("certs", "crl"),
        delegation("certs", "d", "crl", &["team-a", "*"]),
        proxy_with_validation(json!({"caSecret": "ca", "crlSecret": "certs/crl"})),
    ];
    assert_tls_errors(
        result(&run(&objects), "default", "proxy"),
        &[(
            "DelegationNotPermitted",
            "Spec.VirtualHost.TLS CRL Secret \"certs/crl\" is invalid: certificate delegation not permitted",
        )],
    );
}

#[test]
fn delegated_but_missing_reports_not_found_with_resolved_name() {
    let objects = vec![
        serving_secret("default", "server"),
        delegation("certs", "d", "ca", &["default"]),
        proxy_with_validation(json!({"caSecret": "certs/ca"})),
    ];
    assert_tls_errors(
        result(&run(&objects), "default", "proxy"),
        &[(
            "ClientValidationInvalid",
            "Spec.VirtualHost.TLS client validation is invalid: invalid CA Secret \"certs/ca\": Secret not found",
        )],
    );
}
