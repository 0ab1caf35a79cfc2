//! Prometheus metrics of the controllers: decisions by result, reconcile latency, errors,
//! queue depth and leadership, and the gauges a controller publishes per object it keeps
//! (the CRLs of `issuers-crl`). Label values of the controller metrics are fixed sets
//! (controller names, results), so no input can grow those series; the per-object gauges
//! have one series per object the controller publishes for (bounded by the objects of the
//! cluster, not by requests), each family registered here with its label names (a family
//! is exposed from its first series on).

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

/// The series of one published CRL: the issuer that publishes it and the Secret holding it.
#[derive(Clone, Debug, Hash, PartialEq, Eq)]
pub struct CrlSeries<'a> {
    /// `Issuer` or `ClusterIssuer`.
    pub issuer_kind: &'a str,
    /// The issuer's name.
    pub issuer: &'a str,
    /// The CRL Secret's namespace: the Issuer's own, a ClusterIssuer's
    /// `--cluster-resource-namespace`.
    pub namespace: &'a str,
    /// The CRL Secret's name.
    pub secret: &'a str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CrlLabels {
    issuer_kind: String,
    issuer: String,
    namespace: String,
    secret: String,
}

impl From<&CrlSeries<'_>> for CrlLabels {
    fn from(series: &CrlSeries<'_>) -> Self {
        CrlLabels {
            issuer_kind: series.issuer_kind.to_owned(),
            issuer: series.issuer.to_owned(),
            namespace: series.namespace.to_owned(),
            secret: series.secret.to_owned(),
        }
    }
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
    crl_next_update: Family<CrlLabels, Gauge>,
    crl_entries: Family<CrlLabels, Gauge>,
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
        let crl_next_update = Family::<CrlLabels, Gauge>::default();
        root.register(
            "certgate_crl_next_update_timestamp_seconds",
            "nextUpdate of the CRL issuers-crl published or found current, Unix seconds, by issuer and CRL Secret",
            crl_next_update.clone(),
        );
        let crl_entries = Family::<CrlLabels, Gauge>::default();
        root.register(
            "certgate_crl_entries",
            "Revoked certificates listed in the CRL issuers-crl published or found current, by issuer and CRL Secret",
            crl_entries.clone(),
        );
        let registry = root.sub_registry_with_prefix("certgate_controller");
        let decisions = Family::<DecisionLabels, Counter>::default();
        registry.register(
            "decisions",
            "Decisions by controller and result (each controller's results: docs/controller.md#endpoints-and-metrics)",
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
            crl_next_update,
            crl_entries,
        }
    }
}

impl ControllerMetrics {
    /// Creates `controller`'s series at 0 (its decisions by each of `results`, its errors and
    /// queue depth) without counting anything.
    pub fn declare(&self, controller: &str, results: &[&str]) {
        for result in results {
            let labels =
                DecisionLabels { controller: controller.to_owned(), result: (*result).to_owned() };
            let _ = self.decisions.get_or_create(&labels);
        }
        let _ = self.errors.get_or_create(&label(controller));
        let _ = self.queue_depth.get_or_create(&label(controller));
    }

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

    /// `certgate_crl_next_update_timestamp_seconds` and `certgate_crl_entries` of the CRL
    /// in `series`: its nextUpdate (Unix seconds) and its revoked entries. Set each time the
    /// CRL is published or found current; a series stays (with the last values) when its
    /// issuer stops publishing, until the process restarts.
    pub fn set_crl(&self, series: &CrlSeries<'_>, next_update_unix: i64, entries: usize) {
        let labels = CrlLabels::from(series);
        self.crl_next_update.get_or_create(&labels).set(next_update_unix);
        self.crl_entries.get_or_create(&labels).set(i64::try_from(entries).unwrap_or(i64::MAX));
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
    fn declared_results_start_at_zero_and_count_from_there() {
        let metrics = ControllerMetrics::default();
        metrics.declare("issuers-crl", &["published", "failed"]);
        let text = metrics.encode().unwrap();
        for line in [
            "certgate_controller_decisions_total{controller=\"issuers-crl\",result=\"published\"} 0\n",
            "certgate_controller_decisions_total{controller=\"issuers-crl\",result=\"failed\"} 0\n",
            "certgate_controller_reconcile_errors_total{controller=\"issuers-crl\"} 0\n",
            "certgate_controller_queue_depth{controller=\"issuers-crl\"} 0\n",
        ] {
            assert!(text.contains(line), "missing {line:?} in\n{text}");
        }
        metrics.decision("issuers-crl", "published");
        let text = metrics.encode().unwrap();
        assert!(text.contains(
            "certgate_controller_decisions_total{controller=\"issuers-crl\",result=\"published\"} 1\n"
        ));
    }

    #[test]
    fn crl_gauges_have_one_series_per_crl_with_the_last_values() {
        let metrics = ControllerMetrics::default();
        let text = metrics.encode().unwrap();
        assert!(!text.contains("certgate_crl_"), "a CRL series before any CRL:\n{text}");
        let issuer = CrlSeries {
            issuer_kind: "Issuer",
            issuer: "ca",
            namespace: "payments",
            secret: "ca-crl",
        };
        let cluster = CrlSeries {
            issuer_kind: "ClusterIssuer",
            issuer: "ca",
            namespace: "cert-manager",
            secret: "ca-crl",
        };
        metrics.set_crl(&issuer, 1_790_000_000, 3);
        metrics.set_crl(&cluster, 1_790_000_500, 0);
        metrics.set_crl(&issuer, 1_790_086_400, 2);
        let text = metrics.encode().unwrap();
        for line in [
            "# TYPE certgate_crl_next_update_timestamp_seconds gauge\n",
            "# TYPE certgate_crl_entries gauge\n",
        ] {
            assert!(text.contains(line), "missing {line:?} in\n{text}");
        }
        let lines: Vec<&str> = text.lines().filter(|l| l.starts_with("certgate_crl_")).collect();
        let mut expected = [
            "certgate_crl_next_update_timestamp_seconds{issuer_kind=\"Issuer\",issuer=\"ca\",namespace=\"payments\",secret=\"ca-crl\"} 1790086400",
            "certgate_crl_next_update_timestamp_seconds{issuer_kind=\"ClusterIssuer\",issuer=\"ca\",namespace=\"cert-manager\",secret=\"ca-crl\"} 1790000500",
            "certgate_crl_entries{issuer_kind=\"Issuer\",issuer=\"ca\",namespace=\"payments\",secret=\"ca-crl\"} 2",
            "certgate_crl_entries{issuer_kind=\"ClusterIssuer\",issuer=\"ca\",namespace=\"cert-manager\",secret=\"ca-crl\"} 0",
        ];
        let mut lines = lines;
        lines.sort_unstable();
        expected.sort_unstable();
        assert_eq!(lines, expected, "in\n{text}");
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
