//! Typed resources of the API groups certgate serves, with field names and JSON shapes
//! identical to upstream so that upstream manifests parse unchanged.
//!
//! - [`certificate_request`]: `cert-manager.io/v1` `CertificateRequest`.
//! - [`cert_manager`]: `cert-manager.io/v1` `Certificate`, `Issuer` and `ClusterIssuer`, the
//!   cert-manager kinds certgate uses; certgate does not serve them.
//! - [`policy`]: `policy.cert-manager.io/v1alpha1` `CertificateRequestPolicy`.
//! - [`field`]: Kubernetes `field.Error` and aggregate rendering, byte-for-byte as apimachinery.
//! - [`gofmt`]: the Go formatting rules those messages depend on (`%q`, JSON, durations).
//! - [`ocm`]: the Open Cluster Management kinds certgate reads and writes (`Policy`,
//!   `PlacementBinding`, `PolicySet`, `Placement`, `PlacementDecision`, `ManagedCluster`,
//!   `ClusterClaim`); certgate does not serve them.
//! - [`crd`]: CustomResourceDefinition manifests generated from the types.
//! - [`validation`]: raw manifests checked against those CRDs, with the API server's errors.
#![forbid(unsafe_code)]

pub mod cert_manager;
pub mod certificate_request;
pub mod crd;
pub mod field;
/// Go formatting rules, re-exported for callers of [`field`].
pub use certgate_gofmt as gofmt;
pub mod ocm;
pub mod policy;
pub mod validation;

pub use certificate_request::{
    CertificateRequest, CertificateRequestCondition, CertificateRequestSpec,
    CertificateRequestStatus, IssuerReference,
};
pub use policy::{CertificateRequestPolicy, CertificateRequestPolicySpec};
