//! The decision report: what `certgate check` prints, `certgate explain` prints for one live
//! request and `certgate dev --demo` prints for the sandbox. Serialized as-is for `-o json` /
//! `-o yaml`; [`output`] renders it in every format.

pub mod format;
pub mod output;

use certgate_approval::trace::ReviewTrace;
use serde::Serialize;

pub use format::ReportFormat;
pub use output::{OutputError, OutputOptions};

use crate::shared::manifests::Source;

/// `{"results": [...], "policies": [...], "rbacEvaluated": bool}`, both lists in input order.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    pub results: Vec<RequestResult>,
    pub policies: Vec<PolicyResult>,
    pub rbac_evaluated: bool,
}

/// The decision for one CertificateRequest.
#[derive(Debug, Serialize)]
pub struct RequestResult {
    pub namespace: String,
    pub name: String,
    pub decision: Verdict,
    pub message: String,
    /// `--explain` only, and only for requests that were reviewed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<ReviewTrace>,
    #[serde(skip)]
    pub at: Source,
    #[serde(skip)]
    pub basis: Basis,
}

/// The readiness of one CertificateRequestPolicy, decided offline by the admission checks.
#[derive(Debug, Serialize)]
pub struct PolicyResult {
    pub name: String,
    pub ready: bool,
    pub message: String,
    /// Admission warnings (`kubectl` prints them as `Warning: ...`); reported on stderr.
    #[serde(skip)]
    pub warnings: Vec<String>,
    #[serde(skip)]
    pub at: Source,
}

/// A request's decision: approver-policy's three outcomes, plus the two ways a request never
/// reaches one in a cluster.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Verdict {
    Approved,
    Denied,
    Unprocessed,
    /// The admission webhook would reject the request, so it would never exist.
    Invalid,
    /// The review fails as it would in the cluster (retried there, never decided).
    Error,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Approved => "Approved",
            Verdict::Denied => "Denied",
            Verdict::Unprocessed => "Unprocessed",
            Verdict::Invalid => "Invalid",
            Verdict::Error => "Error",
        }
    }
}

/// How the verdict was reached (for `--explain` and stderr; not part of the JSON).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Basis {
    /// Reviewed against the policies.
    Reviewed,
    /// Rejected by the CertificateRequest admission checks; not reviewed.
    AdmissionRejected,
    /// `status.conditions` already holds `Approved` or `Denied`; a cluster never reviews it
    /// again, so the condition is reported as found.
    AlreadyDecided,
}

/// Exit status of `certgate check`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckStatus {
    /// Every request is Approved (or there are none).
    AllApproved,
    /// Some request is Denied or Unprocessed.
    NotAllApproved,
    /// An input error, a policy the admission webhook would reject, or some request is
    /// Invalid or Error.
    Failed,
}

impl CheckStatus {
    pub fn code(self) -> u8 {
        match self {
            CheckStatus::AllApproved => 0,
            CheckStatus::NotAllApproved => 1,
            CheckStatus::Failed => 2,
        }
    }
}

impl Report {
    pub fn status(&self) -> CheckStatus {
        let has =
            |verdicts: &[Verdict]| self.results.iter().any(|r| verdicts.contains(&r.decision));
        // A rejected policy would never reach the cluster: as much an input error as an
        // Invalid request, and what a pre-apply check of policies must fail on.
        let rejected_policy = self.policies.iter().any(|p| !p.ready);
        if rejected_policy || has(&[Verdict::Invalid, Verdict::Error]) {
            CheckStatus::Failed
        } else if has(&[Verdict::Denied, Verdict::Unprocessed]) {
            CheckStatus::NotAllApproved
        } else {
            CheckStatus::AllApproved
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    fn report(verdicts: &[Verdict]) -> Report {
        let at = Source::document(&Arc::from("f.yaml"), 0);
        let results = verdicts
            .iter()
            .map(|&decision| RequestResult {
                namespace: "ns".to_owned(),
                name: "n".to_owned(),
                decision,
                message: String::new(),
                trace: None,
                at: at.clone(),
                basis: Basis::Reviewed,
            })
            .collect();
        Report { results, policies: Vec::new(), rbac_evaluated: false }
    }

    #[test]
    fn exit_status_follows_the_worst_decision() {
        use Verdict::*;
        let cases: [(&[Verdict], u8); 8] = [
            (&[], 0),
            (&[Approved, Approved], 0),
            (&[Approved, Denied], 1),
            (&[Unprocessed], 1),
            (&[Denied, Invalid], 2),
            (&[Error], 2),
            (&[Approved, Error, Denied], 2),
            (&[Invalid, Approved], 2),
        ];
        for (verdicts, code) in cases {
            assert_eq!(report(verdicts).status().code(), code, "{verdicts:?}");
        }
    }

    #[test]
    fn a_rejected_policy_fails_the_check_even_when_every_request_is_approved() {
        let policy = |ready| PolicyResult {
            name: "p".to_owned(),
            ready,
            message: String::new(),
            warnings: Vec::new(),
            at: Source::document(&Arc::from("p.yaml"), 0),
        };
        let mut with_ready = report(&[Verdict::Approved]);
        with_ready.policies.push(policy(true));
        assert_eq!(with_ready.status(), CheckStatus::AllApproved);
        let mut with_rejected = report(&[Verdict::Approved]);
        with_rejected.policies.push(policy(false));
        assert_eq!(with_rejected.status(), CheckStatus::Failed);
    }

    #[test]
    fn json_shape_is_the_documented_one() {
        let json = serde_json::to_value(report(&[Verdict::Invalid])).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "results": [{"namespace": "ns", "name": "n", "decision": "Invalid", "message": ""}],
                "policies": [],
                "rbacEvaluated": false
            })
        );
    }
}
