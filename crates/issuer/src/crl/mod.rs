//! `issuers-crl`: certgate's CRL publishing for CA issuers (beyond upstream, issue #22). A CA
//! Issuer or ClusterIssuer annotated `certgate.io/crl-secret-name: <secret>` gets `crl.pem`
//! in that Secret (in its resource namespace) kept current: signed by its CA, listing every
//! entry of the Secret's `revocations.json` (written by `certgate revoke`) whose certificate
//! has not expired, its cRLNumber one more than the published CRL's, renewed before it
//! expires. Issuers without the annotation are not touched.
//!
//! [`decide`] is pure (snapshot → CRL to write); the reconcile reads the two Secrets, writes
//! through [`effects`]' seam with the CRL Secret's resourceVersion (a conflict reads again),
//! and records events on the issuer. An issuer is looked at again when it changes, when its
//! CA or CRL Secret changes, and when its CRL enters the refresh margin.

use std::sync::Arc;
use std::time::{Duration, Instant};

use certgate_api::cert_manager::{ClusterIssuer, Issuer};
use certgate_clock::Clock;
use certgate_crl::Timestamp;
use certgate_runtime::{ControllerMetrics, ControllerSpec, CrlSeries, Launch};
use futures_util::{FutureExt as _, StreamExt as _};
use k8s_openapi::api::core::v1::{ObjectReference, Secret};
use kube::api::Api;
use kube::core::PartialObjectMeta;
use kube::runtime::controller::{Action, Config, Controller};
use kube::runtime::events::{Event, EventType, Reporter};
use kube::runtime::reflector::{ObjectRef, Store};
use kube::runtime::{WatchStreamExt as _, watcher};

use crate::effects::reference;
use crate::generic::IssuerApi;
use crate::setup::{self, SecretLookup};

pub mod decide;
pub mod effects;
mod key;

use decide::{CRL_KEY, CRL_PUBLISHED, Decision, Failure, Snapshot};
use effects::{CrlEffects, KubeCrlEffects, describe_error, is_conflict, secret_data, with_key};

/// The controller's name.
pub const NAME: &str = "issuers-crl";
/// How long an issuer whose Secret could not be read waits before it is looked at again.
pub const RETRY: Duration = Duration::from_secs(30);
/// Writes tried per reconcile when the CRL Secret keeps changing underneath.
const ATTEMPTS: usize = 3;

/// `issuers-crl`: off by default.
pub const SPEC: ControllerSpec = ControllerSpec {
    name: NAME,
    on_by_default: false,
    summary: "certgate's CRL publishing for CA Issuers and ClusterIssuers\n\
              annotated certgate.io/crl-secret-name: crl.pem kept current\n\
              from the Secret's revocations.json (certgate revoke); off by\n\
              default.",
    results: &["published", "current", "failed"],
    run: |launch| run(launch).boxed(),
};

#[derive(Debug, thiserror::Error)]
pub enum ReconcileError {
    #[error("cannot write the CRL secret {secret} of {kind} {issuer}: {}", describe_error(.source))]
    Write { kind: &'static str, issuer: String, secret: String, source: kube::Error },
    #[error(
        "the CRL secret {secret} of {kind} {issuer} changed during {ATTEMPTS} writes in a row; trying again"
    )]
    Contended { kind: &'static str, issuer: String, secret: String },
}

pub(crate) struct Context<E> {
    pub(crate) effects: E,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) metrics: Arc<ControllerMetrics>,
    pub(crate) cluster_resource_namespace: String,
}

/// Runs the controller for Issuers and ClusterIssuers until the launch's shutdown completes.
pub async fn run(launch: Launch) {
    let Launch { client, settings, metrics, clock, shutdown, .. } = launch;
    let reporter = Reporter { controller: format!("certgate-{NAME}"), instance: settings.instance };
    let context = Arc::new(Context {
        effects: KubeCrlEffects::new(client.clone(), reporter, NAME),
        clock,
        metrics,
        cluster_resource_namespace: crate::cluster_resource_namespace().to_owned(),
    });
    let concurrency = settings.concurrency;
    futures_util::future::join(
        run_kind::<Issuer>(client.clone(), Arc::clone(&context), concurrency, shutdown.clone()),
        run_kind::<ClusterIssuer>(client, context, concurrency, shutdown),
    )
    .await;
}

async fn run_kind<I: IssuerApi>(
    client: kube::Client,
    context: Arc<Context<KubeCrlEffects>>,
    concurrency: u16,
    shutdown: certgate_runtime::Shutdown,
) {
    let controller = Controller::new(I::api(client.clone(), None), watcher::Config::default());
    let issuers = controller.store();
    let secrets =
        watcher(Api::<PartialObjectMeta<Secret>>::all(client), watcher::Config::default())
            .default_backoff()
            .touched_objects();
    let namespace = context.cluster_resource_namespace.clone();
    controller
        .with_config(Config::default().concurrency(concurrency))
        .watches_stream(secrets, move |secret| referencing(&issuers, &secret, &namespace))
        .graceful_shutdown_on(shutdown)
        .run(reconcile, error_policy, context)
        .for_each(|outcome| async move {
            if let Err(err) = outcome {
                tracing::debug!(controller = NAME, error = %err, "reconcile did not complete");
            }
        })
        .await;
}

/// The publishing issuers whose CA Secret or CRL Secret `secret` is.
fn referencing<I: IssuerApi>(
    issuers: &Store<I>,
    secret: &PartialObjectMeta<Secret>,
    cluster_resource_namespace: &str,
) -> Vec<ObjectRef<I>> {
    let name = secret.metadata.name.as_deref().unwrap_or_default();
    let namespace = secret.metadata.namespace.as_deref().unwrap_or_default();
    issuers
        .state()
        .iter()
        .filter(|issuer| issuer.resource_namespace(cluster_resource_namespace) == namespace)
        .filter(|issuer| {
            let crl_secret = issuer
                .meta()
                .annotations
                .as_ref()
                .and_then(|a| a.get(decide::CRL_SECRET_ANNOTATION));
            crl_secret.is_some()
                && (crl_secret.map(String::as_str) == Some(name)
                    || setup::ca_secret(issuer.config()) == Some(name))
        })
        .map(|issuer| ObjectRef::from_obj(issuer.as_ref()))
        .collect()
}

fn describe<I: IssuerApi>(issuer: &I) -> String {
    let name = issuer.meta().name.as_deref().unwrap_or_default();
    match issuer.meta().namespace.as_deref() {
        Some(namespace) => format!("{namespace}/{name}"),
        None => name.to_owned(),
    }
}

fn event(warning: bool, reason: &str, note: String) -> Event {
    Event {
        type_: if warning { EventType::Warning } else { EventType::Normal },
        reason: reason.to_owned(),
        note: Some(note),
        action: "PublishCRL".to_owned(),
        secondary: None,
    }
}

pub(crate) async fn reconcile<I: IssuerApi, E: CrlEffects>(
    issuer: Arc<I>,
    context: Arc<Context<E>>,
) -> Result<Action, ReconcileError> {
    if issuer.meta().deletion_timestamp.is_some() {
        return Ok(Action::await_change());
    }
    let Some(publishing) = decide::publishing(issuer.meta().annotations.as_ref(), issuer.config())
    else {
        return Ok(Action::await_change());
    };
    let started = Instant::now();
    let regarding = reference(issuer.as_ref());
    let name = describe(issuer.as_ref());
    let publishing = match publishing {
        Ok(publishing) => publishing,
        Err(failure) => return failed(&context, &regarding, &name, started, failure).await,
    };
    let namespace = issuer.resource_namespace(&context.cluster_resource_namespace).to_owned();
    let secret_name = format!("{namespace}/{}", publishing.crl_secret);
    for _ in 0..ATTEMPTS {
        let now = Timestamp::from_system_time(context.clock.now());
        let ca = context.effects.get_secret(&namespace, &publishing.ca_secret).await;
        let ca_data = ca.as_ref().map(|found| found.as_ref().map(secret_data));
        let error_text;
        let ca_lookup = match &ca_data {
            Ok(Some(data)) => SecretLookup::Found(data),
            Ok(None) => SecretLookup::NotFound,
            Err(error) => {
                error_text = describe_error(error);
                SecretLookup::Error(&error_text)
            }
        };
        let crl = match context.effects.get_secret(&namespace, &publishing.crl_secret).await {
            Ok(crl) => crl,
            Err(error) => {
                let failure = Failure {
                    reason: decide::CRL_SECRET_ERROR,
                    message: format!(
                        "cannot read the CRL secret {secret_name}: {}",
                        describe_error(&error)
                    ),
                    retry: true,
                };
                return failed(&context, &regarding, &name, started, failure).await;
            }
        };
        let crl_data = crl.as_ref().map(secret_data);
        let snapshot = Snapshot {
            publishing: &publishing,
            namespace: &namespace,
            ca: ca_lookup,
            crl: crl_data.as_ref(),
            now,
        };
        let publish = match decide::decide(&snapshot) {
            Decision::Failed(failure) => {
                return failed(&context, &regarding, &name, started, failure).await;
            }
            Decision::Current { check_at, next_update, entries } => {
                if let Some(next_update) = next_update {
                    let series = crl_series(issuer.as_ref(), &namespace, &publishing.crl_secret);
                    context.metrics.set_crl(&series, next_update.unix(), entries);
                }
                context.metrics.decision(NAME, "current");
                context.metrics.reconciled(NAME, started.elapsed());
                return Ok(Action::requeue(decide::wait_until(check_at, now)));
            }
            Decision::Publish(publish) => publish,
        };
        let updated = with_key(
            crl.as_ref(),
            &namespace,
            &publishing.crl_secret,
            CRL_KEY,
            publish.crl_pem.into_bytes(),
        );
        let written = match &crl {
            Some(_) => context.effects.replace_secret(&updated).await,
            None => context.effects.create_secret(&updated).await,
        };
        match written {
            Ok(()) => {}
            Err(error) if is_conflict(&error) => continue,
            Err(source) => {
                let message = format!(
                    "cannot write the CRL to secret {secret_name}: {}; check that certgate may create and update Secrets in {namespace}",
                    describe_error(&source)
                );
                context.effects.publish(&regarding, &event(true, "CRLWriteFailed", message)).await;
                return Err(ReconcileError::Write {
                    kind: I::KIND,
                    issuer: name,
                    secret: secret_name,
                    source,
                });
            }
        }
        let note = format!(
            "Published CRL number {} with {} revoked certificates to secret {secret_name}",
            publish.number, publish.entries
        );
        tracing::info!(controller = NAME, issuer = %name, secret = %secret_name, number = %publish.number, entries = publish.entries, trigger = %publish.trigger, "CRL published");
        context.effects.publish(&regarding, &event(false, CRL_PUBLISHED, note)).await;
        let series = crl_series(issuer.as_ref(), &namespace, &publishing.crl_secret);
        context.metrics.set_crl(&series, publish.next_update.unix(), publish.entries);
        context.metrics.decision(NAME, "published");
        context.metrics.reconciled(NAME, started.elapsed());
        return Ok(Action::requeue(decide::wait_until(publish.check_at, now)));
    }
    Err(ReconcileError::Contended { kind: I::KIND, issuer: name, secret: secret_name })
}

/// The metrics series of the CRL `issuer` publishes into `namespace`/`secret`.
fn crl_series<'a, I: IssuerApi>(
    issuer: &'a I,
    namespace: &'a str,
    secret: &'a str,
) -> CrlSeries<'a> {
    let name = issuer.meta().name.as_deref().unwrap_or_default();
    CrlSeries { issuer_kind: I::KIND, issuer: name, namespace, secret }
}

async fn failed<E: CrlEffects>(
    context: &Context<E>,
    regarding: &ObjectReference,
    issuer: &str,
    started: Instant,
    failure: Failure,
) -> Result<Action, ReconcileError> {
    tracing::warn!(controller = NAME, issuer = %issuer, reason = failure.reason, message = %failure.message, "cannot publish the CRL");
    context.effects.publish(regarding, &event(true, failure.reason, failure.message)).await;
    context.metrics.decision(NAME, "failed");
    context.metrics.reconciled(NAME, started.elapsed());
    Ok(if failure.retry { Action::requeue(RETRY) } else { Action::await_change() })
}

pub(crate) fn error_policy<I: IssuerApi, E: CrlEffects>(
    _issuer: Arc<I>,
    error: &ReconcileError,
    context: Arc<Context<E>>,
) -> Action {
    tracing::warn!(controller = NAME, error = %error, "reconcile failed");
    context.metrics.error(NAME);
    Action::requeue(Duration::from_secs(5))
}

#[cfg(test)]
mod tests;
