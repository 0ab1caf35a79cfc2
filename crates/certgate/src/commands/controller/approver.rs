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
use certgate_api::certificate_request::CertificateRequestCondition;
use certgate_api::certificate_request::manual::decided;
use certgate_approval::{Approver, PolicyEntry, Readiness, Request, ReviewOptions};
use certgate_cluster::SarAccessChecker;
use futures_util::{StreamExt as _, TryStreamExt as _};
use kube::api::{Api, Patch, PatchParams};
use kube::runtime::controller::{Action, Config, Controller};
use kube::runtime::events::{Event, EventType, Recorder, Reporter};
use kube::runtime::reflector::{self, ObjectRef};
use kube::runtime::{WatchStreamExt as _, watcher};
use kube::{Client, Resource as _};
use serde_json::json;

use super::metrics::{ControllerMetrics, QueueTracker};
use super::outcome::{self, EventSpec, POLICY_FIELD_MANAGER, POLICY_REASON};
use super::world::{self, World};
use super::{AuthorizerMode, Settings};

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

/// How the RBACBound question is answered.
enum Access {
    /// Boxed: the checker and its cache are large, `Local` is nothing.
    Sar(Box<SarAccessChecker>),
    Local,
}

/// What a reconcile does to the cluster: the I/O seam, so every branch of the reconcile is
/// tested without one.
pub(crate) trait Effects: Send + Sync + 'static {
    /// Applies `condition` to the request's status.
    fn apply_condition(
        &self,
        cr: &CertificateRequest,
        condition: &CertificateRequestCondition,
    ) -> impl Future<Output = Result<(), kube::Error>> + Send;
    /// Records `event` about the request; failures are logged, not returned.
    fn publish(
        &self,
        cr: &CertificateRequest,
        event: &EventSpec,
    ) -> impl Future<Output = ()> + Send;
}

/// [`Effects`] through the API server: server-side apply of the status, `events.k8s.io`
/// events from reporting controller `policy.cert-manager.io`.
struct KubeEffects {
    client: Client,
    recorder: Recorder,
}

impl Effects for KubeEffects {
    async fn apply_condition(
        &self,
        cr: &CertificateRequest,
        condition: &CertificateRequestCondition,
    ) -> Result<(), kube::Error> {
        let body = json!({
            "apiVersion": "cert-manager.io/v1",
            "kind": "CertificateRequest",
            "metadata": {"name": cr.metadata.name, "namespace": cr.metadata.namespace},
            "status": {"conditions": [condition]},
        });
        let api: Api<CertificateRequest> = Api::namespaced(
            self.client.clone(),
            cr.metadata.namespace.as_deref().unwrap_or_default(),
        );
        api.patch_status(
            cr.metadata.name.as_deref().unwrap_or_default(),
            &PatchParams::apply(POLICY_FIELD_MANAGER).force(),
            &Patch::Apply(&body),
        )
        .await
        .map(|_| ())
    }

    async fn publish(&self, cr: &CertificateRequest, event: &EventSpec) {
        let event = Event {
            type_: if event.warning { EventType::Warning } else { EventType::Normal },
            reason: event.reason.to_owned(),
            note: Some(event.note.clone()),
            action: event.action.to_owned(),
            secondary: None,
        };
        if let Err(err) = self.recorder.publish(&event, &cr.object_ref(&())).await {
            tracing::warn!(controller = NAME, request = %describe(cr), error = %err, "cannot record the event");
        }
    }
}

struct Context<E> {
    world: World,
    approver: Approver,
    access: Access,
    effects: E,
    metrics: Arc<ControllerMetrics>,
    queue: Arc<QueueTracker<ObjectRef<CertificateRequest>>>,
    failures: Mutex<HashMap<ObjectRef<CertificateRequest>, u32>>,
}

/// Runs until `shutdown` completes.
pub async fn run(
    client: Client,
    settings: Settings,
    metrics: Arc<ControllerMetrics>,
    shutdown: impl Future<Output = ()> + Send + Sync + 'static,
) {
    let (world, changes) = World::start(&client);
    let access = match settings.authorizer {
        AuthorizerMode::Sar => {
            Access::Sar(Box::new(SarAccessChecker::new(client.clone(), settings.sar_cache_ttl)))
        }
        AuthorizerMode::Local => Access::Local,
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
        effects: KubeEffects {
            client: client.clone(),
            recorder: Recorder::new(
                client,
                Reporter {
                    controller: POLICY_REASON.to_owned(),
                    instance: settings.instance.clone(),
                },
            ),
        },
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
            if let Access::Sar(checker) = &context.access {
                checker.forget();
            }
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
    let review = match &context.access {
        Access::Sar(checker) => {
            crate::commands::live_review::review_asking(
                &context.approver,
                &request,
                &entries,
                &context.world,
                checker.as_ref(),
                options,
            )
            .await
        }
        Access::Local => {
            let authorizer = context.world.local_authorizer();
            context.approver.review(
                &request,
                &entries,
                &context.world,
                authorizer.as_ref(),
                options,
            )
        }
    };
    let now = crate::commands::now_rfc3339();
    let outcome = outcome::after_review(&review.outcome, &now);
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
    context.effects.publish(cr, &outcome.event).await;
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
mod tests {
    use certgate_api::CertificateRequestPolicy;
    use certgate_api::certificate_request::CertificateRequestStatus;
    use certgate_rbac::RbacObjects;
    use k8s_openapi::api::core::v1::Namespace;
    use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding};
    use serde::de::DeserializeOwned;

    use super::*;

    const DNS_POLICY: &str = include_str!("../../../../../examples/dns/policy.yaml");
    const SPIFFE_POLICY: &str = include_str!("../../../../../examples/spiffe/policy.yaml");
    const DNS_REQUESTS: &str = include_str!("../../../../../examples/dns/requests.yaml");
    const RBAC: &str = include_str!("../../../../../examples/rbac.yaml");

    fn documents<K: DeserializeOwned>(text: &str, kind: &str) -> Vec<K> {
        text.split("\n---")
            .filter(|document| document.lines().any(|line| line == format!("kind: {kind}")))
            .map(|document| serde_saphyr::from_str(document).unwrap())
            .collect()
    }

    fn example_request(name: &str) -> CertificateRequest {
        documents::<CertificateRequest>(DNS_REQUESTS, "CertificateRequest")
            .into_iter()
            .find(|cr| cr.metadata.name.as_deref() == Some(name))
            .unwrap()
    }

    fn ready(mut policy: CertificateRequestPolicy) -> CertificateRequestPolicy {
        policy.metadata.generation = Some(1);
        policy.status = Some(
            serde_json::from_value(json!({"conditions": [{"type": "Ready", "status": "True",
                "reason": "Ready", "message": "ready", "observedGeneration": 1,
                "lastTransitionTime": "2026-01-01T00:00:00Z"}]}))
            .unwrap(),
        );
        policy
    }

    /// What the reconcile did, in order.
    #[derive(Default)]
    struct Recorded {
        fail_writes: bool,
        calls: Mutex<Vec<String>>,
    }

    impl Recorded {
        fn calls(&self) -> Vec<String> {
            self.calls.lock().unwrap().clone()
        }
    }

    impl Effects for Recorded {
        async fn apply_condition(
            &self,
            cr: &CertificateRequest,
            condition: &CertificateRequestCondition,
        ) -> Result<(), kube::Error> {
            self.calls.lock().unwrap().push(format!(
                "apply {} {}={} {}: {}",
                describe(cr),
                condition.type_,
                condition.status,
                condition.reason.as_deref().unwrap_or_default(),
                condition.message.as_deref().unwrap_or_default()
            ));
            if self.fail_writes {
                let status = kube::core::Status::failure("admission webhook denied", "Forbidden");
                return Err(kube::Error::Api(Box::new(status)));
            }
            Ok(())
        }

        async fn publish(&self, cr: &CertificateRequest, event: &EventSpec) {
            self.calls.lock().unwrap().push(format!(
                "event {} {} {} {}: {}",
                describe(cr),
                if event.warning { "Warning" } else { "Normal" },
                event.reason,
                event.action,
                event.note
            ));
        }
    }

    /// The examples' DNS and SPIFFE policies (Ready) and RBAC; `namespaces` as given.
    fn context(namespaces: Vec<Namespace>, fail_writes: bool) -> Arc<Context<Recorded>> {
        let policies = [DNS_POLICY, SPIFFE_POLICY]
            .iter()
            .flat_map(|text| {
                documents::<CertificateRequestPolicy>(text, "CertificateRequestPolicy")
            })
            .map(ready)
            .collect();
        let rbac = RbacObjects {
            cluster_roles: documents::<ClusterRole>(RBAC, "ClusterRole"),
            cluster_role_bindings: documents::<ClusterRoleBinding>(RBAC, "ClusterRoleBinding"),
            ..RbacObjects::default()
        };
        Arc::new(Context {
            world: World::with_objects(policies, namespaces, rbac),
            approver: Approver::new(Arc::new(certgate_cel::PolicyCel::default())),
            access: Access::Local,
            effects: Recorded { fail_writes, ..Recorded::default() },
            metrics: Arc::new(ControllerMetrics::default()),
            queue: Arc::new(QueueTracker::new(NAME)),
            failures: Mutex::default(),
        })
    }

    fn payments() -> Vec<Namespace> {
        vec![
            serde_json::from_value(json!({"metadata": {"name": "payments",
            "labels": {"spiffe.example.org/enabled": "true"}}}))
            .unwrap(),
        ]
    }

    async fn run(
        cr: CertificateRequest,
        context: &Arc<Context<Recorded>>,
    ) -> Result<Action, ReconcileError> {
        reconcile(Arc::new(cr), Arc::clone(context)).await
    }

    #[tokio::test]
    async fn an_approved_request_gets_the_condition_then_a_normal_event() {
        let context = context(payments(), false);
        let action = run(example_request("api-tls"), &context).await.unwrap();
        assert_eq!(action, Action::await_change());
        assert_eq!(
            context.effects.calls(),
            [
                r#"apply payments/api-tls Approved=True policy.cert-manager.io: Approved by CertificateRequestPolicy: "namespace-local-dns""#,
                r#"event payments/api-tls Normal Approved Synced: Approved by CertificateRequestPolicy: "namespace-local-dns""#,
            ]
        );
        assert!(context.metrics.encode().unwrap().contains("result=\"approved\"} 1"));
    }

    #[tokio::test]
    async fn a_denied_request_gets_the_denied_condition_then_a_warning() {
        let context = context(payments(), false);
        run(example_request("ledger-tls"), &context).await.unwrap();
        let message = r#"No policy approved this request: [namespace-local-dns: spec.allowed.dnsNames.validations[0]: Invalid value: "ledger.legacy-payments.svc": DNS names must be services of the request's own namespace]"#;
        assert_eq!(
            context.effects.calls(),
            [
                format!("apply payments/ledger-tls Denied=True policy.cert-manager.io: {message}"),
                format!("event payments/ledger-tls Warning Denied Synced: {message}"),
            ]
        );
    }

    #[tokio::test]
    async fn an_unprocessed_request_gets_only_an_event() {
        let context = context(payments(), false);
        // jane is bound to no policy.
        run(example_request("laptop-tls"), &context).await.unwrap();
        assert_eq!(
            context.effects.calls(),
            [
                "event payments/laptop-tls Normal Unprocessed Synced: Request is not applicable for any policy so ignoring"
            ]
        );
    }

    #[tokio::test]
    async fn decided_and_deleted_requests_are_left_alone() {
        let context = context(payments(), false);
        for decided in ["Approved", "Denied"] {
            let mut cr = example_request("ledger-tls");
            cr.status = Some(CertificateRequestStatus {
                conditions: Some(vec![CertificateRequestCondition {
                    type_: decided.to_owned(),
                    status: "True".to_owned(),
                    ..Default::default()
                }]),
                ..Default::default()
            });
            assert_eq!(run(cr, &context).await.unwrap(), Action::await_change());
        }
        let mut deleted = example_request("api-tls");
        deleted.metadata.deletion_timestamp =
            Some(k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(
                k8s_openapi::jiff::Timestamp::UNIX_EPOCH,
            ));
        run(deleted, &context).await.unwrap();
        assert!(context.effects.calls().is_empty());
    }

    #[tokio::test]
    async fn a_review_error_records_evaluation_error_and_is_retried() {
        // The SPIFFE policy selects namespaces by label, and the request's Namespace is gone.
        let context = context(vec![], false);
        let mut to_spiffe_ca = example_request("api-tls");
        to_spiffe_ca.spec.issuer_ref.name = "spiffe-ca".to_owned();
        let error = run(to_spiffe_ca, &context).await.unwrap_err();
        assert_eq!(
            error.to_string(),
            r#"cannot review CertificateRequest payments/api-tls: failed to perform predicate on policies: failed to get request's namespace to determine namespace selector: namespaces "payments" not found"#
        );
        assert_eq!(
            context.effects.calls(),
            [
                "event payments/api-tls Warning EvaluationError SyncedFailed: approver-policy failed to review the request and will retry"
            ]
        );
        let action =
            error_policy(Arc::new(example_request("api-tls")), &error, Arc::clone(&context));
        assert_eq!(action, Action::requeue(Duration::from_secs(1)));
        let action =
            error_policy(Arc::new(example_request("api-tls")), &error, Arc::clone(&context));
        assert_eq!(action, Action::requeue(Duration::from_secs(2)));
    }

    #[tokio::test]
    async fn a_refused_write_is_an_error_without_an_event() {
        let context = context(payments(), true);
        let error = run(example_request("api-tls"), &context).await.unwrap_err();
        assert!(
            error.to_string().starts_with(
                "cannot write the Approved condition of CertificateRequest payments/api-tls: "
            ),
            "{error}"
        );
        assert_eq!(
            context.effects.calls().len(),
            1,
            "the write only: {:?}",
            context.effects.calls()
        );
    }

    #[test]
    fn retries_double_up_to_five_minutes() {
        let delays: Vec<u64> =
            [1, 2, 3, 9, 10, 100, u32::MAX].map(|n| retry_delay(n).as_secs()).to_vec();
        assert_eq!(delays, [1, 2, 4, 256, 300, 300, 300]);
    }
}
