//! `cert-manager.io/v1` `CertificateRequest`.

use std::collections::BTreeMap;

use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The group every cert-manager resource lives in; also the default `issuerRef.group`.
pub const GROUP: &str = "cert-manager.io";

/// The key usage names cert-manager accepts in `spec.usages` (and approver-policy in
/// `spec.allowed.usages`), in the order the upstream CRD enum lists them.
pub const KEY_USAGES: [&str; 23] = [
    "signing",
    "digital signature",
    "content commitment",
    "key encipherment",
    "key agreement",
    "data encipherment",
    "cert sign",
    "crl sign",
    "encipher only",
    "decipher only",
    "any",
    "server auth",
    "client auth",
    "code signing",
    "email protection",
    "s/mime",
    "ipsec end system",
    "ipsec tunnel",
    "ipsec user",
    "timestamping",
    "ocsp signing",
    "microsoft sgc",
    "netscape sgc",
];

/// Spec of a cert-manager `CertificateRequest`: a one-off request to an issuer to sign a CSR.
/// The spec is immutable once created.
#[allow(
    clippy::duplicated_attributes,
    reason = "each `printcolumn(...)` repeats `type_`, which clippy mistakes for a duplicate"
)]
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[kube(
    group = "cert-manager.io",
    version = "v1",
    kind = "CertificateRequest",
    plural = "certificaterequests",
    namespaced,
    shortname = "cr",
    shortname = "crs",
    category = "cert-manager",
    status = "CertificateRequestStatus",
    doc = "A request to one of the configured issuers to sign a certificate signing request. \
           Succeeds or fails once; see the Ready condition and status.failureTime.",
    printcolumn(
        name = "Approved",
        type_ = "string",
        json_path = r#".status.conditions[?(@.type == "Approved")].status"#
    ),
    printcolumn(
        name = "Denied",
        type_ = "string",
        json_path = r#".status.conditions[?(@.type == "Denied")].status"#
    ),
    printcolumn(
        name = "Ready",
        type_ = "string",
        json_path = r#".status.conditions[?(@.type == "Ready")].status"#
    ),
    printcolumn(name = "Issuer", type_ = "string", json_path = ".spec.issuerRef.name"),
    printcolumn(name = "Requester", type_ = "string", json_path = ".spec.username"),
    printcolumn(
        name = "Status",
        type_ = "string",
        priority = 1,
        json_path = r#".status.conditions[?(@.type == "Ready")].message"#
    ),
    printcolumn(
        name = "Age",
        type_ = "date",
        description = "Time since the object was created.",
        json_path = ".metadata.creationTimestamp"
    ),
    selectable = ".spec.issuerRef.group",
    selectable = ".spec.issuerRef.kind",
    selectable = ".spec.issuerRef.name"
)]
#[serde(rename_all = "camelCase")]
#[schemars(transform = crate::crd::certificate_request_spec_required)]
pub struct CertificateRequestSpec {
    /// Requested certificate lifetime as a Go duration string (e.g. `2160h`); issuers may
    /// ignore it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration: Option<String>,
    /// The issuer that should sign the request. `name` is required; `kind` defaults to
    /// `Issuer` and `group` to `cert-manager.io`.
    ///
    /// Required by the CRD, but decoded as Go decodes it (absent is the zero value): a
    /// request without `spec` passes the CRD, and cert-manager's webhook, not a decoding
    /// error, must report what is missing.
    #[serde(default)]
    pub issuer_ref: IssuerReference,
    /// The PEM-encoded PKCS#10 certificate signing request (base64 in JSON and YAML). Its
    /// basic constraints and key usages must agree with `isCA` and `usages`.
    #[serde(default, with = "base64_bytes")]
    #[schemars(with = "String", extend("format" = "byte"))]
    pub request: Vec<u8>,
    /// Whether the requested certificate is a CA; issuers may ignore it. `true` implies the
    /// `cert sign` usage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(rename = "isCA")]
    pub is_ca: Option<bool>,
    /// Requested key usages and extended key usages (e.g. `server auth`). Unset means
    /// `digital signature` and `key encipherment`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend(
        "x-kubernetes-list-type" = "atomic",
        "items" = { "type": "string", "enum": KEY_USAGES }
    ))]
    pub usages: Option<Vec<String>>,
    /// Name of the user who created the request; set by the admission webhook, immutable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub username: Option<String>,
    /// UID of the user who created the request; set by the admission webhook, immutable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uid: Option<String>,
    /// Groups of the user who created the request; set by the admission webhook, immutable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-kubernetes-list-type" = "atomic"))]
    pub groups: Option<Vec<String>>,
    /// Extra attributes of the user who created the request; set by the admission webhook,
    /// immutable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra: Option<BTreeMap<String, Vec<String>>>,
}

/// `spec.issuerRef`: name, kind and group of an issuer.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[schemars(transform = crate::crd::issuer_reference_required)]
pub struct IssuerReference {
    /// Name of the issuer. Required by the CRD; absent decodes as empty (Go's zero value).
    #[serde(default)]
    pub name: String,
    /// Kind of the issuer; `Issuer` when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// API group of the issuer; `cert-manager.io` when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
}

/// Status of a `CertificateRequest`, written by controllers.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CertificateRequestStatus {
    /// Conditions, at most one per type: `Ready`, `InvalidRequest`, `Approved`, `Denied`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["type"]))]
    pub conditions: Option<Vec<CertificateRequestCondition>>,
    /// The signed PEM certificate, base64-encoded as stored (`format: byte`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("format" = "byte"))]
    pub certificate: Option<String>,
    /// The PEM certificate of the signing CA when the issuer reports it, base64-encoded as
    /// stored (`format: byte`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("format" = "byte"))]
    pub ca: Option<String>,
    /// When the request failed (RFC 3339); drives garbage collection and back-off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("format" = "date-time"))]
    pub failure_time: Option<String>,
}

/// One entry of `status.conditions` (`Approved`, `Denied`, `Ready`, `InvalidRequest`).
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CertificateRequestCondition {
    /// Condition type: `Ready`, `InvalidRequest`, `Approved` or `Denied`.
    #[serde(rename = "type")]
    pub type_: String,
    /// `True`, `False` or `Unknown`.
    #[schemars(extend("enum" = ["True", "False", "Unknown"]))]
    pub status: String,
    /// Machine-readable reason for the last transition.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Human-readable details of the last transition.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// When the status last changed (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("format" = "date-time"))]
    pub last_transition_time: Option<String>,
}

/// Base64 for `format: byte` fields, as Kubernetes encodes `[]byte`: standard alphabet,
/// padded on output. Input may omit the padding, and line breaks are skipped as Go's
/// decoder skips them, so PEM-style wrapped base64 from hand-written manifests parses.
pub mod manual;

mod base64_bytes {
    use base64::Engine as _;
    use base64::alphabet::STANDARD;
    use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
    use base64::engine::{DecodePaddingMode, general_purpose};
    use serde::Deserialize as _;
    use serde::de::Error as _;

    const LENIENT: GeneralPurpose = GeneralPurpose::new(
        &STANDARD,
        GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
    );

    pub fn serialize<S: serde::Serializer>(v: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&general_purpose::STANDARD.encode(v))
    }

    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        let text = String::deserialize(d)?;
        let compact: String = text.chars().filter(|c| !matches!(c, '\r' | '\n')).collect();
        LENIENT.decode(compact).map_err(|e| {
            D::Error::custom(format_args!(
                "invalid base64 in a `format: byte` field ({e}); \
                 expected standard base64 (A-Z, a-z, 0-9, '+', '/', optional '=' padding)"
            ))
        })
    }
}

#[cfg(test)]
mod tests;
