//! What the approvers write after deciding: conditions and events with upstream's reasons
//! and messages (approver-policy spec §3.1, cert-manager-requests spec §5). Pure, so every
//! branch is tested without a cluster.

use crate::{Decision, ReviewError};
use certgate_api::certificate_request::CertificateRequestCondition;

/// The condition reason the policy approver writes, and the events' reporting controller.
pub const POLICY_REASON: &str = "policy.cert-manager.io";
/// The server-side apply field manager of the policy approver's status writes.
pub const POLICY_FIELD_MANAGER: &str = "approver-policy";
/// The Unprocessed event's message (the review's own message goes to the log only).
pub const UNPROCESSED_MESSAGE: &str = "Request is not applicable for any policy so ignoring";
/// The EvaluationError event's message; the error itself is logged, not shown to users.
pub const EVALUATION_ERROR_MESSAGE: &str =
    "approver-policy failed to review the request and will retry";

/// cert-manager's built-in approver: condition and event reason.
pub const BUILTIN_REASON: &str = "cert-manager.io";
/// cert-manager's built-in approver: condition and event message.
pub const BUILTIN_MESSAGE: &str = "Certificate request has been approved by cert-manager.io";

/// An event to record on the request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventSpec {
    pub warning: bool,
    pub reason: &'static str,
    pub note: String,
    /// `Synced`, or `SyncedFailed` for the Warning events that come without a decision.
    pub action: &'static str,
}

/// What one review leads to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The condition to apply, for Approved and Denied.
    pub condition: Option<CertificateRequestCondition>,
    pub event: EventSpec,
    /// The `result` label of the decisions metric.
    pub result: &'static str,
}

/// The writes for a review's outcome, the condition stamped `now` (RFC 3339).
pub fn after_review(outcome: &Result<Decision, ReviewError>, now: &str) -> Outcome {
    let decided = |type_: &str, message: &str| CertificateRequestCondition {
        type_: type_.to_owned(),
        status: "True".to_owned(),
        reason: Some(POLICY_REASON.to_owned()),
        message: Some(message.to_owned()),
        last_transition_time: Some(now.to_owned()),
    };
    let event = |warning, reason, note: &str, action| EventSpec {
        warning,
        reason,
        note: note.to_owned(),
        action,
    };
    match outcome {
        Ok(Decision::Approved(message)) => Outcome {
            condition: Some(decided("Approved", message)),
            event: event(false, "Approved", message, "Synced"),
            result: "approved",
        },
        Ok(Decision::Denied(message)) => Outcome {
            condition: Some(decided("Denied", message)),
            event: event(true, "Denied", message, "Synced"),
            result: "denied",
        },
        Ok(Decision::Unprocessed(_)) => Outcome {
            condition: None,
            event: event(false, "Unprocessed", UNPROCESSED_MESSAGE, "Synced"),
            result: "unprocessed",
        },
        Err(_) => Outcome {
            condition: None,
            event: event(true, "EvaluationError", EVALUATION_ERROR_MESSAGE, "SyncedFailed"),
            result: "error",
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: &str = "2026-11-25T10:00:00Z";

    #[test]
    fn approved_sets_the_condition_with_the_review_message_and_a_normal_event() {
        let message = r#"Approved by CertificateRequestPolicy: "team-a""#;
        let outcome = after_review(&Ok(Decision::Approved(message.to_owned())), NOW);
        let condition = outcome.condition.expect("a condition");
        assert_eq!((condition.type_.as_str(), condition.status.as_str()), ("Approved", "True"));
        assert_eq!(condition.reason.as_deref(), Some("policy.cert-manager.io"));
        assert_eq!(condition.message.as_deref(), Some(message));
        assert_eq!(condition.last_transition_time.as_deref(), Some(NOW));
        assert_eq!(
            outcome.event,
            EventSpec {
                warning: false,
                reason: "Approved",
                note: message.to_owned(),
                action: "Synced"
            }
        );
        assert_eq!(outcome.result, "approved");
    }

    #[test]
    fn denied_sets_the_denied_condition_and_a_warning() {
        let message = "No policy approved this request: [a: x]";
        let outcome = after_review(&Ok(Decision::Denied(message.to_owned())), NOW);
        let condition = outcome.condition.expect("a condition");
        assert_eq!(condition.type_, "Denied");
        assert_eq!(condition.reason.as_deref(), Some("policy.cert-manager.io"));
        assert_eq!(condition.message.as_deref(), Some(message));
        assert!(outcome.event.warning);
        assert_eq!((outcome.event.reason, outcome.event.action), ("Denied", "Synced"));
        assert_eq!(outcome.event.note, message);
    }

    #[test]
    fn unprocessed_writes_nothing_and_says_so_in_upstreams_words() {
        let outcome = after_review(
            &Ok(Decision::Unprocessed(
                "No CertificateRequestPolicies bound or applicable".to_owned(),
            )),
            NOW,
        );
        assert_eq!(outcome.condition, None);
        assert_eq!(
            outcome.event,
            EventSpec {
                warning: false,
                reason: "Unprocessed",
                note: "Request is not applicable for any policy so ignoring".to_owned(),
                action: "Synced"
            }
        );
    }

    #[test]
    fn errors_write_nothing_and_hide_the_error_from_the_event() {
        let outcome = after_review(
            &Err(ReviewError("failed to perform predicate on policies: boom".to_owned())),
            NOW,
        );
        assert_eq!(outcome.condition, None);
        assert_eq!(
            outcome.event,
            EventSpec {
                warning: true,
                reason: "EvaluationError",
                note: "approver-policy failed to review the request and will retry".to_owned(),
                action: "SyncedFailed"
            }
        );
        assert_eq!(outcome.result, "error");
    }
}
