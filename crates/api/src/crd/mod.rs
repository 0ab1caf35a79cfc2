//! CustomResourceDefinition manifests generated from the Rust types (`certgate crds`).
//!
//! kube derives each CRD from the types; `#[schemars(...)]` attributes on the fields add what
//! upstream declares per field (list types and keys, enums, formats). `finish` then applies
//! what no field attribute can express, so the result matches the upstream CRDs.

mod finish;
mod transform;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::CustomResourceExt;

use crate::{CertificateRequest, CertificateRequestPolicy};
use finish::{RootSpec, finish};
pub(crate) use transform::{
    certificate_request_spec_required, go_int, issuer_reference_required, metav1_condition_items,
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
