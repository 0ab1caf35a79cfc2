//! A policy's `Ready` condition (spec §1.6): the texts the policy controller writes, and how
//! a review reads the condition back into a [`Readiness`].

use certgate_api::CertificateRequestPolicy;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;

use crate::Readiness;

/// The one condition type of a `CertificateRequestPolicy`.
pub const CONDITION_READY: &str = "Ready";
/// Condition (and event) reason when ready.
pub const REASON_READY: &str = "Ready";
/// Condition (and event) reason when not ready.
pub const REASON_NOT_READY: &str = "NotReady";
/// Condition message when ready.
pub const MESSAGE_READY: &str = "CertificateRequestPolicy is ready for approval evaluation";
/// Condition message when not ready, before the aggregate of the reconcilers' errors.
pub const MESSAGE_NOT_READY_PREFIX: &str =
    "CertificateRequestPolicy is not ready for approval evaluation: ";

/// The NotReady message for an aggregate of reconciler errors. Upstream formats a nil
/// aggregate with `%s`, which Go prints as `%!s(<nil>)`.
pub fn not_ready_message(aggregate: Option<&str>) -> String {
    format!("{MESSAGE_NOT_READY_PREFIX}{}", aggregate.unwrap_or("%!s(<nil>)"))
}

impl Readiness {
    /// Reads the `Ready` condition as the review does: ready only when `status` is `True`
    /// and the condition was written for the policy's current generation (a stale `True`
    /// does not count); no `Ready` condition at all means not reconciled yet.
    pub fn from_policy(policy: &CertificateRequestPolicy) -> Readiness {
        let conditions = policy.status.as_ref().and_then(|s| s.conditions.as_deref());
        let ready: Vec<_> =
            conditions.unwrap_or_default().iter().filter(|c| c.type_ == CONDITION_READY).collect();
        if ready.is_empty() {
            return Readiness::Unreconciled;
        }
        // Go compares int64 fields that default to 0 when absent.
        let generation = policy.metadata.generation.unwrap_or(0);
        let is_current = |c: &Condition| c.observed_generation.unwrap_or(0) == generation;
        if ready.iter().any(|c| c.status == "True" && is_current(c)) {
            return Readiness::Ready;
        }
        let Some(condition) = ready.first() else {
            return Readiness::Unreconciled;
        };
        if condition.status == "True" {
            return Readiness::NotReady(format!(
                "the Ready condition was written for generation {} but the policy is at generation {generation}; waiting for the policy controller",
                condition.observed_generation.unwrap_or(0)
            ));
        }
        let detail = [&condition.message, &condition.reason]
            .into_iter()
            .find(|text| !text.is_empty())
            .map_or_else(|| format!("Ready condition is {}", condition.status), Clone::clone);
        Readiness::NotReady(detail)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use certgate_api::policy::{CertificateRequestPolicySpec, CertificateRequestPolicyStatus};
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
    use k8s_openapi::jiff::Timestamp;

    fn condition(type_: &str, status: &str, message: &str, observed: Option<i64>) -> Condition {
        Condition {
            type_: type_.into(),
            status: status.into(),
            reason: if status == "True" { REASON_READY.into() } else { REASON_NOT_READY.into() },
            message: message.into(),
            observed_generation: observed,
            last_transition_time: Time(Timestamp::UNIX_EPOCH),
        }
    }

    fn policy(
        generation: Option<i64>,
        conditions: Option<Vec<Condition>>,
    ) -> CertificateRequestPolicy {
        let mut policy =
            CertificateRequestPolicy::new("p", CertificateRequestPolicySpec::default());
        policy.metadata.generation = generation;
        policy.status = Some(CertificateRequestPolicyStatus { conditions });
        policy
    }

    #[test]
    fn readiness_from_the_ready_condition() {
        let not_ready = not_ready_message(Some("plugin x: broken"));
        let cases = [
            (policy(None, None), Readiness::Unreconciled),
            (policy(Some(1), Some(vec![])), Readiness::Unreconciled),
            (
                policy(Some(1), Some(vec![condition("Other", "True", "", Some(1))])),
                Readiness::Unreconciled,
            ),
            (
                policy(Some(2), Some(vec![condition("Ready", "True", MESSAGE_READY, Some(2))])),
                Readiness::Ready,
            ),
            (policy(None, Some(vec![condition("Ready", "True", MESSAGE_READY, None)])), Readiness::Ready),
            (
                policy(Some(1), Some(vec![condition("Ready", "False", &not_ready, Some(1))])),
                Readiness::NotReady(not_ready.clone()),
            ),
            (
                policy(Some(3), Some(vec![condition("Ready", "True", MESSAGE_READY, Some(2))])),
                Readiness::NotReady(
                    "the Ready condition was written for generation 2 but the policy is at generation 3; waiting for the policy controller".into(),
                ),
            ),
        ];
        for (policy, want) in cases {
            assert_eq!(Readiness::from_policy(&policy), want, "{:?}", policy.status);
        }
    }

    #[test]
    fn not_ready_message_prints_a_nil_aggregate_like_go() {
        assert_eq!(
            not_ready_message(None),
            "CertificateRequestPolicy is not ready for approval evaluation: %!s(<nil>)"
        );
    }
}
