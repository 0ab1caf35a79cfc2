//! The `issuers` and `clusterissuers` controllers: the `Ready` condition of CA and
//! SelfSigned issuers ([`crate::setup`]), written when it changes, with upstream's events.
//! An issuer is looked at again when it changes, when a Secret of its namespace (the
//! cluster resource namespace for ClusterIssuers) with its `spec.ca.secretName` changes,
//! and every 30 seconds while its CA Secret cannot be read.

use std::marker::PhantomData;
use std::sync::Arc;
use std::time::{Duration, Instant};

use certgate_api::cert_manager::{ClusterIssuer, Issuer};
use certgate_clock::Clock;
use certgate_runtime::{ControllerMetrics, ControllerSpec, Launch};
use futures_util::{FutureExt as _, StreamExt as _};
use k8s_openapi::api::core::v1::Secret;
use kube::api::Api;
use kube::core::PartialObjectMeta;
use kube::runtime::controller::{Action, Config, Controller};
use kube::runtime::events::Reporter;
use kube::runtime::reflector::{ObjectRef, Store};
use kube::runtime::{WatchStreamExt as _, watcher};

use crate::effects::{Effects, KubeEffects, kube_event, reference};
use crate::generic::{GenericIssuer, IssuerApi};
use crate::setup::{self, SecretLookup};

/// How long a CA issuer whose Secret cannot be read waits before it is looked at again
/// (a change of the Secret wakes it at once).
pub const RETRY: Duration = Duration::from_secs(30);

#[derive(Debug, thiserror::Error)]
pub enum ReconcileError {
    #[error("cannot write the Ready condition of {kind} {name}: {source}")]
    Write { kind: &'static str, name: String, source: kube::Error },
}

pub(crate) struct Context<I, E> {
    pub(crate) effects: E,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) metrics: Arc<ControllerMetrics>,
    /// cert-manager's `--cluster-resource-namespace`.
    pub(crate) cluster_resource_namespace: String,
    pub(crate) kind: PhantomData<fn() -> I>,
}

/// `issuers`: off by default.
pub const ISSUERS: ControllerSpec = ControllerSpec {
    name: <Issuer as GenericIssuer>::CONTROLLER,
    on_by_default: false,
    summary: "cert-manager's issuers controller: the Ready condition of\n\
              CA and SelfSigned Issuers; off by default.",
    results: ISSUER_RESULTS,
    run: |launch| run::<Issuer>(launch).boxed(),
};

/// `clusterissuers`: off by default.
pub const CLUSTER_ISSUERS: ControllerSpec = ControllerSpec {
    name: <ClusterIssuer as GenericIssuer>::CONTROLLER,
    on_by_default: false,
    summary: "the same for ClusterIssuers (CA Secrets in\n\
              --cluster-resource-namespace); off by default.",
    results: ISSUER_RESULTS,
    run: |launch| run::<ClusterIssuer>(launch).boxed(),
};

/// What an issuer controller counts: the Ready condition it wrote.
const ISSUER_RESULTS: &[&str] = &["ready", "not-ready"];

/// Runs the controller of `I` until the launch's shutdown completes.
pub async fn run<I: IssuerApi>(launch: Launch) {
    let Launch { client, settings, metrics, clock, shutdown, .. } = launch;
    let reporter = Reporter {
        controller: format!("cert-manager-{}", I::CONTROLLER),
        instance: settings.instance,
    };
    let context = Arc::new(Context::<I, _> {
        effects: KubeEffects::new(client.clone(), reporter, I::CONTROLLER),
        clock,
        metrics,
        cluster_resource_namespace: crate::cluster_resource_namespace().to_owned(),
        kind: PhantomData,
    });
    let controller = Controller::new(I::api(client.clone(), None), watcher::Config::default());
    let issuers = controller.store();
    let secrets =
        watcher(Api::<PartialObjectMeta<Secret>>::all(client), watcher::Config::default())
            .default_backoff()
            .touched_objects();
    let namespace = context.cluster_resource_namespace.clone();
    controller
        .with_config(Config::default().concurrency(settings.concurrency))
        .watches_stream(secrets, move |secret| referencing(&issuers, &secret, &namespace))
        .graceful_shutdown_on(shutdown)
        .run(reconcile, error_policy, context)
        .for_each(|outcome| async move {
            if let Err(err) = outcome {
                tracing::debug!(controller = I::CONTROLLER, error = %err, "reconcile did not complete");
            }
        })
        .await;
}

/// The issuers whose CA Secret `secret` is.
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
        .filter(|issuer| {
            setup::ca_secret(issuer.config()) == Some(name)
                && issuer.resource_namespace(cluster_resource_namespace) == namespace
        })
        .map(|issuer| ObjectRef::from_obj(issuer.as_ref()))
        .collect()
}

fn describe<I: IssuerApi>(issuer: &I) -> String {
    match issuer.meta().namespace.as_deref() {
        Some(namespace) => {
            format!("{namespace}/{}", issuer.meta().name.as_deref().unwrap_or_default())
        }
        None => issuer.meta().name.clone().unwrap_or_default(),
    }
}

pub(crate) async fn reconcile<I: IssuerApi, E: Effects>(
    issuer: Arc<I>,
    context: Arc<Context<I, E>>,
) -> Result<Action, ReconcileError> {
    if issuer.meta().deletion_timestamp.is_some() {
        return Ok(Action::await_change());
    }
    let started = Instant::now();
    let namespace = issuer.resource_namespace(&context.cluster_resource_namespace).to_owned();
    let read = match setup::ca_secret(issuer.config()) {
        Some(name) => Some(context.effects.read_secret(&namespace, name).await),
        None => None,
    };
    let error_text;
    let lookup = match &read {
        Some(Ok(Some(data))) => SecretLookup::Found(data),
        Some(Ok(None)) | None => SecretLookup::NotFound,
        Some(Err(error)) => {
            error_text = error.to_string();
            SecretLookup::Error(&error_text)
        }
    };
    let Some(decided) = setup::setup(issuer.config(), &namespace, lookup) else {
        return Ok(Action::await_change());
    };
    let mut updated = I::clone(&issuer);
    setup::apply(
        updated.status_mut(),
        &decided.condition,
        issuer.meta().generation,
        &context.clock.now_rfc3339(),
    );
    let name = describe(issuer.as_ref());
    if updated.status() != issuer.status() {
        context.effects.write_issuer_status(&updated).await.map_err(|source| {
            ReconcileError::Write { kind: I::KIND, name: name.clone(), source }
        })?;
        tracing::info!(
            controller = I::CONTROLLER,
            issuer = %name,
            ready = decided.condition.ready,
            reason = decided.condition.reason,
            "Ready condition written"
        );
    }
    let regarding = reference(issuer.as_ref());
    for event in &decided.events {
        context.effects.publish(&regarding, &kube_event(event, "Setup")).await;
    }
    let result = if decided.condition.ready { "ready" } else { "not-ready" };
    context.metrics.decision(I::CONTROLLER, result);
    context.metrics.reconciled(I::CONTROLLER, started.elapsed());
    Ok(if decided.retry { Action::requeue(RETRY) } else { Action::await_change() })
}

pub(crate) fn error_policy<I: IssuerApi, E: Effects>(
    _issuer: Arc<I>,
    error: &ReconcileError,
    context: Arc<Context<I, E>>,
) -> Action {
    tracing::warn!(controller = I::CONTROLLER, error = %error, "reconcile failed");
    context.metrics.error(I::CONTROLLER);
    Action::requeue(Duration::from_secs(5))
}

#[cfg(test)]
mod tests;
