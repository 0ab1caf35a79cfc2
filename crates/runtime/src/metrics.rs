//! Prometheus metrics of the controllers: decisions by result, reconcile latency, errors,
//! queue depth and leadership. Label values are fixed sets (controller names, results), so
//! no input can grow the series.

use std::collections::HashSet;
use std::hash::Hash;
use std::sync::Mutex;
use std::sync::atomic::AtomicI64;
use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

/// The content type of [`ControllerMetrics::encode`]'s output.
pub use certgate_serving::health::METRICS_CONTENT_TYPE as CONTENT_TYPE;

/// Reconcile latency buckets in seconds: a local review takes microseconds, one with
/// SubjectAccessReviews a few round trips, a status write one more.
const LATENCY_BUCKETS: [f64; 14] =
    [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0];

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ControllerLabel {
    controller: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct DecisionLabels {
    controller: String,
    result: String,
}

/// The controllers' metrics and their registry.
pub struct ControllerMetrics {
    registry: Registry,
    decisions: Family<DecisionLabels, Counter>,
    duration: Family<ControllerLabel, Histogram>,
    errors: Family<ControllerLabel, Counter>,
    queue_depth: Family<ControllerLabel, Gauge>,
    leader: Gauge<i64, AtomicI64>,
    hub_template_watches: Gauge<i64, AtomicI64>,
}

impl std::fmt::Debug for ControllerMetrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ControllerMetrics").finish_non_exhaustive()
    }
}

impl Default for ControllerMetrics {
    fn default() -> Self {
        let mut root = Registry::default();
        // Upstream's name, unprefixed, so OCM dashboards and alerts keep working.
        let hub_template_watches = Gauge::<i64, AtomicI64>::default();
        root.register(
            "hub_templates_active_watches",
            "Watches the policy propagator's hub template resolvers hold (one per distinct object or list query read)",
            hub_template_watches.clone(),
        );
        let registry = root.sub_registry_with_prefix("certgate_controller");
        let decisions = Family::<DecisionLabels, Counter>::default();
        registry.register(
            "decisions",
            "Reviews of CertificateRequests by controller and result (approved, denied, unprocessed, error)",
            decisions.clone(),
        );
        let duration = Family::<ControllerLabel, Histogram>::new_with_constructor(
            (|| Histogram::new(LATENCY_BUCKETS)) as fn() -> Histogram,
        );
        registry.register(
            "reconcile_duration_seconds",
            "Time one reconcile took, writes included",
            duration.clone(),
        );
        let errors = Family::<ControllerLabel, Counter>::default();
        registry.register(
            "reconcile_errors",
            "Reconciles that failed and were scheduled again with back-off",
            errors.clone(),
        );
        let queue_depth = Family::<ControllerLabel, Gauge>::default();
        registry.register(
            "queue_depth",
            "Objects waiting to be reconciled (each counted once however often it was queued)",
            queue_depth.clone(),
        );
        let leader = Gauge::<i64, AtomicI64>::default();
        registry.register("leader", "1 while this replica holds the leader lease", leader.clone());
        ControllerMetrics {
            registry: root,
            decisions,
            duration,
            errors,
            queue_depth,
            leader,
            hub_template_watches,
        }
    }
}

impl ControllerMetrics {
    pub fn decision(&self, controller: &str, result: &str) {
        let labels =
            DecisionLabels { controller: controller.to_owned(), result: result.to_owned() };
        self.decisions.get_or_create(&labels).inc();
    }

    pub fn reconciled(&self, controller: &str, elapsed: Duration) {
        self.duration.get_or_create(&label(controller)).observe(elapsed.as_secs_f64());
    }

    pub fn error(&self, controller: &str) {
        self.errors.get_or_create(&label(controller)).inc();
    }

    pub fn set_queue_depth(&self, controller: &str, depth: usize) {
        self.queue_depth
            .get_or_create(&label(controller))
            .set(i64::try_from(depth).unwrap_or(i64::MAX));
    }

    pub fn set_leader(&self, leader: bool) {
        self.leader.set(i64::from(leader));
    }

    /// `hub_templates_active_watches`: the watches all hub template resolvers hold.
    pub fn set_hub_template_watches(&self, watches: usize) {
        self.hub_template_watches.set(i64::try_from(watches).unwrap_or(i64::MAX));
    }

    /// The OpenMetrics text exposition of every metric.
    pub fn encode(&self) -> Result<String, std::fmt::Error> {
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &self.registry)?;
        Ok(text)
    }
}

fn label(controller: &str) -> ControllerLabel {
    ControllerLabel { controller: controller.to_owned() }
}

/// The objects queued for a controller and not yet started, as its scheduler sees them: an
/// object queued twice before it runs is reconciled once, so it counts once.
pub struct QueueTracker<K> {
    controller: &'static str,
    queued: Mutex<HashSet<K>>,
}

impl<K: Hash + Eq> QueueTracker<K> {
    pub fn new(controller: &'static str) -> Self {
        QueueTracker { controller, queued: Mutex::new(HashSet::new()) }
    }

    pub fn queued(&self, key: K, metrics: &ControllerMetrics) {
        let mut queued = self.queued.lock().unwrap_or_else(|e| e.into_inner());
        queued.insert(key);
        metrics.set_queue_depth(self.controller, queued.len());
    }

    pub fn started(&self, key: &K, metrics: &ControllerMetrics) {
        let mut queued = self.queued.lock().unwrap_or_else(|e| e.into_inner());
        queued.remove(key);
        metrics.set_queue_depth(self.controller, queued.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decisions_latency_errors_and_leadership_are_exposed() {
        let metrics = ControllerMetrics::default();
        metrics.decision("policy-approver", "approved");
        metrics.decision("policy-approver", "approved");
        metrics.decision("policy-approver", "denied");
        metrics.reconciled("policy-approver", Duration::from_micros(200));
        metrics.error("policy-approver");
        metrics.set_leader(true);
        let text = metrics.encode().unwrap();
        for line in [
            "certgate_controller_decisions_total{controller=\"policy-approver\",result=\"approved\"} 2\n",
            "certgate_controller_decisions_total{controller=\"policy-approver\",result=\"denied\"} 1\n",
            "certgate_controller_reconcile_duration_seconds_bucket{le=\"0.00025\",controller=\"policy-approver\"} 1\n",
            "certgate_controller_reconcile_errors_total{controller=\"policy-approver\"} 1\n",
            "certgate_controller_leader 1\n",
        ] {
            assert!(text.contains(line), "missing {line:?} in\n{text}");
        }
    }

    #[test]
    fn the_queue_counts_each_object_once_until_it_starts() {
        let metrics = ControllerMetrics::default();
        let queue = QueueTracker::new("policy-approver");
        queue.queued("a", &metrics);
        queue.queued("a", &metrics);
        queue.queued("b", &metrics);
        let depth = |metrics: &ControllerMetrics| {
            metrics
                .encode()
                .unwrap()
                .lines()
                .find(|l| l.starts_with("certgate_controller_queue_depth{"))
                .map(str::to_owned)
        };
        assert_eq!(
            depth(&metrics).as_deref(),
            Some("certgate_controller_queue_depth{controller=\"policy-approver\"} 2")
        );
        queue.started(&"a", &metrics);
        queue.started(&"a", &metrics);
        assert_eq!(
            depth(&metrics).as_deref(),
            Some("certgate_controller_queue_depth{controller=\"policy-approver\"} 1")
        );
    }
}
