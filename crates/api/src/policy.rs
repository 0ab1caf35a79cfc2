//! `policy.cert-manager.io/v1alpha1` `CertificateRequestPolicy` (approver-policy).
//!
//! Pointer-vs-value distinctions of the Go types are kept: `values: None` (unset) and
//! `values: Some(vec![])` behave differently during evaluation, so both are `Option`.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub const GROUP: &str = "policy.cert-manager.io";

/// Spec of a `CertificateRequestPolicy`.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[kube(
    group = "policy.cert-manager.io",
    version = "v1alpha1",
    kind = "CertificateRequestPolicy",
    plural = "certificaterequestpolicies",
    shortname = "crp",
    category = "cert-manager",
    status = "CertificateRequestPolicyStatus"
)]
#[serde(rename_all = "camelCase")]
pub struct CertificateRequestPolicySpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowed: Option<Allowed>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub constraints: Option<Constraints>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plugins: Option<BTreeMap<String, PluginData>>,
    pub selector: Selector,
}

/// `spec.allowed`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Allowed {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub common_name: Option<AllowedString>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dns_names: Option<AllowedStringSlice>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ip_addresses: Option<AllowedStringSlice>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uris: Option<AllowedStringSlice>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email_addresses: Option<AllowedStringSlice>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub other_names: Option<Vec<AllowedOtherName>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(rename = "isCA")]
    pub is_ca: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usages: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<AllowedSubject>,
}

/// `spec.allowed.subject`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AllowedSubject {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub organizations: Option<AllowedStringSlice>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub countries: Option<AllowedStringSlice>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub organizational_units: Option<AllowedStringSlice>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub localities: Option<AllowedStringSlice>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provinces: Option<AllowedStringSlice>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub street_addresses: Option<AllowedStringSlice>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub postal_codes: Option<AllowedStringSlice>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub serial_number: Option<AllowedString>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub other_attributes: Option<Vec<AllowedOtherAttribute>>,
}

/// A CEL rule attached to an allowed attribute.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
pub struct ValidationRule {
    pub rule: String,
    /// `None` renders as `failed rule: <rule>`; `Some("")` is used as-is (empty detail).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// An allowed single-valued attribute (`commonName`, `subject.serialNumber`).
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
pub struct AllowedString {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub validations: Option<Vec<ValidationRule>>,
}

/// An allowed multi-valued attribute (`dnsNames`, `uris`, subject slices, ...).
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
pub struct AllowedStringSlice {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub validations: Option<Vec<ValidationRule>>,
}

/// `spec.allowed.otherNames[]`: a SAN otherName type by OID.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
pub struct AllowedOtherName {
    pub oid: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub validations: Option<Vec<ValidationRule>>,
}

/// `spec.allowed.subject.otherAttributes[]`: a Subject RDN without a named field, by OID.
pub type AllowedOtherAttribute = AllowedOtherName;

/// `spec.constraints`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Constraints {
    /// Go duration string (`metav1.Duration`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_duration: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_duration: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub private_key: Option<PrivateKeyConstraints>,
}

/// `spec.constraints.privateKey`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PrivateKeyConstraints {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub algorithm: Option<PrivateKeyAlgorithm>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_size: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_size: Option<i64>,
}

/// `spec.constraints.privateKey.algorithm` (CRD enum).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, JsonSchema)]
pub enum PrivateKeyAlgorithm {
    #[serde(rename = "RSA")]
    Rsa,
    #[serde(rename = "ECDSA")]
    Ecdsa,
    #[serde(rename = "Ed25519")]
    Ed25519,
}

/// `spec.plugins.<name>`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
pub struct PluginData {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<BTreeMap<String, String>>,
}

/// `spec.selector`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Selector {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issuer_ref: Option<IssuerRefSelector>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<NamespaceSelector>,
}

/// `spec.selector.issuerRef`: each field is a wildcard pattern; `None` matches anything.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
pub struct IssuerRefSelector {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
}

/// `spec.selector.namespace`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NamespaceSelector {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub match_names: Option<Vec<String>>,
    /// `Some(empty)` still forces a Namespace lookup (and then matches any labels).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub match_labels: Option<BTreeMap<String, String>>,
}

/// `status` of a `CertificateRequestPolicy`: only the `Ready` condition is used.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
pub struct CertificateRequestPolicyStatus {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conditions: Option<Vec<Condition>>,
}
