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
use futures_util::StreamExt as _;
use kube::api::{Api, PostParams};
use kube::runtime::controller::{Action, Config, Controller};
use kube::runtime::events::{Event, EventType, Recorder, Reporter};
use kube::runtime::watcher;
use kube::{Client, Resource as _};

use certgate_approval::outcome::{BUILTIN_MESSAGE, BUILTIN_REASON};
use certgate_runtime::{ControllerMetrics, ControllerSpec, Launch};
use futures_util::FutureExt as _;

/// The controller's name, as `--controllers` and the metrics name it.
pub const NAME: &str = "builtin-approver";

#[derive(Debug, thiserror::Error)]
pub enum ReconcileError {
    #[error("cannot approve CertificateRequest {request}: {source}")]
    Write { request: String, source: kube::Error },
}

struct Context {
    client: Client,
    recorder: Recorder,
    metrics: Arc<ControllerMetrics>,
}

/// The controller as `--controllers` knows it: off by default.
pub const SPEC: ControllerSpec = ControllerSpec {
    name: NAME,
    on_by_default: false,
    summary: "cert-manager's approve-everything controller (reason cert-manager.io);\n\
              off by default, add it with --controllers=*,builtin-approver.",
    run: |launch| run(launch).boxed(),
};

/// Runs until the launch's shutdown completes.
pub async fn run(launch: Launch) {
    let Launch { client, settings, metrics, shutdown } = launch;
    let api = Api::<CertificateRequest>::all(client.clone());
    let context = Arc::new(Context {
        client: client.clone(),
        recorder: Recorder::new(
            client,
            Reporter {
                controller: "cert-manager-certificaterequests-approver".to_owned(),
                instance: settings.instance,
            },
        ),
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

async fn reconcile(
    cr: Arc<CertificateRequest>,
    context: Arc<Context>,
) -> Result<Action, ReconcileError> {
    if !wants_approval(&cr) {
        return Ok(Action::await_change());
    }
    let started = Instant::now();
    let name = cr.metadata.name.clone().unwrap_or_default();
    let namespace = cr.metadata.namespace.clone().unwrap_or_default();
    let request = format!("{namespace}/{name}");
    // A status update of the object as cached: a stale copy fails with a conflict and is
    // retried from the newer one the watch brings, as upstream's update does.
    let mut updated = CertificateRequest::clone(&cr);
    // `wants_approval` checked that the request is undecided, which is all `decide` refuses.
    let now = certgate_runtime::now_rfc3339();
    if decide(&mut updated.status, ManualDecision::Approve, BUILTIN_REASON, BUILTIN_MESSAGE, &now)
        .is_err()
    {
        return Ok(Action::await_change());
    }
    let api: Api<CertificateRequest> = Api::namespaced(context.client.clone(), &namespace);
    api.replace_status(&name, &PostParams::default(), &updated)
        .await
        .map_err(|source| ReconcileError::Write { request: request.clone(), source })?;
    let event = Event {
        type_: EventType::Normal,
        reason: BUILTIN_REASON.to_owned(),
        note: Some(BUILTIN_MESSAGE.to_owned()),
        action: "Approve".to_owned(),
        secondary: None,
    };
    if let Err(err) = context.recorder.publish(&event, &cr.object_ref(&())).await {
        tracing::warn!(controller = NAME, request = %request, error = %err, "cannot record the event");
    }
    context.metrics.decision(NAME, "approved");
    context.metrics.reconciled(NAME, started.elapsed());
    tracing::info!(controller = NAME, request = %request, "approved");
    Ok(Action::await_change())
}

fn error_policy(
    _cr: Arc<CertificateRequest>,
    error: &ReconcileError,
    context: Arc<Context>,
) -> Action {
    tracing::warn!(controller = NAME, error = %error, "reconcile failed");
    context.metrics.error(NAME);
    Action::requeue(Duration::from_secs(5))
}

#[cfg(test)]
mod tests {
    use certgate_api::certificate_request::{
        CertificateRequestCondition, CertificateRequestStatus,
    };

    use super::*;

    fn with(conditions: &[(&str, &str, &str)]) -> CertificateRequest {
        let mut cr = CertificateRequest::new("request", Default::default());
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
