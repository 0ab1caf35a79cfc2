//! Why each policy was or was not used (`--explain`). Serializable for `-o json`
//! (camelCase) and rendered as indented plain text by its `Display` impl; the CLI adds
//! colour.
//!
//! Policies appear in name order, the order the review walks them. For each: whether its
//! selector selected the request (and if not, which field failed on what value), whether
//! the requester may `use` it (the exact SubjectAccessReview asked and the authorizer's
//! reason, plus the commands that would grant a missing permission), its readiness, and
//! what each evaluator found per attribute.

use std::fmt;

use certgate_api::gofmt::{json, quote};
use serde::Serialize;

use crate::Readiness;

/// The record of one review.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReviewTrace {
    pub request: RequestSummary,
    /// Whether the authorizer evaluated real RBAC objects; when false, bindings say so and
    /// no grant commands are offered.
    pub rbac_evaluated: bool,
    pub policies: Vec<PolicyTrace>,
    /// Review-level remarks, e.g. that no policies exist or where evaluation stopped.
    pub notes: Vec<String>,
}

/// The request as the review saw it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestSummary {
    pub name: String,
    pub namespace: String,
    pub username: String,
    pub groups: Vec<String>,
    /// With cert-manager's defaults applied (kind `Issuer`, group `cert-manager.io`).
    pub issuer_ref: IssuerRefSummary,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct IssuerRefSummary {
    pub name: String,
    pub kind: String,
    pub group: String,
}

/// What happened to one policy.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PolicyTrace {
    pub name: String,
    pub outcome: PolicyOutcome,
    /// Whether `spec.selector` selected the request (false also when not reached).
    pub selected: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selector_mismatch: Option<SelectorMismatch>,
    /// The RBAC `use` check; absent when the policy was not selected.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub binding: Option<Binding>,
    pub readiness: Readiness,
    /// The evaluators that ran, in order; empty when the policy was not evaluated.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub evaluators: Vec<EvaluatorTrace>,
}

/// Where a policy's journey ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum PolicyOutcome {
    /// `spec.selector` did not select the request.
    NotSelected,
    /// The requester may not `use` the policy.
    NotBound,
    /// Selected and bound, but `Ready` is not `True`.
    NotReady,
    /// Selected and bound, but the policy has no `Ready` condition yet.
    Unreconciled,
    Approved,
    Denied,
    /// Not reached: an earlier policy approved, or the review stopped before it.
    NotEvaluated,
    /// An evaluator failed on this policy and aborted the review.
    Error,
}

/// The first selector field that did not match.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SelectorMismatch {
    /// e.g. `spec.selector.issuerRef.name`.
    pub field: String,
    /// e.g. `spec.selector.issuerRef.name: "prod-*" does not match "dev-ca"`.
    pub message: String,
}

/// The RBAC `use` check of one policy.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Binding {
    pub allowed: bool,
    /// The authorizer's reason.
    pub reason: String,
    pub access_review: AccessReviewTrace,
    /// When RBAC was evaluated and denied: what is missing and how to grant it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grant: Option<Grant>,
}

/// The SubjectAccessReview asked for a policy.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AccessReviewTrace {
    pub user: String,
    pub groups: Vec<String>,
    pub uid: String,
    pub verb: String,
    pub group: String,
    pub resource: String,
    pub name: String,
    pub namespace: String,
}

/// A missing `use` permission and the `kubectl` commands that would grant it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Grant {
    pub missing: String,
    pub commands: Vec<String>,
}

/// One evaluator's run on one policy.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EvaluatorTrace {
    /// `allowed` or `constraints`.
    pub name: String,
    pub result: EvaluatorResult,
    /// The Denied message, or the error that aborted the review.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Every attribute checked. JSON lists only the reported ones ([`CheckTrace::is_reported`]):
    /// at scale the empty, passing attributes would dominate the output.
    #[serde(serialize_with = "serialize_reported")]
    pub checks: Vec<CheckTrace>,
}

fn serialize_reported<S: serde::Serializer>(
    checks: &[CheckTrace],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(checks.iter().filter(|check| check.is_reported()))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum EvaluatorResult {
    NotDenied,
    Denied,
    Error,
}

/// One attribute an evaluator checked.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CheckTrace {
    /// The policy field checked, e.g. `spec.allowed.dnsNames`.
    pub attribute: String,
    /// The request's values for it (`oid=value` for otherNames / otherAttributes).
    pub values: Vec<String>,
    pub passed: bool,
    /// The rendered field errors this attribute contributed.
    pub errors: Vec<String>,
}

impl CheckTrace {
    /// Whether the check says anything: the request had values for it, or it failed.
    pub fn is_reported(&self) -> bool {
        !self.passed || !self.values.is_empty()
    }
}

impl fmt::Display for ReviewTrace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let request = &self.request;
        writeln!(f, "CertificateRequest {}/{}", request.namespace, request.name)?;
        writeln!(
            f,
            "  requester: user {}, groups {}",
            quote(&request.username),
            string_list(&request.groups)
        )?;
        let issuer = &request.issuer_ref;
        writeln!(
            f,
            "  issuerRef: name {}, kind {}, group {}",
            quote(&issuer.name),
            quote(&issuer.kind),
            quote(&issuer.group)
        )?;
        if self.rbac_evaluated {
            writeln!(f, "  RBAC: evaluated against RBAC objects")?;
        } else {
            writeln!(
                f,
                "  RBAC: not evaluated (no RBAC objects given); every policy counts as bound"
            )?;
        }
        for policy in &self.policies {
            write!(f, "{policy}")?;
        }
        for note in &self.notes {
            writeln!(f, "note: {note}")?;
        }
        Ok(())
    }
}

impl fmt::Display for PolicyTrace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "policy {}: {}", quote(&self.name), self.outcome)?;
        match (&self.selector_mismatch, self.selected) {
            (Some(mismatch), _) => writeln!(f, "  selector: not selected: {}", mismatch.message)?,
            (None, true) => writeln!(f, "  selector: selected")?,
            (None, false) => writeln!(f, "  selector: not checked")?,
        }
        if let Some(binding) = &self.binding {
            write!(f, "{binding}")?;
        }
        match &self.readiness {
            Readiness::Ready => writeln!(f, "  readiness: Ready")?,
            Readiness::NotReady(reason) => writeln!(f, "  readiness: NotReady: {reason}")?,
            Readiness::Unreconciled => {
                writeln!(f, "  readiness: Unreconciled (no Ready condition yet)")?
            }
        }
        for evaluator in &self.evaluators {
            write!(f, "{evaluator}")?;
        }
        Ok(())
    }
}

impl fmt::Display for PolicyOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PolicyOutcome::NotSelected => "not selected",
            PolicyOutcome::NotBound => "not bound to the requester",
            PolicyOutcome::NotReady => "not ready",
            PolicyOutcome::Unreconciled => "not reconciled yet",
            PolicyOutcome::Approved => "approved",
            PolicyOutcome::Denied => "denied",
            PolicyOutcome::NotEvaluated => "not evaluated",
            PolicyOutcome::Error => "evaluation error",
        })
    }
}

impl fmt::Display for Binding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = if self.allowed { "bound" } else { "not bound" };
        // Kubernetes gives no reason when no rule matched (NoOpinion), and some authorizers
        // none when they allow; RBAC's own reason starts with the `RBAC: ` this line already
        // has (`RBAC: allowed by ...`).
        let reason = match self.reason.as_str() {
            "" if !self.allowed => "no Role or ClusterRole bound to the requester allows it",
            reason => reason.strip_prefix("RBAC: ").unwrap_or(reason),
        };
        if reason.is_empty() {
            writeln!(f, "  RBAC: {state}")?;
        } else {
            writeln!(f, "  RBAC: {state} ({reason})")?;
        }
        let sar = &self.access_review;
        writeln!(
            f,
            "    SubjectAccessReview: user {}, groups {}, uid {}, verb {}, group {}, resource {}, name {}, namespace {}",
            quote(&sar.user),
            string_list(&sar.groups),
            quote(&sar.uid),
            quote(&sar.verb),
            quote(&sar.group),
            quote(&sar.resource),
            quote(&sar.name),
            quote(&sar.namespace)
        )?;
        if let Some(grant) = &self.grant {
            writeln!(f, "    missing: {}", grant.missing)?;
            if !grant.commands.is_empty() {
                writeln!(f, "    grant it with:")?;
                for command in &grant.commands {
                    writeln!(f, "      {command}")?;
                }
            }
        }
        Ok(())
    }
}

impl fmt::Display for EvaluatorTrace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let result = match self.result {
            EvaluatorResult::NotDenied => "not denied",
            EvaluatorResult::Denied => "denied",
            EvaluatorResult::Error => "error",
        };
        writeln!(f, "  evaluator {}: {result}", self.name)?;
        if self.result == EvaluatorResult::Error
            && let Some(message) = &self.message
        {
            writeln!(f, "    {}", continued(message, "    "))?;
        }
        // Empty, passing attributes say nothing; count them instead of listing them.
        let mut quiet = 0usize;
        for check in &self.checks {
            if !check.is_reported() {
                quiet += 1;
                continue;
            }
            let state = if check.passed { "passed" } else { "denied" };
            writeln!(f, "    {} {}: {state}", check.attribute, string_list(&check.values))?;
            for error in &check.errors {
                writeln!(f, "      - {}", continued(error, "        "))?;
            }
        }
        if quiet > 0 {
            writeln!(f, "    ({quiet} other attributes empty in the request and not required)")?;
        }
        Ok(())
    }
}

/// Indents the continuation lines of a multi-line message (CEL errors carry a caret
/// snippet) so they stay under the item they belong to.
fn continued(text: &str, indent: &str) -> String {
    text.replace('\n', &format!("\n{indent}"))
}

/// A list of strings as JSON, the way the messages show lists.
fn string_list(values: &[String]) -> String {
    json(&serde_json::json!(values))
}

#[cfg(test)]
mod tests;
