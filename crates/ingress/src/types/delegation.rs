//! `projectcontour.io/v1` `TLSCertificateDelegation`.

use serde::{Deserialize, Serialize};

use super::{Extra, ObjectMeta};

/// Grants namespaces the right to reference Secrets of the delegation's own namespace.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TlsCertificateDelegation {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: TlsCertificateDelegationSpec,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `spec` of a [`TlsCertificateDelegation`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TlsCertificateDelegationSpec {
    #[serde(default)]
    pub delegations: Vec<CertificateDelegation>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// One delegated Secret and the namespaces allowed to use it (`["*"]` means all).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CertificateDelegation {
    #[serde(default)]
    pub secret_name: String,
    #[serde(default)]
    pub target_namespaces: Vec<String>,
    #[serde(flatten)]
    pub extra: Extra,
}
