//! The `builtin-approver` controller: cert-manager's own approver
//! (`certificaterequests-approver`, cert-manager-requests spec §5). It approves every
//! pending request it sees with reason `cert-manager.io`; which issuers it can approve is
//! limited only by its ServiceAccount's `approve` permission on `signers`, which the webhook
//! checks. Off by default: run it only where no policy should decide, or it races the
//! policy approver.

use std::sync::Arc;
use std::time::{Duration, Instant};

use certgate_api::CertificateRequest;
use certgate_api::certificate_request::manual::{ManualDecision, decide, decided};
use certgate_approval::outcome::{BUILTIN_MESSAGE, BUILTIN_REASON};
use certgate_clock::Clock;
use certgate_runtime::{ControllerMetrics, ControllerSpec, EventSink, Launch};
use futures_util::{FutureExt as _, StreamExt as _};
use kube::api::{Api, PostParams};
use kube::runtime::controller::{Action, Config, Controller};
use kube::runtime::events::{Event, EventType, Reporter};
use kube::runtime::watcher;
use kube::{Client, Resource as _};

/// The controller's name, as `--controllers` and the metrics name it.
pub const NAME: &str = "builtin-approver";

#[derive(Debug, thiserror::Error)]
pub enum ReconcileError {
    #[error("cannot approve CertificateRequest {request}: {source}")]
    Write { request: String, source: kube::Error },
}

/// What a reconcile does to the cluster: the I/O seam, so every branch of the reconcile is
/// tested without one.
trait Effects: Send + Sync + 'static {
    /// Replaces the request's status with `updated`'s (an update of the cached object: a
    /// stale copy fails with a conflict, as upstream's update does).
    fn update_status(
        &self,
        updated: &CertificateRequest,
    ) -> impl Future<Output = Result<(), kube::Error>> + Send;
    /// Records `event` about the request; failures are logged, not returned.
    fn publish(&self, cr: &CertificateRequest, event: &Event) -> impl Future<Output = ()> + Send;
}

/// [`Effects`] through the API server, with events from cert-manager's reporting
/// controller name.
struct KubeEffects {
    client: Client,
    events: EventSink,
}

impl Effects for KubeEffects {
    async fn update_status(&self, updated: &CertificateRequest) -> Result<(), kube::Error> {
        let api: Api<CertificateRequest> = Api::namespaced(
            self.client.clone(),
            updated.metadata.namespace.as_deref().unwrap_or_default(),
        );
        let name = updated.metadata.name.as_deref().unwrap_or_default();
        api.replace_status(name, &PostParams::default(), updated).await.map(|_| ())
    }

    async fn publish(&self, cr: &CertificateRequest, event: &Event) {
        self.events.publish(&cr.object_ref(&()), event).await;
    }
}

struct Context<E> {
    effects: E,
    clock: Arc<dyn Clock>,
    metrics: Arc<ControllerMetrics>,
}

/// The controller as `--controllers` knows it: off by default.
pub const SPEC: ControllerSpec = ControllerSpec {
    name: NAME,
    on_by_default: false,
    summary: "cert-manager's approve-everything controller (reason cert-manager.io);\n\
              off by default, add it with --controllers=*,builtin-approver.",
    results: &["approved"],
    run: |launch| run(launch).boxed(),
};

/// Runs until the launch's shutdown completes.
pub async fn run(launch: Launch) {
    let Launch { client, settings, metrics, clock, shutdown, .. } = launch;
    let api = Api::<CertificateRequest>::all(client.clone());
    let reporter = Reporter {
        controller: "cert-manager-certificaterequests-approver".to_owned(),
        instance: settings.instance,
    };
    let context = Arc::new(Context {
        effects: KubeEffects { events: EventSink::new(client.clone(), reporter, NAME), client },
        clock,
        metrics,
    });
    Controller::new(api, watcher::Config::default())
        .with_config(Config::default().concurrency(settings.concurrency))
        .graceful_shutdown_on(shutdown)
        .run(reconcile, error_policy, context)
        .for_each(|outcome| async move {
            if let Err(err) = outcome {
                tracing::debug!(controller = NAME, error = %err, "reconcile did not complete");
            }
        })
        .await;
}

/// Whether cert-manager's approver would approve the request: not decided, and not already
/// finished (`Ready` with reason `Failed` or `Issued`).
pub fn wants_approval(cr: &CertificateRequest) -> bool {
    if decided(cr.status.as_ref()).is_some() || cr.metadata.deletion_timestamp.is_some() {
        return false;
    }
    let conditions = cr.status.as_ref().and_then(|s| s.conditions.as_deref()).unwrap_or_default();
    !conditions.iter().any(|c| {
        c.type_ == "Ready" && matches!(c.reason.as_deref(), Some("Failed") | Some("Issued"))
    })
}

async fn reconcile<E: Effects>(
    cr: Arc<CertificateRequest>,
    context: Arc<Context<E>>,
) -> Result<Action, ReconcileError> {
    if !wants_approval(&cr) {
        return Ok(Action::await_change());
    }
    let started = Instant::now();
    let request = format!(
        "{}/{}",
        cr.metadata.namespace.as_deref().unwrap_or_default(),
        cr.metadata.name.as_deref().unwrap_or_default()
    );
    let mut updated = CertificateRequest::clone(&cr);
    // `wants_approval` checked that the request is undecided, which is all `decide` refuses.
    let now = context.clock.now_rfc3339();
    if decide(&mut updated.status, ManualDecision::Approve, BUILTIN_REASON, BUILTIN_MESSAGE, &now)
        .is_err()
    {
        return Ok(Action::await_change());
    }
    context
        .effects
        .update_status(&updated)
        .await
        .map_err(|source| ReconcileError::Write { request: request.clone(), source })?;
    let event = Event {
        type_: EventType::Normal,
        reason: BUILTIN_REASON.to_owned(),
        note: Some(BUILTIN_MESSAGE.to_owned()),
        action: "Approve".to_owned(),
        secondary: None,
    };
    context.effects.publish(&cr, &event).await;
    context.metrics.decision(NAME, "approved");
    context.metrics.reconciled(NAME, started.elapsed());
    tracing::info!(controller = NAME, request = %request, "approved");
    Ok(Action::await_change())
}

fn error_policy<E: Effects>(
    _cr: Arc<CertificateRequest>,
    error: &ReconcileError,
    context: Arc<Context<E>>,
) -> Action {
    tracing::warn!(controller = NAME, error = %error, "reconcile failed");
    context.metrics.error(NAME);
    Action::requeue(Duration::from_secs(5))
}

#[cfg(test)]
mod tests {
    use std::time::UNIX_EPOCH;

    use certgate_api::certificate_request::{
        CertificateRequestCondition, CertificateRequestStatus,
    };
    use certgate_clock::ManualClock;

    use super::*;
    use crate::recorded::Recorded;

    fn with(conditions: &[(&str, &str, &str)]) -> CertificateRequest {
        let mut cr = CertificateRequest::new("request", Default::default());
        cr.metadata.namespace = Some("payments".to_owned());
        cr.status = Some(CertificateRequestStatus {
            conditions: Some(
                conditions
                    .iter()
                    .map(|(type_, status, reason)| CertificateRequestCondition {
                        type_: (*type_).to_owned(),
                        status: (*status).to_owned(),
                        reason: Some((*reason).to_owned()),
                        ..Default::default()
                    })
                    .collect(),
            ),
            ..Default::default()
        });
        cr
    }

    impl Effects for Recorded {
        async fn update_status(&self, updated: &CertificateRequest) -> Result<(), kube::Error> {
            let conditions = updated.status.as_ref().and_then(|s| s.conditions.as_deref());
            let line = conditions
                .unwrap_or_default()
                .iter()
                .map(|c| {
                    format!(
                        "{}={} {} at {}: {}",
                        c.type_,
                        c.status,
                        c.reason.as_deref().unwrap_or_default(),
                        c.last_transition_time.as_deref().unwrap_or_default(),
                        c.message.as_deref().unwrap_or_default()
                    )
                })
                .collect::<Vec<_>>()
                .join("; ");
            self.write(format!("update {line}"))
        }

        async fn publish(&self, cr: &CertificateRequest, event: &Event) {
            self.event(cr.metadata.name.as_deref().unwrap_or_default(), event);
        }
    }

    fn context(fail_writes: bool) -> Arc<Context<Recorded>> {
        let at = UNIX_EPOCH + Duration::from_secs(1_793_791_845);
        Arc::new(Context {
            effects: if fail_writes {
                Recorded::refusing("the object has been modified", "Conflict")
            } else {
                Recorded::default()
            },
            clock: Arc::new(ManualClock::at(at)),
            metrics: Arc::new(ControllerMetrics::default()),
        })
    }

    async fn calls(cr: CertificateRequest, context: &Arc<Context<Recorded>>) -> Vec<String> {
        let action = reconcile(Arc::new(cr), Arc::clone(context)).await.unwrap();
        assert_eq!(action, Action::await_change());
        context.effects.calls()
    }

    #[tokio::test]
    async fn a_pending_request_is_approved_at_the_clocks_time_then_an_event_is_recorded() {
        let context = context(false);
        assert_eq!(
            calls(with(&[("Ready", "False", "Pending")]), &context).await,
            [
                "update Ready=False Pending at : ; Approved=True cert-manager.io at \
                 2026-11-04T11:30:45Z: Certificate request has been approved by cert-manager.io",
                "event request Normal cert-manager.io Approve: Certificate request has been approved by \
                 cert-manager.io",
            ]
        );
        assert!(context.metrics.encode().unwrap().contains("result=\"approved\"} 1"));
    }

    #[tokio::test]
    async fn decided_and_finished_requests_are_left_alone() {
        let context = context(false);
        for cr in [
            with(&[("Denied", "True", "x")]),
            with(&[("Approved", "True", "x")]),
            with(&[("Ready", "True", "Issued")]),
        ] {
            assert_eq!(calls(cr, &context).await, Vec::<String>::new());
        }
    }

    #[tokio::test]
    async fn a_refused_update_is_the_reconcile_error_and_records_no_event() {
        let context = context(true);
        let error = reconcile(Arc::new(with(&[])), Arc::clone(&context)).await.unwrap_err();
        assert!(
            error.to_string().starts_with(
                "cannot approve CertificateRequest payments/request: ApiError: the object has \
                 been modified: Conflict"
            ),
            "{error}"
        );
        assert_eq!(context.effects.calls().len(), 1, "an update, no event");
        assert_eq!(
            error_policy(Arc::new(with(&[])), &error, Arc::clone(&context)),
            Action::requeue(Duration::from_secs(5))
        );
        assert!(context.metrics.encode().unwrap().contains("builtin-approver"));
    }

    #[test]
    fn the_approval_is_cert_managers() {
        let mut status = None;
        decide(&mut status, ManualDecision::Approve, BUILTIN_REASON, BUILTIN_MESSAGE, "t").unwrap();
        let condition = &status.unwrap().conditions.unwrap()[0];
        assert_eq!(condition.type_, "Approved");
        assert_eq!(condition.reason.as_deref(), Some("cert-manager.io"));
        assert_eq!(
            condition.message.as_deref(),
            Some("Certificate request has been approved by cert-manager.io")
        );
    }

    #[test]
    fn approves_pending_requests_only_and_never_finished_ones() {
        assert!(wants_approval(&CertificateRequest::new("request", Default::default())));
        assert!(wants_approval(&with(&[("Ready", "False", "Pending")])));
        assert!(wants_approval(&with(&[("Approved", "False", "x")])));
        assert!(!wants_approval(&with(&[("Approved", "True", "x")])));
        assert!(!wants_approval(&with(&[("Denied", "True", "x")])));
        assert!(!wants_approval(&with(&[("Ready", "False", "Failed")])));
        assert!(!wants_approval(&with(&[("Ready", "True", "Issued")])));
    }
}
