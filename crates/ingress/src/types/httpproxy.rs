//! `projectcontour.io/v1` `HTTPProxy`.
//!
//! The fields Contour's TLS processing reads are typed; everything else (rate limits, CORS,
//! header policies, …) is kept verbatim in `extra` so real-world objects parse and round-trip.
//! Booleans are `Option<bool>` because a round trip must not add `false` fields a user never
//! wrote; the accessor methods give Go's zero-value semantics.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Extra, HttpProxyStatus, ObjectMeta};

/// An `HTTPProxy` object.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HttpProxy {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: HttpProxySpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<HttpProxyStatus>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `spec` of an [`HttpProxy`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HttpProxySpec {
    /// Present only on root proxies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub virtualhost: Option<VirtualHost>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub routes: Option<Vec<Route>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub includes: Option<Vec<Include>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tcpproxy: Option<TcpProxy>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ingress_class_name: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `spec.virtualhost`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VirtualHost {
    #[serde(default)]
    pub fqdn: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls: Option<Tls>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization: Option<AuthorizationServer>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jwt_providers: Option<Vec<Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ip_allow_policy: Option<Vec<Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ip_deny_policy: Option<Vec<Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cors_policy: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_limit_policy: Option<Value>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `spec.virtualhost.tls`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tls {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minimum_protocol_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maximum_protocol_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub passthrough: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_validation: Option<DownstreamValidation>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enable_fallback_certificate: Option<bool>,
    #[serde(flatten)]
    pub extra: Extra,
}

impl Tls {
    pub fn secret_name(&self) -> &str {
        self.secret_name.as_deref().unwrap_or("")
    }
    pub fn passthrough(&self) -> bool {
        self.passthrough.unwrap_or(false)
    }
    pub fn enable_fallback_certificate(&self) -> bool {
        self.enable_fallback_certificate.unwrap_or(false)
    }
}

/// `spec.virtualhost.tls.clientValidation` (Go `DownstreamValidation`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DownstreamValidation {
    /// Go `CACertificate`; may be `namespace/name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ca_secret: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skip_client_cert_validation: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forward_client_certificate: Option<ClientCertificateDetails>,
    /// Go `CertificateRevocationList`; may be `namespace/name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crl_secret: Option<String>,
    /// Go `OnlyVerifyLeafCertCrl`; note the JSON name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crl_only_verify_leaf_cert: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub optional_client_certificate: Option<bool>,
    #[serde(flatten)]
    pub extra: Extra,
}

impl DownstreamValidation {
    pub fn ca_secret(&self) -> &str {
        self.ca_secret.as_deref().unwrap_or("")
    }
    pub fn crl_secret(&self) -> &str {
        self.crl_secret.as_deref().unwrap_or("")
    }
    pub fn skip_client_cert_validation(&self) -> bool {
        self.skip_client_cert_validation.unwrap_or(false)
    }
    pub fn crl_only_verify_leaf_cert(&self) -> bool {
        self.crl_only_verify_leaf_cert.unwrap_or(false)
    }
    pub fn optional_client_certificate(&self) -> bool {
        self.optional_client_certificate.unwrap_or(false)
    }
}

/// `forwardClientCertificate`: which parts of the client certificate go upstream (XFCC).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ClientCertificateDetails {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cert: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chain: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dns: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uri: Option<bool>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `spec.virtualhost.authorization` (external authorization server).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuthorizationServer {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extension_ref: Option<ExtensionServiceReference>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// Reference to an `ExtensionService`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExtensionServiceReference {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// One entry of `spec.routes`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Route {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conditions: Option<Vec<MatchCondition>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub services: Option<Vec<Service>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enable_websockets: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permit_insecure: Option<bool>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// A path or header match condition of a route or include.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MatchCondition {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exact: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regex: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query_parameter: Option<Value>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// An upstream Kubernetes Service of a route or TCP proxy.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Service {
    #[serde(default)]
    pub name: String,
    /// Kept as JSON so out-of-range numbers from hostile manifests still parse.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mirror: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub validation: Option<Value>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// Delegation of a path prefix (or the whole TCP proxy) to another `HTTPProxy`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Include {
    #[serde(default)]
    pub name: String,
    /// Defaults to the including proxy's namespace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conditions: Option<Vec<MatchCondition>>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// `spec.tcpproxy`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TcpProxy {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub services: Option<Vec<Service>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include: Option<Include>,
    /// Deprecated spelling of `include`, still accepted by Contour.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub includes: Option<Include>,
    #[serde(flatten)]
    pub extra: Extra,
}

impl HttpProxy {
    /// Reads an `HTTPProxy` from a manifest value.
    pub fn from_value(value: &Value) -> Result<Self, crate::IngressError> {
        HttpProxy::deserialize(value).map_err(|err| crate::IngressError::InvalidObject {
            kind: "HTTPProxy",
            message: err.to_string(),
        })
    }

    pub fn namespace(&self) -> &str {
        self.metadata.namespace()
    }

    pub fn name(&self) -> &str {
        self.metadata.name()
    }
}

impl super::TlsCertificateDelegation {
    /// Reads a `TLSCertificateDelegation` from a manifest value.
    pub fn from_value(value: &Value) -> Result<Self, crate::IngressError> {
        super::TlsCertificateDelegation::deserialize(value).map_err(|err| {
            crate::IngressError::InvalidObject {
                kind: "TLSCertificateDelegation",
                message: err.to_string(),
            }
        })
    }
}
