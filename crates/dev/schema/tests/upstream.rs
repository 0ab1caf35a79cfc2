//! Conformance with real CRDs: every upstream and every certgate CRD compiles, realistic
//! objects validate cleanly, broken variants give the API server's errors.

mod common;

use certgate_schema::{Schema, causes, invalid_message};
use common::{texts, upstream_crds, upstream_files, upstream_schema, version_schemas};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

#[test]
fn every_upstream_crd_version_compiles() {
    let files = upstream_files();
    // The shared folder grows as certgate implements more upstream APIs; it held 12 files
    // when this test was written, and every file must be read.
    assert!(files.len() >= 12, "only {} upstream CRD files found", files.len());
    for file in files {
        let mut compiled = 0;
        for crd in upstream_crds(&file) {
            for (name, schema) in version_schemas(&crd) {
                Schema::compile(&schema).unwrap_or_else(|e| panic!("{file} {name}: {e}"));
                compiled += 1;
            }
        }
        // Every file holds at least one CRD with a served schema (Contour's holds 5).
        assert!(compiled > 0, "{file}: no CRD schema compiled");
    }
}

/// certgate's generated schema of `kind`.
fn certgate_schema(kind: &str) -> Schema {
    let crd = certgate_api::crd::all()
        .into_iter()
        .map(|crd| serde_json::to_value(&crd).expect("CRD serializes"))
        .find(|crd| crd.pointer("/spec/names/kind").and_then(Value::as_str) == Some(kind))
        .unwrap_or_else(|| panic!("certgate serves {kind}"));
    let (_, schema) = version_schemas(&crd).into_iter().next().expect("a version");
    Schema::compile(&schema).unwrap_or_else(|e| panic!("certgate {kind}: {e}"))
}

#[test]
fn certgate_schemas_accept_what_upstream_accepts_and_reject_the_same_way() {
    for (kind, object) in
        [("CertificateRequest", certificate_request()), ("CertificateRequestPolicy", policy())]
    {
        let schema = certgate_schema(kind);
        let mut validated = object.clone();
        assert_eq!(texts(&schema.validate(&mut validated)), Vec::<String>::new(), "{kind}");
        assert_eq!(validated, object, "{kind}: nothing pruned or defaulted");
    }
    let mut broken = policy();
    broken["spec"]["constraints"]["privateKey"]["algorithm"] = json!("DSA");
    assert_eq!(
        texts(&certgate_schema("CertificateRequestPolicy").validate(&mut broken)),
        [
            r#"spec.constraints.privateKey.algorithm: Unsupported value: "DSA": supported values: "RSA", "ECDSA", "Ed25519""#
        ]
    );
}

#[test]
fn every_certgate_crd_compiles() {
    let crds = certgate_api::crd::all();
    assert_eq!(crds.len(), 2);
    for crd in crds {
        let crd = serde_json::to_value(&crd).expect("CRD serializes");
        let versions = version_schemas(&crd);
        assert!(!versions.is_empty());
        for (name, schema) in versions {
            Schema::compile(&schema).unwrap_or_else(|e| panic!("certgate {name}: {e}"));
        }
    }
}

fn certificate_request() -> Value {
    json!({
        "apiVersion": "cert-manager.io/v1",
        "kind": "CertificateRequest",
        "metadata": {"name": "cr-1", "namespace": "default", "labels": {"a": "b"}},
        "spec": {
            "request": "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0K",
            "issuerRef": {"name": "ca", "kind": "Issuer", "group": "cert-manager.io"},
            "duration": "2160h",
            "isCA": false,
            "usages": ["digital signature", "key encipherment"],
            "username": "alice",
            "groups": ["system:authenticated"],
            "extra": {"scopes": ["a", "b"]}
        },
        "status": {
            "conditions": [
                {"type": "Approved", "status": "True", "reason": "policy.cert-manager.io", "message": "ok",
                 "lastTransitionTime": "2026-01-02T03:04:05Z"},
                {"type": "Ready", "status": "False", "reason": "Pending", "message": "waiting"}
            ]
        }
    })
}

#[test]
fn cert_manager_certificate_request_validates_cleanly() {
    let schema = upstream_schema("cert-manager.io_certificaterequests.yaml", "CertificateRequest");
    let mut object = certificate_request();
    let original = object.clone();
    assert_eq!(texts(&schema.validate(&mut object)), Vec::<String>::new());
    assert_eq!(object, original, "nothing pruned or defaulted");
}

#[test]
fn broken_certificate_requests_give_the_api_servers_errors() {
    let schema = upstream_schema("cert-manager.io_certificaterequests.yaml", "CertificateRequest");
    let mut object = certificate_request();
    object["spec"]["isCA"] = json!("yes");
    object["spec"]["usages"] = json!(["digital signature", "teleportation"]);
    object["spec"]["request"] = json!("not base64!");
    object["spec"]["unknownField"] = json!(1);
    object["spec"]["issuerRef"] = json!({"kind": "Issuer"});
    object["status"]["conditions"][1]["type"] = json!("Approved");
    object["status"]["conditions"][1]["status"] = json!("Maybe");
    let errors = schema.validate(&mut object);
    assert_eq!(object["spec"].get("unknownField"), None, "unknown field pruned");
    assert_eq!(
        texts(&errors),
        [
            r#"spec.isCA: Invalid value: "string": spec.isCA in body must be of type boolean: "string""#,
            r#"spec.issuerRef.name: Required value"#,
            r#"spec.request: Invalid value: "not base64!": spec.request in body must be of type byte: "not base64!""#,
            r#"spec.usages[1]: Unsupported value: "teleportation": supported values: "signing", "digital signature", "content commitment", "key encipherment", "key agreement", "data encipherment", "cert sign", "crl sign", "encipher only", "decipher only", "any", "server auth", "client auth", "code signing", "email protection", "s/mime", "ipsec end system", "ipsec tunnel", "ipsec user", "timestamping", "ocsp signing", "microsoft sgc", "netscape sgc""#,
            r#"status.conditions[1].status: Unsupported value: "Maybe": supported values: "True", "False", "Unknown""#,
            r#"status.conditions[1]: Duplicate value: {"type":"Approved"}"#,
        ]
    );
    let message = invalid_message("CertificateRequest", "cert-manager.io", "cr-1", &errors);
    assert!(message.starts_with(r#"CertificateRequest.cert-manager.io "cr-1" is invalid: [spec.isCA: Invalid value: "string": "#), "{message}");
    let causes = causes(&errors);
    assert_eq!(causes[1].reason, "FieldValueRequired");
    assert_eq!(causes[1].field, "spec.issuerRef.name");
    assert_eq!(causes[1].message, "Required value");
    assert_eq!(causes[5].reason, "FieldValueDuplicate");
}

#[test]
fn missing_required_spec_fields() {
    let schema = upstream_schema("cert-manager.io_certificaterequests.yaml", "CertificateRequest");
    let mut object = json!({"apiVersion": "cert-manager.io/v1", "kind": "CertificateRequest",
        "metadata": {"name": "x"}, "spec": {}});
    assert_eq!(
        texts(&schema.validate(&mut object)),
        ["spec.issuerRef: Required value", "spec.request: Required value"]
    );
}

fn policy() -> Value {
    json!({
        "apiVersion": "policy.cert-manager.io/v1alpha1",
        "kind": "CertificateRequestPolicy",
        "metadata": {"name": "allow-example"},
        "spec": {
            "allowed": {
                "commonName": {"value": "*.example.com", "required": true},
                "dnsNames": {"values": ["*.example.com"], "validations": [{"rule": "self.endsWith('.com')", "message": "com only"}]},
                "usages": ["server auth", "client auth"],
                "isCA": false
            },
            "constraints": {"minDuration": "1h", "maxDuration": "24h", "privateKey": {"algorithm": "ECDSA", "minSize": 256}},
            "selector": {"issuerRef": {"name": "ca", "kind": "Issuer", "group": "cert-manager.io"}}
        }
    })
}

#[test]
fn approver_policy_validates_cleanly() {
    let schema = upstream_schema(
        "policy.cert-manager.io_certificaterequestpolicies.yaml",
        "CertificateRequestPolicy",
    );
    let mut object = policy();
    let original = object.clone();
    assert_eq!(texts(&schema.validate(&mut object)), Vec::<String>::new());
    assert_eq!(object, original);
}

#[test]
fn broken_policies_give_the_api_servers_errors() {
    let schema = upstream_schema(
        "policy.cert-manager.io_certificaterequestpolicies.yaml",
        "CertificateRequestPolicy",
    );
    let mut object = policy();
    object["spec"]["constraints"]["privateKey"]["algorithm"] = json!("DSA");
    object["spec"]["constraints"]["privateKey"]["minSize"] = json!("big");
    object["spec"]["allowed"]["dnsNames"]["validations"] = json!([{"message": "no rule"}]);
    object["spec"].as_object_mut().expect("spec").remove("selector");
    assert_eq!(
        texts(&schema.validate(&mut object)),
        [
            r#"spec.allowed.dnsNames.validations[0].rule: Required value"#,
            r#"spec.constraints.privateKey.algorithm: Unsupported value: "DSA": supported values: "RSA", "ECDSA", "Ed25519""#,
            r#"spec.constraints.privateKey.minSize: Invalid value: "string": spec.constraints.privateKey.minSize in body must be of type integer: "string""#,
            r#"spec.selector: Required value"#,
        ]
    );
}
