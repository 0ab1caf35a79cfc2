//! The `policy-readiness` controller: keeps every CertificateRequestPolicy's `Ready`
//! condition and `observedGeneration` current, from the same admission checks the policy
//! webhook runs, and records an event whenever it writes the condition.

use std::sync::Arc;
use std::time::Duration;

use certgate_api::CertificateRequestPolicy;
use certgate_approval::Approver;
use certgate_approval::readiness::{CONDITION_READY, ReadyCondition};
use certgate_clock::Clock;
use certgate_runtime::{ControllerSpec, EventSink, Launch};
use futures_util::{FutureExt as _, StreamExt as _};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use k8s_openapi::jiff::Timestamp;
use kube::Resource as _;
use kube::api::{Api, Patch, PatchParams};
use kube::runtime::controller::{Action, Controller};
use kube::runtime::events::{Event, EventType, Reporter};
use kube::runtime::watcher;
use serde_json::json;

/// The controller's name, as `--controllers` and events name it.
pub const NAME: &str = "policy-readiness";
/// Policies are checked again this often even without a change (CEL caches, clock).
const RESYNC: Duration = Duration::from_secs(10 * 60);

#[derive(Debug, thiserror::Error)]
pub enum ReconcileError {
    #[error("cannot write the Ready condition of CertificateRequestPolicy {}: {source}", certgate_gofmt::quote(.name))]
    Write { name: String, source: kube::Error },
}

/// What a reconcile does to the cluster: the I/O seam, so every branch of the reconcile is
/// tested without one.
trait Effects: Send + Sync + 'static {
    /// Writes `condition` as the policy's `Ready` condition.
    fn write_ready(
        &self,
        policy: &CertificateRequestPolicy,
        condition: &Condition,
    ) -> impl Future<Output = Result<(), kube::Error>> + Send;
    /// Records `event` about the policy; failures are logged, not returned.
    fn publish(
        &self,
        policy: &CertificateRequestPolicy,
        event: &Event,
    ) -> impl Future<Output = ()> + Send;
}

/// [`Effects`] through the API server.
struct KubeEffects {
    api: Api<CertificateRequestPolicy>,
    events: EventSink,
}

impl Effects for KubeEffects {
    async fn write_ready(
        &self,
        policy: &CertificateRequestPolicy,
        condition: &Condition,
    ) -> Result<(), kube::Error> {
        // A merge patch of the status: `Ready` is the policy's only condition type.
        let patch = json!({"status": {"conditions": [condition]}});
        let name = policy.metadata.name.as_deref().unwrap_or_default();
        self.api
            .patch_status(name, &PatchParams::default(), &Patch::Merge(&patch))
            .await
            .map(|_| ())
    }

    async fn publish(&self, policy: &CertificateRequestPolicy, event: &Event) {
        self.events.publish(&policy.object_ref(&()), event).await;
    }
}

struct Context<E> {
    approver: Approver,
    effects: E,
    clock: Arc<dyn Clock>,
}

/// The controller as `--controllers` knows it: on by default.
pub const SPEC: ControllerSpec = ControllerSpec {
    name: NAME,
    on_by_default: true,
    summary: "keeps the policies' Ready condition and observedGeneration current.",
    results: &[],
    run: |launch| run(launch).boxed(),
};

/// Runs until the launch's shutdown completes.
pub async fn run(launch: Launch) {
    let Launch { client, settings, clock, shutdown, .. } = launch;
    let api: Api<CertificateRequestPolicy> = Api::all(client.clone());
    let reporter = Reporter {
        controller: "certgate-policy-readiness".to_owned(),
        instance: settings.instance,
    };
    let context = Arc::new(Context {
        approver: Approver::new(Arc::new(certgate_cel::PolicyCel::default())),
        effects: KubeEffects { api: api.clone(), events: EventSink::new(client, reporter, NAME) },
        clock,
    });
    Controller::new(api, watcher::Config::default())
        .graceful_shutdown_on(shutdown)
        .run(reconcile, error_policy, context)
        .for_each(|outcome| async move {
            if let Err(err) = outcome {
                tracing::warn!(controller = NAME, error = %err, "reconcile failed");
            }
        })
        .await;
}

async fn reconcile<E: Effects>(
    policy: Arc<CertificateRequestPolicy>,
    context: Arc<Context<E>>,
) -> Result<Action, ReconcileError> {
    let name = policy.metadata.name.clone().unwrap_or_default();
    let ready = ReadyCondition::from_validation(&context.approver.validate_policy(&policy));
    let now = Timestamp::try_from(context.clock.now()).unwrap_or(Timestamp::UNIX_EPOCH);
    let condition = ready.condition(&policy, Time(now));
    let current = policy
        .status
        .as_ref()
        .and_then(|s| s.conditions.as_deref())
        .unwrap_or_default()
        .iter()
        .find(|c| c.type_ == CONDITION_READY);
    if current == Some(&condition) {
        return Ok(Action::requeue(RESYNC));
    }
    context
        .effects
        .write_ready(&policy, &condition)
        .await
        .map_err(|source| ReconcileError::Write { name: name.clone(), source })?;
    let event = Event {
        type_: if ready.ready { EventType::Normal } else { EventType::Warning },
        reason: ready.reason.to_owned(),
        note: Some(ready.message.clone()),
        action: "Reconcile".to_owned(),
        secondary: None,
    };
    context.effects.publish(&policy, &event).await;
    tracing::info!(controller = NAME, policy = %name, ready = ready.ready, "Ready condition written");
    Ok(Action::requeue(RESYNC))
}

fn error_policy<E>(
    _policy: Arc<CertificateRequestPolicy>,
    _error: &ReconcileError,
    _context: Arc<Context<E>>,
) -> Action {
    Action::requeue(Duration::from_secs(5))
}

#[cfg(test)]
mod tests {
    use std::time::UNIX_EPOCH;

    use certgate_clock::ManualClock;

    use super::*;
    use crate::recorded::Recorded;

    const DNS_POLICY: &str = include_str!("../../../examples/dns/policy.yaml");

    impl Effects for Recorded {
        async fn write_ready(
            &self,
            policy: &CertificateRequestPolicy,
            condition: &Condition,
        ) -> Result<(), kube::Error> {
            self.write(format!(
                "write {} {}={} {} generation {:?} at {}: {}",
                policy.metadata.name.as_deref().unwrap_or_default(),
                condition.type_,
                condition.status,
                condition.reason,
                condition.observed_generation,
                condition.last_transition_time.0,
                condition.message
            ))
        }

        async fn publish(&self, policy: &CertificateRequestPolicy, event: &Event) {
            self.event(policy.metadata.name.as_deref().unwrap_or_default(), event);
        }
    }

    fn context(fail_writes: bool) -> Arc<Context<Recorded>> {
        let at = UNIX_EPOCH + Duration::from_secs(1_793_791_845);
        Arc::new(Context {
            approver: Approver::new(Arc::new(certgate_cel::PolicyCel::default())),
            effects: if fail_writes {
                Recorded::refusing("policies are read-only", "Forbidden")
            } else {
                Recorded::default()
            },
            clock: Arc::new(ManualClock::at(at)),
        })
    }

    fn dns_policy(generation: i64) -> CertificateRequestPolicy {
        let mut policy: CertificateRequestPolicy = serde_saphyr::from_str(DNS_POLICY).unwrap();
        policy.metadata.generation = Some(generation);
        policy
    }

    async fn reconciled(
        policy: CertificateRequestPolicy,
        context: &Arc<Context<Recorded>>,
    ) -> Vec<String> {
        let action = reconcile(Arc::new(policy), Arc::clone(context)).await.unwrap();
        assert_eq!(action, Action::requeue(RESYNC));
        context.effects.calls()
    }

    #[tokio::test]
    async fn a_new_valid_policy_becomes_ready_at_the_clocks_time_with_an_event() {
        let context = context(false);
        assert_eq!(
            reconciled(dns_policy(3), &context).await,
            [
                "write namespace-local-dns Ready=True Ready generation Some(3) at \
                 2026-11-04T11:30:45Z: CertificateRequestPolicy is ready for approval evaluation",
                "event namespace-local-dns Normal Ready Reconcile: CertificateRequestPolicy is ready for approval \
                 evaluation",
            ]
        );
    }

    #[tokio::test]
    async fn a_current_condition_is_not_written_again() {
        let context = context(false);
        let mut policy = dns_policy(3);
        let ready = ReadyCondition::from_validation(&context.approver.validate_policy(&policy));
        // Written an hour before the clock's time: still the same condition.
        let earlier = Timestamp::from_second(1_793_791_845 - 3_600).unwrap();
        policy.status = Some(
            serde_json::from_value(
                json!({"conditions": [ready.condition(&policy, Time(earlier))]}),
            )
            .unwrap(),
        );
        assert_eq!(reconciled(policy, &context).await, Vec::<String>::new());
    }

    #[tokio::test]
    async fn a_broken_rule_makes_the_policy_not_ready_with_a_warning() {
        let context = context(false);
        let mut policy = dns_policy(1);
        let dns = policy.spec.allowed.as_mut().unwrap().dns_names.as_mut().unwrap();
        dns.validations.as_mut().unwrap()[0].rule = "self.endsWith(".to_owned();
        let calls = reconciled(policy, &context).await;
        assert_eq!(calls.len(), 2, "{calls:?}");
        let prefix = "CertificateRequestPolicy is not ready for approval evaluation: ";
        assert!(
            calls[0].starts_with(&format!(
                "write namespace-local-dns Ready=False NotReady generation Some(1) at \
                 2026-11-04T11:30:45Z: {prefix}spec.allowed.dnsNames.validations[0]: Invalid value: \
                 \"self.endsWith(\": ERROR: <input>:1:15: Syntax error: mismatched input '<EOF>' \
                 expecting {{'[', '{{', '(', ')', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}}"
            )),
            "{}",
            calls[0]
        );
        assert!(
            calls[1].starts_with(&format!(
                "event namespace-local-dns Warning NotReady Reconcile: {prefix}"
            )),
            "{}",
            calls[1]
        );
    }

    #[tokio::test]
    async fn a_refused_write_is_the_reconcile_error_and_records_no_event() {
        let context = context(true);
        let error = reconcile(Arc::new(dns_policy(1)), Arc::clone(&context)).await.unwrap_err();
        assert!(
            error.to_string().starts_with(
                "cannot write the Ready condition of CertificateRequestPolicy \
                 \"namespace-local-dns\": ApiError: policies are read-only: Forbidden"
            ),
            "{error}"
        );
        assert_eq!(context.effects.calls().len(), 1, "a write, no event");
        assert_eq!(
            error_policy(Arc::new(dns_policy(1)), &error, context),
            Action::requeue(Duration::from_secs(5))
        );
    }
}
