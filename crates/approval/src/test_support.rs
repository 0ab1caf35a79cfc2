//! Builders shared by the unit tests: requests, decoded CSRs and policies written as JSON
//! (the shape users write), so each table row reads like the manifest it stands for.

use certgate_api::policy::CertificateRequestPolicySpec;
use certgate_api::{
    CertificateRequest, CertificateRequestPolicy, CertificateRequestSpec, IssuerReference,
};
use certgate_pki::{
    AttributeValue, DecodedCsr, KeyAlgorithm, OtherName, PublicKeyInfo, SanEntries,
    SubjectAttribute,
};

/// A CR `team-a/req` from `alice` for Issuer `ca`.
pub(crate) fn cr() -> CertificateRequest {
    let mut cr = CertificateRequest::new(
        "req",
        CertificateRequestSpec {
            issuer_ref: IssuerReference { name: "ca".into(), ..Default::default() },
            username: Some("alice".into()),
            groups: Some(vec!["dev".into()]),
            ..Default::default()
        },
    );
    cr.metadata.namespace = Some("team-a".into());
    cr
}

/// An empty ECDSA P-256 CSR: no subject, no SANs.
pub(crate) fn csr() -> DecodedCsr {
    DecodedCsr {
        subject: Vec::new(),
        san: SanEntries::default(),
        san_extension_count: 0,
        san_decode_error: None,
        public_key: PublicKeyInfo { algorithm: KeyAlgorithm::Ecdsa, size: 256 },
        basic_constraints_ca: None,
        key_usages: Vec::new(),
        ext_key_usages: Vec::new(),
        usage_extensions_present: false,
    }
}

/// A Subject attribute; `None` is a non-string value.
pub(crate) fn rdn(oid: &str, value: Option<&str>) -> SubjectAttribute {
    SubjectAttribute {
        oid: oid.to_owned(),
        value: value.map_or(AttributeValue::NonString, |v| AttributeValue::String(v.to_owned())),
    }
}

pub(crate) fn other_name(oid: &str, value: &str) -> OtherName {
    OtherName { oid: oid.to_owned(), value: value.to_owned() }
}

/// Strings from literals.
pub(crate) fn strings(values: &[&str]) -> Vec<String> {
    values.iter().map(|v| (*v).to_owned()).collect()
}

/// A policy from its `spec` as JSON; `selector` defaults to `issuerRef: {}`.
pub(crate) fn policy(name: &str, spec: serde_json::Value) -> CertificateRequestPolicy {
    let spec: CertificateRequestPolicySpec =
        serde_json::from_value(with_default_selector(spec)).expect("test policy spec is valid");
    CertificateRequestPolicy::new(name, spec)
}

fn with_default_selector(mut spec: serde_json::Value) -> serde_json::Value {
    if let Some(object) = spec.as_object_mut() {
        object.entry("selector").or_insert_with(|| serde_json::json!({"issuerRef": {}}));
    }
    spec
}
