//! The JSON shape of the check API and the CRL-inspection seam.

mod common;

use std::cell::RefCell;

use certgate_ingress::{CheckOptions, CrlContext, check};
use common::*;
use serde_json::json;

#[test]
fn report_shape_and_inspector_seam() {
    let objects = vec![
        serving_secret("default", "server"),
        ca_secret("default", "ca"),
        crl_secret("certs", "crl"),
        delegation("certs", "d", "crl", &["*"]),
        proxy_with_validation(
            json!({"caSecret": "ca", "crlSecret": "certs/crl", "crlOnlyVerifyLeafCert": true}),
        ),
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ignored"}}),
        json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "broken"}, "data": {"k": "%%%"}}),
    ];
    let seen = RefCell::new(Vec::new());
    let inspector = |ctx: &CrlContext<'_>| {
        seen.borrow_mut().push((
            ctx.crl_secret.to_string(),
            ctx.only_verify_leaf,
            ctx.ca_bundle.is_some(),
            ctx.fqdn.to_string(),
        ));
        assert_eq!(ctx.crl_pem, fixture("crl.pem").as_bytes());
        vec!["CRL for CN=client-root-ca expires soon".to_string()]
    };
    let report = check(&objects, &inspector, &CheckOptions::default());
    assert_eq!(
        seen.into_inner(),
        vec![("certs/crl".to_string(), true, true, "example.com".to_string())]
    );
    let value = serde_json::to_value(&report).unwrap();
    let first = &value["results"][0];
    let keys: Vec<&String> = first.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["namespace", "name", "valid", "status", "warnings", "envoy"]);
    assert_eq!(first["namespace"], "default");
    assert_eq!(first["name"], "proxy");
    assert_eq!(first["valid"], true);
    assert_eq!(first["warnings"], json!(["CRL for CN=client-root-ca expires soon"]));
    assert_eq!(first["status"]["currentStatus"], "valid");
    assert_eq!(
        first["envoy"]["@type"],
        "type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext"
    );
    assert_eq!(value["skipped"].as_array().unwrap().len(), 1, "the undecodable Secret is reported");
}

#[test]
fn inspector_not_called_without_an_attached_crl() {
    let objects = vec![
        serving_secret("default", "server"),
        proxy_with_validation(json!({"caSecret": "ca", "crlSecret": "crl"})),
    ];
    let called = RefCell::new(false);
    let inspector = |_: &CrlContext<'_>| {
        *called.borrow_mut() = true;
        Vec::new()
    };
    let report = check(&objects, &inspector, &CheckOptions::default());
    assert!(!*called.borrow());
    assert!(report.results[0].warnings.is_empty());
    let value = serde_json::to_value(&report).unwrap();
    assert!(value.get("skipped").is_none());
}
