//! Typed views of the Kubernetes objects Contour reads: `HTTPProxy`, `TLSCertificateDelegation`
//! (both `projectcontour.io/v1`), core `Secret`, and input-only views of `Service` and
//! `EndpointSlice`.
//!
//! Every struct keeps the fields it does not model in `extra`, so a parsed object serializes
//! back to exactly what was read (unknown and future fields survive a round trip).

mod delegation;
mod httpproxy;
mod meta;
mod secret;
mod service;
mod status;

pub use delegation::{
    CertificateDelegation, TlsCertificateDelegation, TlsCertificateDelegationSpec,
};
pub use httpproxy::{
    AuthorizationServer, ClientCertificateDetails, DownstreamValidation, ExtensionServiceReference,
    HttpProxy, HttpProxySpec, Include, MatchCondition, Route, Service, TcpProxy, Tls, VirtualHost,
};
pub use meta::ObjectMeta;
pub use secret::Secret;
pub use service::{
    Endpoint, EndpointPort, EndpointSlice, KubeService, SERVICE_NAME_LABEL, ServicePort,
};
pub use status::{DetailedCondition, HttpProxyStatus, SubCondition};

/// Fields a struct does not model, kept in their original order.
pub type Extra = serde_json::Map<String, serde_json::Value>;
