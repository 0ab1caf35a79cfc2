//! `policy.cert-manager.io/v1alpha1` `CertificateRequestPolicy` (approver-policy).
//!
//! Pointer-vs-value distinctions of the Go types are kept: `values: None` (unset) and
//! `values: Some(vec![])` behave differently during evaluation, so both are `Option`.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::certificate_request::KEY_USAGES;

pub const GROUP: &str = "policy.cert-manager.io";

/// Spec of a `CertificateRequestPolicy`: which requests it applies to (`selector`) and what
/// those requests may contain (`allowed`, `constraints`, `plugins`).
#[allow(
    clippy::duplicated_attributes,
    reason = "each `printcolumn(...)` repeats `type_`, which clippy mistakes for a duplicate"
)]
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[kube(
    group = "policy.cert-manager.io",
    version = "v1alpha1",
    kind = "CertificateRequestPolicy",
    plural = "certificaterequestpolicies",
    shortname = "crp",
    category = "cert-manager",
    status = "CertificateRequestPolicyStatus",
    doc = "A policy profile deciding whether the CertificateRequests it selects, made by \
           requesters bound to it through RBAC (verb `use`), are approved or denied.",
    printcolumn(
        name = "Ready",
        type_ = "string",
        description = "Whether the policy is ready to evaluate requests.",
        json_path = r#".status.conditions[?(@.type == "Ready")].status"#
    ),
    printcolumn(
        name = "Age",
        type_ = "date",
        description = "Time since the policy was created.",
        json_path = ".metadata.creationTimestamp"
    )
)]
#[serde(rename_all = "camelCase")]
pub struct CertificateRequestPolicySpec {
    /// What a request may contain. A request may ask for less than allowed, never more; an
    /// omitted field means the request must leave that attribute empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowed: Option<Allowed>,
    /// Conditions a request must satisfy. An omitted field imposes nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub constraints: Option<Constraints>,
    /// Configuration of compiled-in approver plugins, by plugin name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plugins: Option<BTreeMap<String, PluginData>>,
    /// Which requests the policy applies to. At least one of `issuerRef` or `namespace` must
    /// be set; `{}` on either matches everything.
    pub selector: Selector,
}

/// `spec.allowed`: the attributes a request may carry. Omitted fields must be empty.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Allowed {
    /// The Subject common name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub common_name: Option<AllowedString>,
    /// DNS subject alternative names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dns_names: Option<AllowedStringSlice>,
    /// IP address subject alternative names, in Go `net.IP` text form.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ip_addresses: Option<AllowedStringSlice>,
    /// URI subject alternative names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uris: Option<AllowedStringSlice>,
    /// Email address subject alternative names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email_addresses: Option<AllowedStringSlice>,
    /// otherName subject alternative names, one entry per OID; OIDs not listed are denied.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["oid"]))]
    pub other_names: Option<Vec<AllowedOtherName>>,
    /// `true` lets a request ask for a CA certificate; otherwise it must not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(rename = "isCA")]
    pub is_ca: Option<bool>,
    /// Key usages a request may ask for. Unset or `[]` allows none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("items" = { "type": "string", "enum": KEY_USAGES }))]
    pub usages: Option<Vec<String>>,
    /// Subject attributes other than the common name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<AllowedSubject>,
}

/// `spec.allowed.subject`: allowed Subject attributes.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AllowedSubject {
    /// Organizations (O).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub organizations: Option<AllowedStringSlice>,
    /// Countries (C).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub countries: Option<AllowedStringSlice>,
    /// Organizational units (OU).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub organizational_units: Option<AllowedStringSlice>,
    /// Localities (L).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub localities: Option<AllowedStringSlice>,
    /// Provinces or states (ST).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provinces: Option<AllowedStringSlice>,
    /// Street addresses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub street_addresses: Option<AllowedStringSlice>,
    /// Postal codes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub postal_codes: Option<AllowedStringSlice>,
    /// The Subject serial number attribute.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub serial_number: Option<AllowedString>,
    /// Subject attributes without a dedicated field, one entry per OID; OIDs not listed are denied.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["oid"]))]
    pub other_attributes: Option<Vec<AllowedOtherAttribute>>,
}

/// A CEL rule every value of an allowed attribute must pass.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
pub struct ValidationRule {
    /// CEL expression returning a bool. `self` is the attribute value; `cr` holds the
    /// request's `name`, `namespace`, `username` and `groups`.
    pub rule: String,
    /// Message shown when the rule returns false. When unset the message is
    /// `failed rule: <rule>`; an explicit empty message is shown as empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// An allowed single-valued attribute (`commonName`, `subject.serialNumber`).
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
pub struct AllowedString {
    /// Wildcard pattern (`*`) the value must match when set. `value: ""` with `required:
    /// true` never matches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// `true`: the request must carry a non-empty value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
    /// CEL rules every requested value must pass.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["rule"]))]
    pub validations: Option<Vec<ValidationRule>>,
}

/// An allowed multi-valued attribute (`dnsNames`, `uris`, subject slices, ...).
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
pub struct AllowedStringSlice {
    /// Wildcard patterns (`*`); every requested value must match one of them when set.
    /// `values: []` allows nothing, which is not the same as unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<String>>,
    /// `true`: the request must carry at least one value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
    /// CEL rules every requested value must pass.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["rule"]))]
    pub validations: Option<Vec<ValidationRule>>,
}

/// `spec.allowed.otherNames[]`: a SAN otherName type by OID.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
pub struct AllowedOtherName {
    /// Canonical dotted object identifier, e.g. `1.3.6.1.4.1.311.20.2.3`.
    pub oid: String,
    /// Wildcard patterns (`*`); every requested value must match one of them when set.
    /// `values: []` allows nothing, which is not the same as unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<String>>,
    /// `true`: the request must carry at least one value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
    /// CEL rules every requested value must pass.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["rule"]))]
    pub validations: Option<Vec<ValidationRule>>,
}

/// `spec.allowed.subject.otherAttributes[]`: a Subject RDN without a named field, by OID.
pub type AllowedOtherAttribute = AllowedOtherName;

/// `spec.constraints`: conditions a request must satisfy.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Constraints {
    /// Inclusive minimum requested duration, as a Go duration string (e.g. `1h`). When set,
    /// the request must specify a duration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_duration: Option<String>,
    /// Inclusive maximum requested duration, as a Go duration string (e.g. `2160h`). When
    /// set, the request must specify a duration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_duration: Option<String>,
    /// Constraints on the request's public key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub private_key: Option<PrivateKeyConstraints>,
}

/// `spec.constraints.privateKey`: constraints on the request's public key.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PrivateKeyConstraints {
    /// The key algorithm the request must use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub algorithm: Option<PrivateKeyAlgorithm>,
    /// Inclusive minimum key size in bits (RSA modulus or ECDSA curve size).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(transform = crate::crd::go_int)]
    pub min_size: Option<i64>,
    /// Inclusive maximum key size in bits (RSA modulus or ECDSA curve size).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(transform = crate::crd::go_int)]
    pub max_size: Option<i64>,
}

/// A private key algorithm: `RSA`, `ECDSA` or `Ed25519`.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, JsonSchema)]
pub enum PrivateKeyAlgorithm {
    #[serde(rename = "RSA")]
    Rsa,
    #[serde(rename = "ECDSA")]
    Ecdsa,
    #[serde(rename = "Ed25519")]
    Ed25519,
}

/// `spec.plugins.<name>`: configuration of one approver plugin.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
pub struct PluginData {
    /// Key-value settings the plugin understands.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<BTreeMap<String, String>>,
}

/// `spec.selector`: which requests the policy applies to.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Selector {
    /// Match requests by the issuer they reference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issuer_ref: Option<IssuerRefSelector>,
    /// Match requests by the namespace they were created in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<NamespaceSelector>,
}

/// `spec.selector.issuerRef`: each field is a wildcard pattern; an unset field matches any
/// value.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
pub struct IssuerRefSelector {
    /// Pattern for the request's `spec.issuerRef.name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Pattern for the request's `spec.issuerRef.kind` (`Issuer` when the request leaves it
    /// empty).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Pattern for the request's `spec.issuerRef.group` (`cert-manager.io` when the request
    /// leaves it empty).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
}

/// `spec.selector.namespace`: both fields must match when both are set.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NamespaceSelector {
    /// Wildcard patterns; the request's namespace must match one of them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub match_names: Option<Vec<String>>,
    /// Labels the request's Namespace must carry. `{}` (as opposed to unset) still requires
    /// the Namespace to exist, and then matches any labels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub match_labels: Option<BTreeMap<String, String>>,
}

/// `status` of a `CertificateRequestPolicy`: only the `Ready` condition is used.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
pub struct CertificateRequestPolicyStatus {
    /// Standard conditions, at most one per type; `Ready` tells whether the policy can be
    /// evaluated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(
        extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["type"]),
        transform = crate::crd::metav1_condition_items
    )]
    pub conditions: Option<Vec<Condition>>,
}
