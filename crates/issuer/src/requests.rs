//! The `certificaterequests-issuer-ca` and `certificaterequests-issuer-selfsigned`
//! controllers: every CertificateRequest through [`crate::sign`], its status written when
//! it changed, its events recorded. A request is looked at again when it changes and when
//! the Issuer or ClusterIssuer it references changes (so a request that waited for its
//! issuer to become ready is signed once it is).

use std::sync::Arc;
use std::time::{Duration, Instant};

use certgate_api::CertificateRequest;
use certgate_api::cert_manager::{ClusterIssuer, Issuer, IssuerConfig};
use certgate_clock::Clock;
use certgate_runtime::{ControllerMetrics, ControllerSpec, Launch};
use chrono::{DateTime, Utc};
use futures_util::{FutureExt as _, StreamExt as _};
use k8s_openapi::api::core::v1::Secret;
use kube::Client;
use kube::api::Api;
use kube::core::PartialObjectMeta;
use kube::runtime::controller::{Action, Config, Controller};
use kube::runtime::events::Reporter;
use kube::runtime::reflector::{self, ObjectRef, Store};
use kube::runtime::{WatchStreamExt as _, watcher};
use ring::rand::SecureRandom as _;

use crate::effects::{Effects, KubeEffects, kube_event, reference};
use crate::generic::GenericIssuer;
use crate::setup::SecretLookup;
use crate::sign::{self, IssuerFound, Signer, Step};

/// `certificaterequests-issuer-ca`.
pub const CA_NAME: &str = "certificaterequests-issuer-ca";
/// `certificaterequests-issuer-selfsigned`.
pub const SELF_SIGNED_NAME: &str = "certificaterequests-issuer-selfsigned";
/// How long a request whose Secret could not be read waits before it is tried again.
pub const RETRY: Duration = Duration::from_secs(30);

#[derive(Debug, thiserror::Error)]
pub enum ReconcileError {
    #[error("cannot write the status of CertificateRequest {request}: {source}")]
    Write { request: String, source: kube::Error },
    #[error("cannot sign CertificateRequest {request}: the system random source failed")]
    Random { request: String },
}

/// The issuers a request may reference, as the watches hold them.
#[derive(Clone)]
pub(crate) struct Issuers {
    pub(crate) issuers: Store<Issuer>,
    pub(crate) cluster_issuers: Store<ClusterIssuer>,
}

/// An issuer, resolved from a request's `spec.issuerRef`.
struct Resolved {
    config: IssuerConfig,
    ready: bool,
    resource_namespace: String,
}

impl Issuers {
    fn resolve(
        &self,
        cr: &CertificateRequest,
        cluster_resource_namespace: &str,
    ) -> Option<Resolved> {
        fn resolved<I: GenericIssuer>(issuer: &I, namespace: &str) -> Resolved {
            Resolved {
                config: issuer.config().clone(),
                ready: issuer.status().is_some_and(|s| s.is_ready()),
                resource_namespace: namespace.to_owned(),
            }
        }
        let name = &cr.spec.issuer_ref.name;
        match sign::issuer_kind(cr) {
            "ClusterIssuer" => self
                .cluster_issuers
                .get(&ObjectRef::new(name))
                .map(|found| resolved(found.as_ref(), cluster_resource_namespace)),
            "Issuer" => {
                let namespace = cr.metadata.namespace.as_deref().unwrap_or_default();
                self.issuers
                    .get(&ObjectRef::new(name).within(namespace))
                    .map(|found| resolved(found.as_ref(), namespace))
            }
            _ => None,
        }
    }
}

pub(crate) struct Context<E> {
    pub(crate) signer: Signer,
    pub(crate) name: &'static str,
    pub(crate) issuers: Issuers,
    pub(crate) effects: E,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) metrics: Arc<ControllerMetrics>,
    pub(crate) cluster_resource_namespace: String,
    /// Where serial numbers come from; `None` when the source failed.
    pub(crate) random: Box<dyn Fn() -> Option<[u8; 20]> + Send + Sync>,
}

/// `certificaterequests-issuer-ca`: off by default.
pub const CA: ControllerSpec = ControllerSpec {
    name: CA_NAME,
    on_by_default: false,
    summary: "cert-manager's CA issuer: signs approved CertificateRequests\n\
              (status.certificate, status.ca, Ready=True Issued), marks\n\
              Denied ones Ready=False Denied; off by default.",
    results: SIGNER_RESULTS,
    run: |launch| run(launch, Signer::Ca, CA_NAME).boxed(),
};

/// `certificaterequests-issuer-selfsigned`: off by default.
pub const SELF_SIGNED: ControllerSpec = ControllerSpec {
    name: SELF_SIGNED_NAME,
    on_by_default: false,
    summary: "cert-manager's SelfSigned issuer: the same, signed with the\n\
              key of the cert-manager.io/private-key-secret-name Secret;\n\
              off by default.",
    results: SIGNER_RESULTS,
    run: |launch| run(launch, Signer::SelfSigned, SELF_SIGNED_NAME).boxed(),
};

/// What a signer counts: the outcome of a request it looked at (`sign::decide`).
const SIGNER_RESULTS: &[&str] = &["issued", "denied", "failed", "pending", "waiting"];

/// Which kind and object an issuer event is about.
#[derive(Clone, Debug, PartialEq, Eq)]
struct IssuerKey {
    cluster: bool,
    namespace: String,
    name: String,
}

fn references(cr: &CertificateRequest, key: &IssuerKey) -> bool {
    let group = cr.spec.issuer_ref.group.as_deref().unwrap_or_default();
    let kind = sign::issuer_kind(cr);
    (group.is_empty() || group == certgate_issuance::signing::GROUP)
        && cr.spec.issuer_ref.name == key.name
        && if key.cluster {
            kind == "ClusterIssuer"
        } else {
            kind == "Issuer" && cr.metadata.namespace.as_deref() == Some(key.namespace.as_str())
        }
}

/// The watch of every `K`, filling `writer`'s store, and the issuers that changed. The first
/// list is not a change (nothing waits for an issuer before the stores are ready, and the
/// consumer only starts then); a later re-list is, object by object, since changes may have
/// been missed in between.
fn issuer_watch<K: GenericIssuer>(
    client: &Client,
    writer: reflector::store::Writer<K>,
) -> futures_util::stream::BoxStream<'static, IssuerKey> {
    let mut listed_once = false;
    watcher(Api::<K>::all(client.clone()), watcher::Config::default())
        .default_backoff()
        .reflect(writer)
        .filter_map(move |event| {
            let changed = match event {
                Ok(event) => changed(event, &mut listed_once),
                Err(err) => {
                    tracing::warn!(kind = K::KIND, error = %err, "issuer watch failed; retrying");
                    None
                }
            };
            std::future::ready(changed.map(|object: K| IssuerKey {
                cluster: object.meta().namespace.is_none(),
                namespace: object.meta().namespace.clone().unwrap_or_default(),
                name: object.meta().name.clone().unwrap_or_default(),
            }))
        })
        .boxed()
}

/// The object a watch event changed: applied and deleted objects; the first list's objects
/// are not changes (`listed_once` becomes true at its end), a re-list's are.
fn changed<K>(event: watcher::Event<K>, listed_once: &mut bool) -> Option<K> {
    match event {
        watcher::Event::Apply(object) | watcher::Event::Delete(object) => Some(object),
        watcher::Event::InitApply(object) => listed_once.then_some(object),
        watcher::Event::InitDone => {
            *listed_once = true;
            None
        }
        watcher::Event::Init => None,
    }
}

/// Runs the controller until the launch's shutdown completes.
pub async fn run(launch: Launch, signer: Signer, name: &'static str) {
    let Launch { client, settings, metrics, clock, shutdown, .. } = launch;
    let (issuers, issuer_writer) = reflector::store::<Issuer>();
    let (cluster_issuers, cluster_issuer_writer) = reflector::store::<ClusterIssuer>();
    let (sender, receiver) = tokio::sync::mpsc::channel::<IssuerKey>(1024);
    let driver = tokio::spawn(
        futures_util::stream::select(
            issuer_watch(&client, issuer_writer),
            issuer_watch(&client, cluster_issuer_writer),
        )
        .for_each(move |key| {
            let sender = sender.clone();
            async move {
                let _ = sender.send(key).await;
            }
        }),
    );
    let listed = async {
        issuers.wait_until_ready().await?;
        cluster_issuers.wait_until_ready().await
    };
    tokio::select! {
        result = listed => if let Err(err) = result {
            tracing::error!(controller = name, error = %err, "issuer watch stopped");
            driver.abort();
            return;
        },
        () = shutdown.clone() => {
            driver.abort();
            return;
        }
    }
    let reporter =
        Reporter { controller: format!("cert-manager-{name}"), instance: settings.instance };
    let context = Arc::new(Context {
        signer,
        name,
        issuers: Issuers { issuers, cluster_issuers },
        effects: KubeEffects::new(client.clone(), reporter, name),
        clock,
        metrics,
        cluster_resource_namespace: crate::cluster_resource_namespace().to_owned(),
        random: Box::new(system_random),
    });
    let controller =
        Controller::new(Api::<CertificateRequest>::all(client.clone()), watcher::Config::default());
    let requests = controller.store();
    let key_owners = requests.clone();
    let requeue = futures_util::stream::unfold(receiver, |mut receiver| async move {
        receiver.recv().await.map(|key| (key, receiver))
    })
    .flat_map(move |key| {
        let affected: Vec<ObjectRef<CertificateRequest>> = requests
            .state()
            .iter()
            .filter(|cr| references(cr, &key))
            .map(|cr| ObjectRef::from_obj(cr.as_ref()))
            .collect();
        futures_util::stream::iter(affected)
    });
    tracing::info!(controller = name, "issuers listed; signing requests");
    let mut controller = controller
        .with_config(Config::default().concurrency(settings.concurrency))
        .reconcile_on(requeue);
    if signer == Signer::SelfSigned {
        // As upstream's SelfSigned controller: a request waiting for its key Secret is
        // looked at again when that Secret changes (metadata only: the key is read on sign).
        let secrets =
            watcher(Api::<PartialObjectMeta<Secret>>::all(client), watcher::Config::default())
                .default_backoff()
                .touched_objects();
        controller = controller
            .watches_stream(secrets, move |secret| awaiting_key(&key_owners.state(), &secret));
    }
    controller
        .graceful_shutdown_on(shutdown)
        .run(reconcile, error_policy, context)
        .for_each(|outcome| async move {
            if let Err(err) = outcome {
                tracing::debug!(controller = name, error = %err, "reconcile did not complete");
            }
        })
        .await;
    driver.abort();
}

/// The requests in `secret`'s namespace whose `cert-manager.io/private-key-secret-name`
/// names it.
fn awaiting_key(
    requests: &[Arc<CertificateRequest>],
    secret: &PartialObjectMeta<Secret>,
) -> Vec<ObjectRef<CertificateRequest>> {
    let name = secret.metadata.name.as_deref();
    requests
        .iter()
        .filter(|cr| cr.metadata.namespace == secret.metadata.namespace)
        .filter(|cr| {
            cr.metadata
                .annotations
                .as_ref()
                .and_then(|a| a.get(certgate_pki::issue::PRIVATE_KEY_SECRET_ANNOTATION))
                .map(String::as_str)
                == name
        })
        .map(|cr| ObjectRef::from_obj(cr.as_ref()))
        .collect()
}

/// 20 bytes from the operating system's random source, for a serial number.
fn system_random() -> Option<[u8; 20]> {
    let mut bytes = [0u8; 20];
    ring::rand::SystemRandom::new().fill(&mut bytes).ok()?;
    Some(bytes)
}

fn describe(cr: &CertificateRequest) -> String {
    format!(
        "{}/{}",
        cr.metadata.namespace.as_deref().unwrap_or_default(),
        cr.metadata.name.as_deref().unwrap_or_default()
    )
}

pub(crate) async fn reconcile<E: Effects>(
    cr: Arc<CertificateRequest>,
    context: Arc<Context<E>>,
) -> Result<Action, ReconcileError> {
    if cr.metadata.deletion_timestamp.is_some() {
        return Ok(Action::await_change());
    }
    let started = Instant::now();
    let now = DateTime::<Utc>::from(context.clock.now());
    let resolved = context.issuers.resolve(&cr, &context.cluster_resource_namespace);
    let found = match &resolved {
        Some(resolved) => IssuerFound::Found {
            config: &resolved.config,
            ready: resolved.ready,
            resource_namespace: &resolved.resource_namespace,
        },
        None => IssuerFound::NotFound,
    };
    let outcome = match sign::gate(context.signer, &cr, found, now) {
        Step::Done(outcome) => outcome,
        Step::ReadSecret { namespace, name } => {
            let read = context.effects.read_secret(&namespace, &name).await;
            let error_text;
            let lookup = match &read {
                Ok(Some(data)) => SecretLookup::Found(data),
                Ok(None) => SecretLookup::NotFound,
                Err(error) => {
                    error_text = error.to_string();
                    SecretLookup::Error(&error_text)
                }
            };
            // `gate` only asks for a Secret when it found the issuer.
            let Some(resolved) = &resolved else { return Ok(Action::await_change()) };
            let Some(serial) = (context.random)() else {
                return Err(ReconcileError::Random { request: describe(&cr) });
            };
            sign::sign(
                context.signer,
                &cr,
                &resolved.config,
                &resolved.resource_namespace,
                &name,
                lookup,
                now,
                &serial,
            )
        }
    };
    let request = describe(&cr);
    if let Some(status) = outcome.status {
        let mut updated = CertificateRequest::clone(&cr);
        updated.status = Some(status);
        context
            .effects
            .write_request_status(&updated)
            .await
            .map_err(|source| ReconcileError::Write { request: request.clone(), source })?;
    }
    let regarding = reference(cr.as_ref());
    for event in &outcome.events {
        context.effects.publish(&regarding, &kube_event(event, "Sign")).await;
    }
    if outcome.result != "skipped" {
        context.metrics.decision(context.name, outcome.result);
        tracing::info!(controller = context.name, request = %request, result = outcome.result, "synced");
    }
    context.metrics.reconciled(context.name, started.elapsed());
    Ok(if outcome.retry { Action::requeue(RETRY) } else { Action::await_change() })
}

pub(crate) fn error_policy<E: Effects>(
    _cr: Arc<CertificateRequest>,
    error: &ReconcileError,
    context: Arc<Context<E>>,
) -> Action {
    tracing::warn!(controller = context.name, error = %error, "reconcile failed");
    context.metrics.error(context.name);
    Action::requeue(Duration::from_secs(5))
}

#[cfg(test)]
mod tests;
