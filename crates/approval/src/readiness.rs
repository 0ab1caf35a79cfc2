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

/// What the policy-readiness controller writes for a policy: its `Ready` condition and the
/// event of the same text (Normal `Ready` or Warning `NotReady`).
#[derive(Clone, Debug, PartialEq)]
pub struct ReadyCondition {
    pub ready: bool,
    /// `Ready` or `NotReady`: the condition's and the event's reason.
    pub reason: &'static str,
    pub message: String,
}

impl ReadyCondition {
    /// Readiness from the policy admission checks. Upstream's built-in evaluators always
    /// report ready; certgate also runs the checks its policy webhook runs, so a policy that
    /// reached the cluster without that webhook (or before it existed) is NotReady with the
    /// webhook's reasons instead of silently approving or denying with a broken rule.
    pub fn from_validation(validation: &crate::PolicyValidation) -> ReadyCondition {
        match validation.message() {
            None => ReadyCondition {
                ready: true,
                reason: REASON_READY,
                message: MESSAGE_READY.to_owned(),
            },
            Some(aggregate) => ReadyCondition {
                ready: false,
                reason: REASON_NOT_READY,
                message: not_ready_message(Some(&aggregate)),
            },
        }
    }

    /// The condition to store: `observedGeneration` the policy's generation, and the
    /// transition time kept from `current` when the status does not change.
    pub fn condition(
        &self,
        policy: &CertificateRequestPolicy,
        now: k8s_openapi::apimachinery::pkg::apis::meta::v1::Time,
    ) -> Condition {
        let status = if self.ready { "True" } else { "False" };
        let current = policy
            .status
            .as_ref()
            .and_then(|s| s.conditions.as_deref())
            .unwrap_or_default()
            .iter()
            .find(|c| c.type_ == CONDITION_READY);
        let last_transition_time = match current {
            Some(current) if current.status == status => current.last_transition_time.clone(),
            _ => now,
        };
        Condition {
            type_: CONDITION_READY.to_owned(),
            status: status.to_owned(),
            reason: self.reason.to_owned(),
            message: self.message.clone(),
            observed_generation: policy.metadata.generation,
            last_transition_time,
        }
    }
}

#[cfg(test)]
mod controller_tests {
    use certgate_api::field::{FieldError, Path};
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
    use k8s_openapi::jiff::Timestamp;

    use super::*;
    use crate::PolicyValidation;

    fn time(seconds: i64) -> Time {
        Time(Timestamp::from_second(seconds).unwrap())
    }

    fn policy(generation: i64, conditions: Vec<Condition>) -> CertificateRequestPolicy {
        let mut policy = CertificateRequestPolicy::new("p", Default::default());
        policy.metadata.generation = Some(generation);
        policy.status = Some(certgate_api::policy::CertificateRequestPolicyStatus {
            conditions: Some(conditions),
        });
        policy
    }

    #[test]
    fn valid_policies_are_ready_at_their_generation() {
        let ready = ReadyCondition::from_validation(&PolicyValidation::default());
        assert_eq!((ready.ready, ready.reason), (true, "Ready"));
        let condition = ready.condition(&policy(3, vec![]), time(100));
        assert_eq!(condition.status, "True");
        assert_eq!(condition.message, MESSAGE_READY);
        assert_eq!(condition.observed_generation, Some(3));
        assert_eq!(condition.last_transition_time, time(100));
        // Read back by a review, it counts as ready.
        assert_eq!(Readiness::from_policy(&policy(3, vec![condition])), Readiness::Ready);
    }

    #[test]
    fn invalid_policies_are_not_ready_with_the_webhooks_reasons() {
        let validation = PolicyValidation {
            errors: vec![FieldError::required(
                Path::new("spec").child("selector"),
                "one of issuerRef or namespace must be defined",
            )],
            warnings: Vec::new(),
        };
        let not_ready = ReadyCondition::from_validation(&validation);
        assert_eq!((not_ready.ready, not_ready.reason), (false, "NotReady"));
        assert_eq!(
            not_ready.message,
            "CertificateRequestPolicy is not ready for approval evaluation: spec.selector: Required value: one of issuerRef or namespace must be defined"
        );
        assert_eq!(not_ready.condition(&policy(1, vec![]), time(5)).status, "False");
    }

    #[test]
    fn the_transition_time_changes_only_with_the_status() {
        let ready = ReadyCondition::from_validation(&PolicyValidation::default());
        let before = ready.condition(&policy(1, vec![]), time(100));
        let kept = ready.condition(&policy(2, vec![before.clone()]), time(200));
        assert_eq!((kept.last_transition_time, kept.observed_generation), (time(100), Some(2)));
        let not_ready =
            ReadyCondition { ready: false, reason: REASON_NOT_READY, message: "x".into() };
        assert_eq!(
            not_ready.condition(&policy(2, vec![before]), time(300)).last_transition_time,
            time(300)
        );
    }
}
