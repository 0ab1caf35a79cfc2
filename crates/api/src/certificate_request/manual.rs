//! Approving or denying a CertificateRequest by hand, as `cmctl approve|deny` does: a
//! request that already carries `Approved=True` or `Denied=True` is refused, whichever
//! command is run; otherwise the condition is set, replacing one of the same type in place.

use super::{CertificateRequestCondition, CertificateRequestStatus};

/// Which condition a manual decision sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ManualDecision {
    Approve,
    Deny,
}

impl ManualDecision {
    /// The condition type: `Approved` or `Denied`.
    pub fn condition_type(self) -> &'static str {
        match self {
            ManualDecision::Approve => "Approved",
            ManualDecision::Deny => "Denied",
        }
    }

    /// `approve` / `deny`, as the commands are named.
    pub fn verb(self) -> &'static str {
        match self {
            ManualDecision::Approve => "approve",
            ManualDecision::Deny => "deny",
        }
    }

    /// `approved` / `denied`.
    pub fn past(self) -> &'static str {
        match self {
            ManualDecision::Approve => "approved",
            ManualDecision::Deny => "denied",
        }
    }
}

/// The request was decided before; upstream's texts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AlreadyDecided {
    #[error("CertificateRequest is already approved")]
    Approved,
    #[error("CertificateRequest is already denied")]
    Denied,
}

fn is_true(status: Option<&CertificateRequestStatus>, condition_type: &str) -> bool {
    status
        .and_then(|s| s.conditions.as_deref())
        .unwrap_or_default()
        .iter()
        .any(|c| c.type_ == condition_type && c.status == "True")
}

/// Whether the request is already decided (`Approved=True`, then `Denied=True`, as cert-manager
/// checks them); approvers never touch a decided request again.
pub fn decided(status: Option<&CertificateRequestStatus>) -> Option<AlreadyDecided> {
    if is_true(status, "Approved") {
        Some(AlreadyDecided::Approved)
    } else if is_true(status, "Denied") {
        Some(AlreadyDecided::Denied)
    } else {
        None
    }
}

/// Sets `decision`'s condition to True on `status` with `reason`, `message` and `now`
/// (RFC 3339), unless the request is already approved or denied (checked in that order; a
/// condition with another status does not count).
pub fn decide(
    status: &mut Option<CertificateRequestStatus>,
    decision: ManualDecision,
    reason: &str,
    message: &str,
    now: &str,
) -> Result<(), AlreadyDecided> {
    if let Some(already) = decided(status.as_ref()) {
        return Err(already);
    }
    let condition = CertificateRequestCondition {
        type_: decision.condition_type().to_owned(),
        status: "True".to_owned(),
        reason: Some(reason.to_owned()),
        message: Some(message.to_owned()),
        last_transition_time: Some(now.to_owned()),
    };
    let conditions =
        status.get_or_insert_with(Default::default).conditions.get_or_insert_with(Vec::new);
    match conditions.iter_mut().find(|c| c.type_ == condition.type_) {
        Some(existing) => *existing = condition,
        None => conditions.push(condition),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn condition(type_: &str, status: &str) -> CertificateRequestCondition {
        CertificateRequestCondition {
            type_: type_.to_owned(),
            status: status.to_owned(),
            ..Default::default()
        }
    }

    fn with(conditions: Vec<CertificateRequestCondition>) -> Option<CertificateRequestStatus> {
        Some(CertificateRequestStatus { conditions: Some(conditions), ..Default::default() })
    }

    #[test]
    fn a_pending_request_gets_the_condition_appended() {
        let mut status = with(vec![condition("Ready", "False")]);
        decide(
            &mut status,
            ManualDecision::Approve,
            "KubectlCertManager",
            "ok",
            "2026-11-24T00:00:00Z",
        )
        .unwrap();
        let conditions = status.unwrap().conditions.unwrap();
        assert_eq!(conditions.len(), 2);
        assert_eq!(conditions[1].type_, "Approved");
        assert_eq!(conditions[1].status, "True");
        assert_eq!(conditions[1].reason.as_deref(), Some("KubectlCertManager"));
        assert_eq!(conditions[1].message.as_deref(), Some("ok"));
        assert_eq!(conditions[1].last_transition_time.as_deref(), Some("2026-11-24T00:00:00Z"));
    }

    #[test]
    fn no_status_at_all_gets_one() {
        let mut status = None;
        decide(&mut status, ManualDecision::Deny, "r", "m", "t").unwrap();
        assert_eq!(status.unwrap().conditions.unwrap()[0].type_, "Denied");
    }

    #[test]
    fn a_condition_of_the_same_type_that_is_not_true_is_replaced_in_place() {
        let mut status = with(vec![condition("Denied", "False"), condition("Ready", "False")]);
        decide(&mut status, ManualDecision::Deny, "r", "m", "t").unwrap();
        let conditions = status.unwrap().conditions.unwrap();
        assert_eq!(conditions.len(), 2);
        assert_eq!(
            (conditions[0].type_.as_str(), conditions[0].status.as_str()),
            ("Denied", "True")
        );
    }

    #[test]
    fn decided_requests_are_refused_by_both_commands_approved_first() {
        for decision in [ManualDecision::Approve, ManualDecision::Deny] {
            let mut approved = with(vec![condition("Approved", "True")]);
            assert_eq!(
                decide(&mut approved, decision, "r", "m", "t"),
                Err(AlreadyDecided::Approved)
            );
            let mut denied = with(vec![condition("Denied", "True")]);
            assert_eq!(decide(&mut denied, decision, "r", "m", "t"), Err(AlreadyDecided::Denied));
            let mut both = with(vec![condition("Denied", "True"), condition("Approved", "True")]);
            assert_eq!(decide(&mut both, decision, "r", "m", "t"), Err(AlreadyDecided::Approved));
        }
        assert_eq!(AlreadyDecided::Approved.to_string(), "CertificateRequest is already approved");
        assert_eq!(AlreadyDecided::Denied.to_string(), "CertificateRequest is already denied");
    }
}
