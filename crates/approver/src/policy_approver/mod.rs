//! The `policy-approver` controller: reviews every pending CertificateRequest against the
//! CertificateRequestPolicies, as approver-policy does (spec §3), and writes the decision.
//!
//! Decided requests (`Approved=True` or `Denied=True`) are never touched again, so a restart
//! or a second replica that briefly overlaps with the leader cannot decide twice: the
//! webhook refuses a second decision, and the next reconcile sees the first one.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use certgate_api::CertificateRequest;
use certgate_api::certificate_request::manual::decided;
use certgate_approval::outcome;
use certgate_approval::{Approver, PolicyEntry, Readiness, Request, ReviewOptions};
use certgate_clock::Clock;
use certgate_cluster::SarAccessChecker;
use certgate_rbac::AccessChecker;
use certgate_runtime::{AccessMode, ControllerMetrics, ControllerSpec, Launch, QueueTracker};
use futures_util::FutureExt as _;
use futures_util::{StreamExt as _, TryStreamExt as _};
use kube::api::Api;
use kube::runtime::controller::{Action, Config, Controller};
use kube::runtime::reflector::{self, ObjectRef};
use kube::runtime::{WatchStreamExt as _, watcher};

use crate::world::{self, World};

mod effects;

use effects::{Effects, KubeEffects};

/// The controller's name, as `--controllers` and the metrics name it.
pub const NAME: &str = "policy-approver";

/// Back-off of a request whose review or write failed: doubling from the first delay up to
/// the cap, as a rate-limited work queue retries.
const FIRST_RETRY: Duration = Duration::from_secs(1);
const MAX_RETRY: Duration = Duration::from_secs(5 * 60);

#[derive(Debug, thiserror::Error)]
pub enum ReconcileError {
    #[error("cannot review CertificateRequest {request}: {message}")]
    Review { request: String, message: String },
    #[error("cannot write the {condition} condition of CertificateRequest {request}: {source}")]
    Write { request: String, condition: String, source: kube::Error },
}

/// Where a reconcile's RBACBound questions go: the checker for the review about to start,
/// and a way to drop what checkers remember when RBAC objects change. One reconcile path
/// serves `--authorizer=sar` and `--authorizer=local`; only [`run`] picks between them.
trait Checkers: Send + Sync {
    /// The checker for one review (every question of the review goes to it).
    fn current(&self) -> Arc<dyn AccessChecker>;
    /// Drops cached answers: called on every change the world reports.
    fn forget(&self);
}

/// One checker for every review (`--authorizer=sar`: SubjectAccessReviews and their cache).
struct Fixed(Arc<dyn AccessChecker>);

impl Checkers for Fixed {
    fn current(&self) -> Arc<dyn AccessChecker> {
        Arc::clone(&self.0)
    }

    fn forget(&self) {
        self.0.forget();
    }
}

/// RBAC over the watched objects (`--authorizer=local`), as they are when a review starts.
/// The world rebuilds the authorizer after a change, so there is nothing to forget.
struct LocalRbac(World);

impl Checkers for LocalRbac {
    fn current(&self) -> Arc<dyn AccessChecker> {
        self.0.local_authorizer()
    }

    fn forget(&self) {}
}

struct Context<E> {
    world: World,
    approver: Approver,
    access: Box<dyn Checkers>,
    effects: E,
    clock: Arc<dyn Clock>,
    metrics: Arc<ControllerMetrics>,
    queue: Arc<QueueTracker<ObjectRef<CertificateRequest>>>,
    failures: Mutex<HashMap<ObjectRef<CertificateRequest>, u32>>,
}

/// The controller as `--controllers` knows it: on by default.
pub const SPEC: ControllerSpec = ControllerSpec {
    name: NAME,
    on_by_default: true,
    summary: "reviews every CertificateRequest that is neither Approved nor Denied
against the CertificateRequestPolicies and sets Approved or Denied with
reason policy.cert-manager.io and the review's message (events Approved,
Denied, Unprocessed, EvaluationError). Decided requests are never touched.
Pending requests are reviewed again when policies, RBAC objects or
Namespaces change.",
    results: &["approved", "denied", "unprocessed", "error"],
    run: |launch| run(launch).boxed(),
};

/// Runs until the launch's shutdown completes.
pub async fn run(launch: Launch) {
    let Launch { client, settings, metrics, clock, shutdown, .. } = launch;
    let (world, changes) = World::start(&client);
    let access: Box<dyn Checkers> = match settings.access {
        AccessMode::SubjectAccessReview => {
            Box::new(Fixed(Arc::new(SarAccessChecker::new(client.clone(), settings.sar_cache_ttl))))
        }
        AccessMode::LocalRbac => Box::new(LocalRbac(world.clone())),
    };
    let queue = Arc::new(QueueTracker::new(NAME));
    let (requests, writer) = reflector::store::<CertificateRequest>();
    let queued = {
        let (queue, metrics) = (Arc::clone(&queue), Arc::clone(&metrics));
        move |cr: &CertificateRequest| queue.queued(ObjectRef::from_obj(cr), &metrics)
    };
    let request_events =
        watcher(Api::<CertificateRequest>::all(client.clone()), watcher::Config::default())
            .default_backoff()
            .reflect(writer)
            .touched_objects()
            .inspect_ok(queued);
    let context = Arc::new(Context {
        world: world.clone(),
        approver: Approver::new(Arc::new(certgate_cel::PolicyCel::default())),
        access,
        effects: KubeEffects::new(client, settings.instance.clone()),
        clock,
        metrics,
        queue,
        failures: Mutex::default(),
    });

    // The watches of policies, Namespaces and RBAC fill the world's stores: drive them now,
    // and hand their changes to the controller once it runs.
    let (sender, receiver) = tokio::sync::mpsc::channel::<world::Change>(1024);
    let driver = tokio::spawn(changes.for_each(move |change| {
        let sender = sender.clone();
        async move {
            let _ = sender.send(change).await;
        }
    }));
    if let Err(err) = world.ready().await {
        tracing::error!(controller = NAME, error = %err, "policy, Namespace or RBAC watch stopped");
        driver.abort();
        return;
    }
    let requeue = {
        let (context, requests) = (Arc::clone(&context), requests.clone());
        futures_util::stream::unfold(receiver, |mut receiver| async move {
            receiver.recv().await.map(|change| (change, receiver))
        })
        .flat_map(move |change| {
            context.access.forget();
            let affected = world::affected(&requests.state(), &change, is_pending);
            for request in &affected {
                context.queue.queued(request.clone(), &context.metrics);
            }
            futures_util::stream::iter(affected)
        })
    };
    tracing::info!(controller = NAME, "policies, Namespaces and RBAC listed; reviewing requests");
    Controller::for_stream(request_events, requests)
        .with_config(Config::default().concurrency(settings.concurrency))
        .reconcile_on(requeue)
        .graceful_shutdown_on(shutdown)
        .run(reconcile, error_policy, context)
        .for_each(|outcome| async move {
            if let Err(err) = outcome {
                tracing::debug!(controller = NAME, error = %err, "reconcile did not complete");
            }
        })
        .await;
    driver.abort();
}

fn is_pending(cr: &CertificateRequest) -> bool {
    decided(cr.status.as_ref()).is_none()
}

fn describe(cr: &CertificateRequest) -> String {
    format!(
        "{}/{}",
        cr.metadata.namespace.as_deref().unwrap_or_default(),
        cr.metadata.name.as_deref().unwrap_or_default()
    )
}

async fn reconcile<E: Effects>(
    cr: Arc<CertificateRequest>,
    context: Arc<Context<E>>,
) -> Result<Action, ReconcileError> {
    let key = ObjectRef::from_obj(cr.as_ref());
    context.queue.started(&key, &context.metrics);
    if !is_pending(&cr) || cr.metadata.deletion_timestamp.is_some() {
        return Ok(Action::await_change());
    }
    let started = Instant::now();
    let result = review_and_write(&cr, &context).await;
    context.metrics.reconciled(NAME, started.elapsed());
    if result.is_ok() {
        context.failures.lock().unwrap_or_else(PoisonError::into_inner).remove(&key);
    }
    result.map(|()| Action::await_change())
}

async fn review_and_write<E: Effects>(
    cr: &CertificateRequest,
    context: &Context<E>,
) -> Result<(), ReconcileError> {
    let policies = context.world.policies.state();
    let entries: Vec<PolicyEntry<'_>> = policies
        .iter()
        .map(|policy| PolicyEntry { policy, readiness: Readiness::from_policy(policy) })
        .collect();
    // Admission verified the CSR's signature when the request was created.
    let csr = certgate_pki::parse_csr(&cr.spec.request);
    let request = Request { cr, csr: csr.as_ref() };
    let options = ReviewOptions::default();
    let checker = context.access.current();
    let review = crate::live_review::review_asking(
        &context.approver,
        &request,
        &entries,
        &context.world,
        checker.as_ref(),
        options,
    )
    .await;
    let outcome = outcome::after_review(&review.outcome, &context.clock.now_rfc3339());
    let name = describe(cr);
    if let Some(condition) = &outcome.condition {
        context.effects.apply_condition(cr, condition).await.map_err(|source| {
            ReconcileError::Write {
                request: name.clone(),
                condition: condition.type_.clone(),
                source,
            }
        })?;
    }
    context.effects.publish(cr, &crate::kube_event(&outcome.event)).await;
    context.metrics.decision(NAME, outcome.result);
    match review.outcome {
        Ok(decision) => {
            tracing::info!(
                controller = NAME,
                request = %name,
                decision = decision.name(),
                message = decision.message(),
                "reviewed"
            );
            Ok(())
        }
        Err(err) => Err(ReconcileError::Review { request: name, message: err.0 }),
    }
}

fn error_policy<E: Effects>(
    cr: Arc<CertificateRequest>,
    error: &ReconcileError,
    context: Arc<Context<E>>,
) -> Action {
    let key = ObjectRef::from_obj(cr.as_ref());
    let attempts = {
        let mut failures = context.failures.lock().unwrap_or_else(PoisonError::into_inner);
        let attempts = failures.entry(key.clone()).or_insert(0);
        *attempts = attempts.saturating_add(1);
        *attempts
    };
    let delay = retry_delay(attempts);
    tracing::warn!(controller = NAME, error = %error, retry_in = ?delay, "reconcile failed");
    context.metrics.error(NAME);
    context.queue.queued(key, &context.metrics);
    Action::requeue(delay)
}

/// The wait before attempt `attempts + 1`.
fn retry_delay(attempts: u32) -> Duration {
    let doublings = attempts.saturating_sub(1).min(16);
    FIRST_RETRY.saturating_mul(1 << doublings).min(MAX_RETRY)
}

#[cfg(test)]
mod fixtures;
#[cfg(test)]
mod readiness_order_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod wire_tests;
