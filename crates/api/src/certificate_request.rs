//! `cert-manager.io/v1` `CertificateRequest`.

use std::collections::BTreeMap;

use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The group every cert-manager resource lives in; also the default `issuerRef.group`.
pub const GROUP: &str = "cert-manager.io";

/// Spec of a cert-manager `CertificateRequest`.
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
    status = "CertificateRequestStatus"
)]
#[serde(rename_all = "camelCase")]
pub struct CertificateRequestSpec {
    /// Requested certificate lifetime as a Go duration string (e.g. `2160h`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration: Option<String>,
    /// Reference to the issuer that should sign the request.
    pub issuer_ref: IssuerReference,
    /// PEM (or DER) PKCS#10 request, base64-encoded in JSON/YAML.
    #[serde(with = "base64_bytes")]
    #[schemars(with = "String")]
    pub request: Vec<u8>,
    /// Whether the requested certificate is a CA.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(rename = "isCA")]
    pub is_ca: Option<bool>,
    /// Requested key usages (cert-manager key-usage names, e.g. `server auth`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usages: Option<Vec<String>>,
    /// Requester username, stamped by the admission webhook.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub username: Option<String>,
    /// Requester UID, stamped by the admission webhook.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uid: Option<String>,
    /// Requester groups, stamped by the admission webhook.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub groups: Option<Vec<String>>,
    /// Requester extra attributes, stamped by the admission webhook.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra: Option<BTreeMap<String, Vec<String>>>,
}

/// `spec.issuerRef`: name, kind and group of an issuer.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
pub struct IssuerReference {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
}

/// Status of a `CertificateRequest`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CertificateRequestStatus {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conditions: Option<Vec<CertificateRequestCondition>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub certificate: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ca: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_time: Option<String>,
}

/// One entry of `status.conditions` (`Approved`, `Denied`, `Ready`, `InvalidRequest`).
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CertificateRequestCondition {
    #[serde(rename = "type")]
    pub type_: String,
    pub status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_transition_time: Option<String>,
}

/// Base64 for `format: byte` fields, as Kubernetes encodes `[]byte`.
mod base64_bytes {
    // Filled in by the api crate owner (standard alphabet, padded; accept missing padding).
    pub fn serialize<S: serde::Serializer>(_v: &[u8], _s: S) -> Result<S::Ok, S::Error> {
        todo!("base64 encode")
    }
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(_d: D) -> Result<Vec<u8>, D::Error> {
        todo!("base64 decode")
    }
}
