//! The `policy-readiness` controller: keeps every CertificateRequestPolicy's `Ready`
//! condition and `observedGeneration` current, from the same admission checks the policy
//! webhook runs, and records an event whenever it writes the condition.

use std::sync::Arc;
use std::time::Duration;

use certgate_api::CertificateRequestPolicy;
use certgate_approval::Approver;
use certgate_approval::readiness::{CONDITION_READY, ReadyCondition};
use certgate_runtime::ControllerSpec;
use futures_util::{FutureExt as _, StreamExt as _};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use kube::api::{Api, Patch, PatchParams};
use kube::runtime::controller::{Action, Controller};
use kube::runtime::events::{Event, EventType, Recorder};
use kube::runtime::watcher;
use kube::{Client, Resource as _};
use serde_json::json;

/// The controller's name, as `--controllers` and events name it.
pub const NAME: &str = "policy-readiness";
/// Policies are checked again this often even without a change (CEL caches, clock).
const RESYNC: Duration = Duration::from_secs(10 * 60);

#[derive(Debug, thiserror::Error)]
pub enum ReconcileError {
    #[error("cannot write the Ready condition of CertificateRequestPolicy {name:?}: {source}")]
    Write { name: String, source: kube::Error },
}

struct Context {
    api: Api<CertificateRequestPolicy>,
    approver: Approver,
    recorder: Recorder,
}

/// The controller as `--controllers` knows it: on by default.
pub const SPEC: ControllerSpec = ControllerSpec {
    name: NAME,
    on_by_default: true,
    summary: "keeps the policies' Ready condition and observedGeneration current.",
    run: |launch| run(launch.client, launch.shutdown).boxed(),
};

/// Runs until `shutdown` completes.
pub async fn run(client: Client, shutdown: impl Future<Output = ()> + Send + Sync + 'static) {
    let api: Api<CertificateRequestPolicy> = Api::all(client.clone());
    let context = Arc::new(Context {
        api: api.clone(),
        approver: Approver::new(Arc::new(certgate_cel::PolicyCel::default())),
        recorder: Recorder::new(client, "certgate-policy-readiness".into()),
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

async fn reconcile(
    policy: Arc<CertificateRequestPolicy>,
    context: Arc<Context>,
) -> Result<Action, ReconcileError> {
    let name = policy.metadata.name.clone().unwrap_or_default();
    let ready = ReadyCondition::from_validation(&context.approver.validate_policy(&policy));
    let condition = ready.condition(&policy, Time(k8s_openapi::jiff::Timestamp::now()));
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
    // A merge patch of the status: `Ready` is the policy's only condition type.
    let patch = json!({"status": {"conditions": [condition]}});
    context
        .api
        .patch_status(&name, &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .map_err(|source| ReconcileError::Write { name: name.clone(), source })?;
    let event = Event {
        type_: if ready.ready { EventType::Normal } else { EventType::Warning },
        reason: ready.reason.to_owned(),
        note: Some(ready.message.clone()),
        action: "Reconcile".to_owned(),
        secondary: None,
    };
    if let Err(err) = context.recorder.publish(&event, &policy.object_ref(&())).await {
        tracing::warn!(controller = NAME, policy = %name, error = %err, "cannot record the event");
    }
    tracing::info!(controller = NAME, policy = %name, ready = ready.ready, "Ready condition written");
    Ok(Action::requeue(RESYNC))
}

fn error_policy(
    _policy: Arc<CertificateRequestPolicy>,
    _error: &ReconcileError,
    _context: Arc<Context>,
) -> Action {
    Action::requeue(Duration::from_secs(5))
}
