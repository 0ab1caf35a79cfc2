//! What an `Issuer` and a `ClusterIssuer` share: the issuer configuration of their spec
//! (upstream's `IssuerConfig`, inlined in both specs) and their status.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::condition::{self, Condition};

/// The issuer configuration: exactly one issuer type is set in a valid issuer (cert-manager's
/// webhook checks that; the schema does not).
///
/// `ca` and `selfSigned` are typed. `acme`, `vault` and `venafi` are kept as written: any
/// object decodes, and encodes back unchanged.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct IssuerConfig {
    /// Signs with an ACME server (Let's Encrypt, ...); kept as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::crd::preserved_object")]
    pub acme: Option<Value>,
    /// Signs with a CA whose certificate and key are in a Secret.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ca: Option<CaIssuer>,
    /// Signs each certificate with its own private key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub self_signed: Option<SelfSignedIssuer>,
    /// Signs with HashiCorp Vault's PKI backend; kept as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::crd::preserved_object")]
    pub vault: Option<Value>,
    /// Signs with Venafi TPP or CyberArk Certificate Manager; kept as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::crd::preserved_object")]
    pub venafi: Option<Value>,
}

impl IssuerConfig {
    /// The name of the issuer type that is set (`acme`, `ca`, `selfSigned`, `vault`,
    /// `venafi`), the first in that order when several are; `None` when none is.
    pub fn issuer_type(&self) -> Option<&'static str> {
        let set = [
            ("acme", self.acme.is_some()),
            ("ca", self.ca.is_some()),
            ("selfSigned", self.self_signed.is_some()),
            ("vault", self.vault.is_some()),
            ("venafi", self.venafi.is_some()),
        ];
        set.into_iter().find_map(|(name, is_set)| is_set.then_some(name))
    }
}

/// `spec.ca`: a CA issuer.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CaIssuer {
    /// The Secret (`tls.crt`, `tls.key`) holding the signing CA, in the issuer's namespace
    /// (a `ClusterIssuer`'s: cert-manager's cluster resource namespace).
    pub secret_name: String,
    /// CRL distribution point URLs written into the certificates issued.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-kubernetes-list-type" = "atomic"))]
    pub crl_distribution_points: Option<Vec<String>>,
    /// OCSP server URLs written into the certificates issued.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-kubernetes-list-type" = "atomic"))]
    pub ocsp_servers: Option<Vec<String>>,
    /// URLs of the issuing CA's certificate (Authority Information Access) written into the
    /// certificates issued.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(rename = "issuingCertificateURLs")]
    #[schemars(extend("x-kubernetes-list-type" = "atomic"))]
    pub issuing_certificate_urls: Option<Vec<String>>,
}

/// `spec.selfSigned`: a self-signing issuer.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SelfSignedIssuer {
    /// CRL distribution point URLs written into the certificates issued.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-kubernetes-list-type" = "atomic"))]
    pub crl_distribution_points: Option<Vec<String>>,
}

/// `status` of an `Issuer` or a `ClusterIssuer`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct IssuerStatus {
    /// The ACME account, for an ACME issuer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub acme: Option<AcmeIssuerStatus>,
    /// `Ready`, at most one condition per type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["type"]))]
    pub conditions: Option<Vec<Condition>>,
}

impl IssuerStatus {
    /// The condition of `type_`, if set.
    pub fn condition(&self, type_: &str) -> Option<&Condition> {
        condition::find(self.conditions.as_deref(), type_)
    }

    /// Whether the `Ready` condition is `True`.
    pub fn is_ready(&self) -> bool {
        self.condition(condition::condition_type::READY).is_some_and(Condition::is_true)
    }
}

/// `status.acme`: the ACME account the issuer registered.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AcmeIssuerStatus {
    /// The account's URI on the ACME server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uri: Option<String>,
    /// The email address the account was registered with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_registered_email: Option<String>,
    /// A hash of the account's private key when it was registered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_private_key_hash: Option<String>,
}
