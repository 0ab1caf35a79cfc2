//! The rebuild loop, thin around [`decide`]: wait for the stores, then on every settled
//! change read them, decide, publish the snapshot, and (on the leader) write the statuses
//! that differ.

use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use std::collections::BTreeMap;

use certgate_clock::Clock;
use certgate_ingress::NamespacedName;
use certgate_ingress::ProcessorConfig;
use certgate_ingress::envoy::ResourceOptions;
use certgate_runtime::EventSink;
use futures_util::StreamExt as _;
use k8s_openapi::api::core::v1::ObjectReference;
use kube::api::{Api, DynamicObject, Patch, PatchParams};
use kube::runtime::events::{Event, EventType};
use tokio::sync::watch;

use super::crl_expiry::NextUpdates;
use super::debounce::{Changes, HOLDOFF, MAX_HOLDOFF};
use super::decide::{Decision, Scope, decide_in};
use super::metrics::ControllerMetrics;
use super::objects::httpproxy_resource;
use super::status::{LoadBalancer, StatusWrite};
use super::stores::Stores;
use super::warnings::CrlWarnings;
use crate::cache::SnapshotCache;

/// Status writes in flight at once.
const WRITE_CONCURRENCY: usize = 8;
/// After a failed status write, the next rebuild (which writes what still differs) comes
/// this much later even if nothing changes.
const WRITE_RETRY: Duration = Duration::from_secs(2);

/// A rebuild at least this often even without changes: the CRL expiry warnings depend on
/// the time, not only on the objects.
const RESYNC: Duration = Duration::from_secs(3600);
/// The reason of the events carrying certgate-crl's warnings (certgate's own; Contour
/// records none).
pub const CRL_WARNING_REASON: &str = "CRLWarning";

/// What shapes the decision beyond the objects.
#[derive(Clone, Debug, Default)]
pub struct ControllerConfig {
    pub processor: ProcessorConfig,
    pub resources: ResourceOptions,
    /// `--ingress-class-name`, split as Contour splits it; empty: class `contour` or none.
    pub ingress_class_names: Vec<String>,
    /// Where the address written into `status.loadBalancer` comes from.
    pub load_balancer: LoadBalancerSource,
}

/// Where the load balancer's address comes from, as in Contour's load-balancer status writer.
#[derive(Clone, Debug, PartialEq)]
pub enum LoadBalancerSource {
    /// `--ingress-status-address`: fixed; the Envoy Service is not looked at.
    Fixed(LoadBalancer),
    /// The `status.loadBalancer` of the Envoy Service (`--envoy-service-namespace`, empty for
    /// any namespace, and `--envoy-service-name`).
    Service { namespace: String, name: String },
}

impl Default for LoadBalancerSource {
    /// Contour's defaults: the Service `envoy` in `projectcontour`.
    fn default() -> Self {
        LoadBalancerSource::Service {
            namespace: "projectcontour".to_owned(),
            name: "envoy".to_owned(),
        }
    }
}

impl LoadBalancerSource {
    fn address(&self, stores: &Stores) -> LoadBalancer {
        match self {
            LoadBalancerSource::Fixed(address) => address.clone(),
            LoadBalancerSource::Service { namespace, name } => {
                stores.load_balancer(namespace, name)
            }
        }
    }
}

/// What the loop works with.
pub struct Controller {
    pub client: kube::Client,
    pub cache: SnapshotCache,
    pub config: ControllerConfig,
    pub metrics: ControllerMetrics,
    pub clock: Arc<dyn Clock>,
    /// Whether this replica writes statuses now.
    pub is_leader: watch::Receiver<bool>,
    /// Where the leader records the CRL warnings on the HTTPProxies.
    pub events: EventSink,
}

/// What the loop keeps between rebuilds.
#[derive(Default)]
struct LoopState {
    next_updates: Arc<Mutex<NextUpdates>>,
    warnings: Arc<Mutex<CrlWarnings>>,
    /// The warnings last published per proxy, so each set is published once.
    published: BTreeMap<NamespacedName, Vec<String>>,
}

impl Controller {
    /// Runs until `shutdown` completes.
    pub async fn run(self, shutdown: impl Future<Output = ()> + Send) {
        let changes = Changes::default();
        let (stores, _feeds) = Stores::watch(&self.client, &changes);
        tokio::pin!(shutdown);
        tokio::select! {
            ready = stores.ready() => if !ready { return },
            () = &mut shutdown => return,
        }
        tracing::info!("edge caches filled; building the Envoy configuration");
        let _leader_watch = self.watch_leadership(&changes);
        let mut state = LoopState::default();
        loop {
            self.rebuild(&stores, &changes, &mut state).await;
            tokio::select! {
                () = changes.settled(HOLDOFF, MAX_HOLDOFF) => {}
                () = tokio::time::sleep(RESYNC) => {}
                () = &mut shutdown => return,
            }
        }
    }

    /// Becoming the leader rebuilds at once, so statuses a previous leader left stale (or
    /// never wrote) are written.
    fn watch_leadership(&self, changes: &Changes) -> AbortOnDrop {
        let mut is_leader = self.is_leader.clone();
        let (changes, metrics) = (changes.clone(), self.metrics.clone());
        metrics.set_leader(*is_leader.borrow());
        AbortOnDrop(tokio::spawn(async move {
            while is_leader.changed().await.is_ok() {
                let leader = *is_leader.borrow_and_update();
                metrics.set_leader(leader);
                if leader {
                    changes.changed();
                }
            }
        }))
    }

    async fn rebuild(&self, stores: &Stores, changes: &Changes, state: &mut LoopState) {
        let started = Instant::now();
        let now = self.clock.now_rfc3339();
        let now_unix = certgate_crl::Timestamp::from_system_time(self.clock.now()).unix();
        let (stores, config) = (stores.clone(), self.config.clone());
        let (next_updates, warnings) = (state.next_updates.clone(), state.warnings.clone());
        // Processing is CPU-bound (a large CRL is hashed and copied); keep it off the
        // threads that serve xDS streams.
        let decided = tokio::task::spawn_blocking(move || {
            let inputs = stores.inputs();
            let scope = Scope {
                ingress_class_names: config.ingress_class_names,
                load_balancer: config.load_balancer.address(&stores),
            };
            let decision = decide_in(&inputs, &scope, &config.processor, &config.resources, &now)?;
            let crls = next_updates
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .update(&inputs, &decision.served_crls);
            let warnings = warnings.lock().unwrap_or_else(PoisonError::into_inner).update(
                &inputs,
                &decision.served_validations,
                now_unix,
            );
            Ok::<_, crate::snapshot::SnapshotError>((decision, crls, warnings))
        })
        .await;
        let (decision, crls, warnings) = match decided {
            Ok(Ok(decided)) => decided,
            Ok(Err(error)) => {
                self.metrics.rebuild_failed();
                tracing::error!(error = %error, "cannot build the xDS snapshot; serving the previous one");
                return;
            }
            Err(error) => {
                self.metrics.rebuild_failed();
                tracing::error!(error = %error, "the rebuild task failed; serving the previous one");
                return;
            }
        };
        let Decision { writes, counts, ignored, snapshot, .. } = decision;
        self.metrics.set_crl_next_updates(&crls);
        let first = self.cache.current().is_none();
        let published = self.cache.set(snapshot);
        self.metrics.rebuilt(started.elapsed(), counts);
        let log_level_info = first || published;
        if log_level_info {
            tracing::info!(
                valid = counts.valid,
                invalid = counts.invalid,
                orphaned = counts.orphaned,
                ignored,
                published,
                "edge configuration rebuilt"
            );
        } else {
            tracing::debug!(published, "edge configuration rebuilt, unchanged");
        }
        if !*self.is_leader.borrow() {
            return;
        }
        self.publish_warnings(warnings, &mut state.published).await;
        if !writes.is_empty() && !self.write_statuses(writes).await {
            let changes = changes.clone();
            tokio::spawn(async move {
                tokio::time::sleep(WRITE_RETRY).await;
                changes.changed();
            });
        }
    }

    /// Records each proxy's CRL warnings as Warning events, once per changed set (events are
    /// best effort: a failure is logged by the sink).
    async fn publish_warnings(
        &self,
        warnings: BTreeMap<NamespacedName, Vec<String>>,
        published: &mut BTreeMap<NamespacedName, Vec<String>>,
    ) {
        for (proxy, list) in &warnings {
            if published.get(proxy) == Some(list) {
                continue;
            }
            let regarding = ObjectReference {
                api_version: Some("projectcontour.io/v1".to_owned()),
                kind: Some("HTTPProxy".to_owned()),
                namespace: Some(proxy.namespace.clone()),
                name: Some(proxy.name.clone()),
                ..ObjectReference::default()
            };
            for warning in list {
                tracing::warn!(
                    namespace = %proxy.namespace,
                    name = %proxy.name,
                    warning = %warning,
                    "CRL warning on a served HTTPProxy"
                );
                let event = Event {
                    type_: EventType::Warning,
                    reason: CRL_WARNING_REASON.to_owned(),
                    note: Some(warning.clone()),
                    action: "Validate".to_owned(),
                    secondary: None,
                };
                self.events.publish(&regarding, &event).await;
            }
        }
        *published = warnings;
    }

    /// Writes every status; `false` if any write failed for a reason worth retrying.
    async fn write_statuses(&self, writes: Vec<StatusWrite>) -> bool {
        let resource = httpproxy_resource();
        let results: Vec<bool> = futures_util::stream::iter(writes)
            .map(|write| {
                let api: Api<DynamicObject> =
                    Api::namespaced_with(self.client.clone(), &write.namespace, &resource);
                async move {
                    let patch = write.patch();
                    let result = api
                        .patch_status(&write.name, &PatchParams::default(), &Patch::Merge(&patch))
                        .await;
                    match result {
                        Ok(_) => {
                            self.metrics.status_written(true);
                            tracing::info!(
                                namespace = %write.namespace,
                                name = %write.name,
                                status = write.status.current_status.as_deref().unwrap_or_default(),
                                "HTTPProxy status written"
                            );
                            true
                        }
                        // Deleted since the stores saw it: nothing to write any more.
                        Err(kube::Error::Api(status)) if status.code == 404 => true,
                        Err(error) => {
                            self.metrics.status_written(false);
                            tracing::warn!(
                                namespace = %write.namespace,
                                name = %write.name,
                                error = %error,
                                "cannot write the HTTPProxy status; retrying"
                            );
                            false
                        }
                    }
                }
            })
            .buffer_unordered(WRITE_CONCURRENCY)
            .collect()
            .await;
        results.into_iter().all(|ok| ok)
    }
}

/// A task aborted when this is dropped.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}
