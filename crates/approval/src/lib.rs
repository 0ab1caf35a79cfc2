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

/// The outcome of a review, with upstream's exact message.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "decision", content = "message")]
pub enum Decision {
    Approved(String),
    Denied(String),
    Unprocessed(String),
}

impl Decision {
    /// `Approved`, `Denied` or `Unprocessed`.
    pub fn name(&self) -> &'static str {
        match self {
            Decision::Approved(_) => "Approved",
            Decision::Denied(_) => "Denied",
            Decision::Unprocessed(_) => "Unprocessed",
        }
    }
    pub fn message(&self) -> &str {
        match self {
            Decision::Approved(m) | Decision::Denied(m) | Decision::Unprocessed(m) => m,
        }
    }
}

/// A review that could not complete (the cluster retries it with an `EvaluationError`
/// event), e.g. `failed to perform predicate on policies: ...`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ReviewError(pub String);

/// Options of one review.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReviewOptions {
    /// Record a [`trace::ReviewTrace`] (`certgate check --explain`).
    pub explain: bool,
    /// Whether the authorizer evaluated real RBAC objects (otherwise the trace says so and
    /// offers no grant commands).
    pub rbac_evaluated: bool,
}

/// The result of reviewing one request.
#[derive(Debug)]
pub struct Review {
    pub outcome: Result<Decision, ReviewError>,
    /// Present when [`ReviewOptions::explain`] was set, also when the review failed.
    pub trace: Option<trace::ReviewTrace>,
}

pub mod trace {
    //! Why each policy was or was not used (`--explain`). Serializable for `-o json`
    //! and rendered as text by its `Display` impl.

    /// Filled in by the approval crate owner.
    #[derive(Clone, Debug, PartialEq, serde::Serialize)]
    pub struct ReviewTrace {}

    impl std::fmt::Display for ReviewTrace {
        fn fmt(&self, _f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            todo!("approval crate owner")
        }
    }
}

/// The result of the policy admission checks (what the `policy.cert-manager.io` webhook
/// would reject), approver-policy spec §8.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PolicyValidation {
    pub errors: Vec<certgate_api::field::FieldError>,
    pub warnings: Vec<String>,
}

impl PolicyValidation {
    /// The aggregate message users see after
    /// `admission webhook "policy.cert-manager.io" denied the request: `; `None` when valid.
    pub fn message(&self) -> Option<String> {
        certgate_api::field::aggregate(&self.errors)
    }
}

/// The approver: evaluators (`allowed`, `constraints`) plus the shared CEL cache.
pub struct Approver {
    #[allow(dead_code)]
    cel: std::sync::Arc<certgate_cel::PolicyCel>,
}

impl Approver {
    pub fn new(cel: std::sync::Arc<certgate_cel::PolicyCel>) -> Self {
        Approver { cel }
    }

    /// Reviews one pending request against all policies (§3 of the spec). Policies are
    /// evaluated in name order whatever order they are given in.
    pub fn review(
        &self,
        request: &Request<'_>,
        policies: &[PolicyEntry<'_>],
        namespaces: &dyn NamespaceLookup,
        authorizer: &dyn certgate_rbac::Authorizer,
        options: ReviewOptions,
    ) -> Review {
        let _ = (request, policies, namespaces, authorizer, options);
        todo!("approval crate owner")
    }

    /// The policy admission checks (spec §8).
    pub fn validate_policy(&self, policy: &CertificateRequestPolicy) -> PolicyValidation {
        let _ = policy;
        todo!("approval crate owner")
    }
}
