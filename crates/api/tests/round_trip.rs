//! Upstream-style manifests deserialize into the Rust types and serialize back to the same
//! JSON: no field is lost, renamed or defaulted on the way.

use certgate_api::policy::{
    AllowedStringSlice, CertificateRequestPolicySpec, PrivateKeyAlgorithm, ValidationRule,
};
use certgate_api::{CertificateRequest, CertificateRequestPolicy};
use pretty_assertions::assert_eq;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

const CERTIFICATE_REQUEST: &str = include_str!("fixtures/certificaterequest.yaml");
const POLICY: &str = include_str!("fixtures/certificaterequestpolicy.yaml");

/// Parses `yaml` into `T` and checks that `T` serializes to exactly the manifest's JSON.
fn round_trip<T: DeserializeOwned + Serialize>(yaml: &str) -> T {
    let typed: T = serde_saphyr::from_str(yaml).expect("manifest parses into the Rust type");
    let original: Value = serde_saphyr::from_str(yaml).expect("manifest parses as JSON");
    let reserialized = serde_json::to_value(&typed).expect("type serializes");
    assert_eq!(reserialized, original);
    typed
}

#[test]
fn certificate_request_keeps_every_field() {
    let cr: CertificateRequest = round_trip(CERTIFICATE_REQUEST);
    let spec = &cr.spec;
    assert!(spec.request.starts_with(b"-----BEGIN CERTIFICATE REQUEST-----\n"));
    assert_eq!(spec.is_ca, Some(false));
    assert_eq!(spec.issuer_ref.kind.as_deref(), Some("ClusterIssuer"));
    assert_eq!(spec.usages.as_ref().map(Vec::len), Some(3));
    let extra = spec.extra.as_ref().expect("extra");
    assert_eq!(extra.get("scopes"), Some(&vec!["read".to_owned(), "write".to_owned()]));
    let status = cr.status.as_ref().expect("status");
    let conditions = status.conditions.as_deref().unwrap_or_default();
    let types: Vec<_> = conditions.iter().map(|c| c.type_.as_str()).collect();
    assert_eq!(types, ["Approved", "Ready"]);
    assert_eq!(status.failure_time.as_deref(), Some("2025-03-01T11:00:00Z"));
}

#[test]
fn certificate_request_policy_keeps_every_field() {
    let policy: CertificateRequestPolicy = round_trip(POLICY);
    let allowed = policy.spec.allowed.as_ref().expect("allowed");
    // `values: []` allows nothing; unset `values` defers to validations. Both survive.
    assert_eq!(
        allowed.dns_names,
        Some(AllowedStringSlice { values: Some(vec![]), required: Some(false), validations: None })
    );
    assert_eq!(allowed.uris.as_ref().and_then(|u| u.values.as_ref()), None);
    let other_name = allowed.other_names.as_deref().unwrap_or_default();
    assert_eq!(
        other_name.first().and_then(|o| o.validations.as_deref()),
        Some(
            &[ValidationRule {
                rule: "self.endsWith('@example.com')".into(),
                message: Some(String::new()),
            }][..]
        )
    );
    let key = policy.spec.constraints.as_ref().and_then(|c| c.private_key.as_ref());
    assert_eq!(key.and_then(|k| k.algorithm), Some(PrivateKeyAlgorithm::Ecdsa));
    let ready = policy.status.as_ref().and_then(|s| s.conditions.as_deref()).unwrap_or_default();
    assert_eq!(ready.first().and_then(|c| c.observed_generation), Some(3));
}

#[test]
fn empty_and_unset_lists_stay_distinct() {
    let spec: CertificateRequestPolicySpec = serde_json::from_value(json!({
        "selector": {"namespace": {"matchLabels": {}}},
        "allowed": {"dnsNames": {"values": []}, "uris": {"required": true}, "usages": []},
    }))
    .expect("spec parses");
    let allowed = spec.allowed.as_ref().expect("allowed");
    assert_eq!(allowed.dns_names.as_ref().and_then(|d| d.values.as_deref()), Some(&[][..]));
    assert_eq!(allowed.uris.as_ref().map(|u| u.values.is_none()), Some(true));
    assert_eq!(allowed.usages.as_deref(), Some(&[][..]));
    let match_labels = spec.selector.namespace.as_ref().and_then(|n| n.match_labels.as_ref());
    assert_eq!(match_labels.map(|m| m.is_empty()), Some(true));
    assert_eq!(
        serde_json::to_value(&spec).expect("serializes"),
        json!({
            "allowed": {"dnsNames": {"values": []}, "uris": {"required": true}, "usages": []},
            "selector": {"namespace": {"matchLabels": {}}},
        })
    );
}

#[test]
fn explicit_null_reads_as_unset() {
    // Neither CRD is nullable, so the API server drops explicit nulls before anything reads
    // them; where a null does reach the types, it means the same as an absent field.
    let spec: CertificateRequestPolicySpec = serde_json::from_value(json!({
        "selector": {"issuerRef": {"name": null}},
        "allowed": {"dnsNames": {"values": null}, "commonName": {"validations": [{"rule": "true", "message": null}]}},
    }))
    .expect("spec parses");
    let allowed = spec.allowed.expect("allowed");
    assert_eq!(allowed.dns_names.and_then(|d| d.values), None);
    let rule = allowed.common_name.and_then(|c| c.validations).unwrap_or_default();
    assert_eq!(rule.first().and_then(|r| r.message.as_deref()), None);
}

#[test]
fn unknown_algorithm_is_rejected() {
    let err = serde_json::from_value::<CertificateRequestPolicySpec>(json!({
        "selector": {},
        "constraints": {"privateKey": {"algorithm": "DSA"}},
    }))
    .expect_err("DSA is not an algorithm")
    .to_string();
    assert!(
        err.contains("unknown variant `DSA`, expected one of `RSA`, `ECDSA`, `Ed25519`"),
        "{err}"
    );
}
