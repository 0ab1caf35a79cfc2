//! approver-policy, as pure functions: which policies apply to a CertificateRequest, what
//! each evaluator finds, and the Approved / Denied / Unprocessed decision with upstream's
//! exact messages. No I/O: namespaces and RBAC come in through traits.
#![forbid(unsafe_code)]

use std::collections::BTreeMap;

use certgate_api::{CertificateRequest, CertificateRequestPolicy};
use certgate_pki::{CsrError, DecodedCsr};

/// A request under review, with its CSR decoded once (outside the per-policy loop).
pub struct Request<'a> {
    pub cr: &'a CertificateRequest,
    pub csr: Result<&'a DecodedCsr, &'a CsrError>,
}

/// Whether a policy takes part in evaluation (from its `Ready` condition in a cluster, or
/// from the admission checks offline).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Readiness {
    /// `Ready=True`.
    Ready,
    /// `Ready=False` (or Unknown), with the reason.
    NotReady(String),
    /// No `Ready` condition at all: the review refuses to deny while such a policy matches.
    Unreconciled,
}

/// A policy with its readiness.
pub struct PolicyEntry<'a> {
    pub policy: &'a CertificateRequestPolicy,
    pub readiness: Readiness,
}

/// Namespace labels, for `selector.namespace.matchLabels`. `Err` carries the reason the
/// Namespace could not be read (NotFound included), rendered into the review error.
pub trait NamespaceLookup {
    fn labels(&self, namespace: &str) -> Result<BTreeMap<String, String>, String>;
}
