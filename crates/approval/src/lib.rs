//! approver-policy, as pure functions: which policies apply to a CertificateRequest, what
//! each evaluator finds, and the Approved / Denied / Unprocessed decision with upstream's
//! exact messages. No I/O: namespaces and RBAC come in through traits.
//!
//! Layout, one job per module:
//! - [`wildcard`]: the `*` matcher used by `allowed`, usages and selectors;
//! - `attributes`: the request attributes `allowed` checks, extracted once per review;
//! - `allowed`, `constraints`: the two built-in evaluators;
//! - `selector`, `bound`: the issuerRef / namespace predicates and the RBAC `use` check;
//! - `review`: the pipeline and its messages;
//! - `validate`: the policy admission checks;
//! - [`answers`]: access answers gathered before a review (SubjectAccessReviews are async);
//! - [`readiness`]: the `Ready` condition; [`trace`]: the `--explain` record;
//! - [`outcome`]: what the approvers write after deciding (conditions, events, their
//!   reasons and messages as approver-policy and cert-manager write them).
#![forbid(unsafe_code)]

use std::collections::BTreeMap;
use std::sync::Arc;

use certgate_api::{CertificateRequest, CertificateRequestPolicy};
use certgate_cel::PolicyCel;
use certgate_pki::{CsrError, DecodedCsr};

mod allowed;
pub mod answers;
mod attributes;
mod bound;
mod constraints;
mod findings;
mod labels;
pub mod outcome;
pub mod readiness;
mod review;
mod selector;
#[cfg(test)]
mod test_support;
pub mod trace;
mod validate;
pub use validate::{
    Cancelled, CompileBudget, DEFAULT_COMPILE_TIME, MAX_RULE_BYTES_PER_POLICY, MAX_RULES_PER_POLICY,
};
pub mod wildcard;

pub use review::{
    APPROVED_PREFIX, DENIED_PREFIX, NO_POLICIES_APPLICABLE, NO_POLICIES_EXIST, UNRECONCILED_PREFIX,
};

/// A request under review, with its CSR decoded once (outside the per-policy loop).
pub struct Request<'a> {
    pub cr: &'a CertificateRequest,
    pub csr: Result<&'a DecodedCsr, &'a CsrError>,
}

/// Whether a policy takes part in evaluation (from its `Ready` condition in a cluster, or
/// from the admission checks offline).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "state", content = "reason")]
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
#[derive(Clone)]
pub struct Approver {
    cel: Arc<PolicyCel>,
}

impl Approver {
    pub fn new(cel: Arc<PolicyCel>) -> Self {
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
        review::review(
            &self.cel,
            request,
            policies,
            &review::Environment { namespaces, authorizer },
            options,
        )
    }

    /// The policy admission checks (spec §8).
    pub fn validate_policy(&self, policy: &CertificateRequestPolicy) -> PolicyValidation {
        validate::validate(&self.cel, policy)
    }

    /// [`Approver::validate_policy`], compiling the rules within `budget`: when its time
    /// runs out the policy is denied, saying so; when it is cancelled there is no verdict.
    pub fn validate_policy_within(
        &self,
        policy: &CertificateRequestPolicy,
        budget: &CompileBudget,
    ) -> Result<PolicyValidation, Cancelled> {
        validate::validate_within(&self.cel, policy, budget)
    }
}
