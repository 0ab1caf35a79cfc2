//! CustomResourceDefinition manifests generated from the Rust types: [`all`], the ones
//! certgate serves (`certgate crds`), [`ocm`], the Open Cluster Management ones it uses, and
//! [`cert_manager`], cert-manager's other kinds it uses.
//!
//! kube derives each CRD from the types; `#[schemars(...)]` attributes on the fields add what
//! upstream declares per field (list types and keys, enums, formats). `finish` then applies
//! what no field attribute can express, so the result matches the upstream CRDs.

mod finish;
mod ocm_kinds;
mod transform;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::CustomResourceExt;

use crate::cert_manager::{Certificate, ClusterIssuer, Issuer};
use crate::{CertificateRequest, CertificateRequestPolicy};
use finish::{RootSpec, finish};
pub(crate) use transform::{
    atomic_label_selector, certificate_request_spec_required, certificate_spec_required, go_int,
    issuer_reference_required, metav1_condition_items, preserved_object, quantity_values,
    requirement_items_atomic_values,
};

/// Every CRD certgate serves, in a stable order, with the schema details upstream CRDs
/// carry (list types and keys, enums, formats, printer columns).
pub fn all() -> Vec<CustomResourceDefinition> {
    vec![
        // Upstream lets a CertificateRequest omit `spec` at the schema level and reports the
        // missing fields from its webhook instead.
        finish(CertificateRequest::crd(), RootSpec::Optional),
        finish(CertificateRequestPolicy::crd(), RootSpec::Required),
    ]
}

/// The CRDs of the Open Cluster Management kinds in [`crate::ocm`], in a stable order:
/// Policy, PlacementBinding, PolicySet, Placement, PlacementDecision, ManagedCluster,
/// ClusterClaim. certgate reads and writes these kinds but does not serve them: clusters with
/// OCM have upstream's CRDs, and only the sandbox installs these (when absent).
pub fn ocm() -> Vec<CustomResourceDefinition> {
    ocm_kinds::all()
}

/// The CRDs of cert-manager's kinds in [`crate::cert_manager`], in a stable order:
/// Certificate, Issuer, ClusterIssuer. certgate uses these kinds but does not serve them:
/// clusters with cert-manager have upstream's CRDs, and only the sandbox and `certgate dev`
/// install these (when absent). Upstream declares no `default`s outside the issuer types kept
/// as written, so none is kept.
pub fn cert_manager() -> Vec<CustomResourceDefinition> {
    vec![
        // Like a CertificateRequest, a Certificate may omit `spec` at the schema level.
        finish(Certificate::crd(), RootSpec::Optional),
        finish(Issuer::crd(), RootSpec::Required),
        finish(ClusterIssuer::crd(), RootSpec::Required),
    ]
}
