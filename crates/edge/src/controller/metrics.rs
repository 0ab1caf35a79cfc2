//! The edge controller's Prometheus metrics, in the style of [`crate::EdgeMetrics`]: they
//! register into the caller's registry. Label values are fixed sets (status names, results),
//! so no object can grow the series, and each is declared at zero when registered so that
//! dashboards see zeros from the start rather than no data (the CRL gauges, one per served
//! Secret, appear with their Secrets).

use std::collections::BTreeMap;
use std::sync::atomic::AtomicI64;
use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

use certgate_ingress::NamespacedName;

use super::decide::ProxyCounts;

/// Rebuild durations in seconds: a few proxies take well under a millisecond, thousands with
/// large CRLs up to seconds.
const REBUILD_BUCKETS: [f64; 12] =
    [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0];

/// The `status` values of `httpproxies`: Contour's currentStatus names.
const PROXY_STATUSES: [&str; 3] = ["valid", "invalid", "orphaned"];
/// The `result` values of `status_writes_total`.
const WRITE_RESULTS: [&str; 2] = ["ok", "error"];

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct StatusLabel {
    status: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct SecretLabel {
    namespace: String,
    secret: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ResultLabel {
    result: &'static str,
}

/// Clones share the same series; `Default` makes unregistered metrics (for tests).
#[derive(Clone, Debug)]
pub struct ControllerMetrics {
    rebuilds: Counter,
    rebuild_failures: Counter,
    duration: Histogram,
    proxies: Family<StatusLabel, Gauge>,
    status_writes: Family<ResultLabel, Counter>,
    leader: Gauge<i64, AtomicI64>,
    crl_next_update: Family<SecretLabel, Gauge<i64, AtomicI64>>,
}

impl Default for ControllerMetrics {
    fn default() -> Self {
        ControllerMetrics {
            rebuilds: Counter::default(),
            rebuild_failures: Counter::default(),
            duration: Histogram::new(REBUILD_BUCKETS),
            proxies: Family::default(),
            status_writes: Family::default(),
            leader: Gauge::default(),
            crl_next_update: Family::default(),
        }
    }
}

impl ControllerMetrics {
    /// New metrics registered under `certgate_edge_` in `registry`.
    pub fn register(registry: &mut Registry) -> ControllerMetrics {
        let metrics = ControllerMetrics::default();
        let registry = registry.sub_registry_with_prefix("certgate_edge");
        registry.register(
            "rebuilds",
            "Rebuilds of the statuses and the xDS snapshot from the watched objects",
            metrics.rebuilds.clone(),
        );
        registry.register(
            "rebuild_failures",
            "Rebuilds whose snapshot could not be built (nothing new was served)",
            metrics.rebuild_failures.clone(),
        );
        registry.register(
            "rebuild_duration_seconds",
            "Time one rebuild took, from the stores to the published snapshot (status writes excluded)",
            metrics.duration.clone(),
        );
        registry.register(
            "httpproxies",
            "HTTPProxies by the currentStatus of the last rebuild (valid, invalid, orphaned)",
            metrics.proxies.clone(),
        );
        registry.register(
            "status_writes",
            "HTTPProxy status writes by result (ok, error)",
            metrics.status_writes.clone(),
        );
        registry.register(
            "leader",
            "1 while this replica writes HTTPProxy statuses (every replica serves xDS)",
            metrics.leader.clone(),
        );
        registry.register(
            "crl_next_update_timestamp_seconds",
            "Earliest nextUpdate (Unix time) of the CRLs in each served CRL Secret; Envoy refuses clients needing a CRL past it",
            metrics.crl_next_update.clone(),
        );
        for status in PROXY_STATUSES {
            let _declared = metrics.proxies.get_or_create(&StatusLabel { status });
        }
        for result in WRITE_RESULTS {
            let _declared = metrics.status_writes.get_or_create(&ResultLabel { result });
        }
        metrics
    }

    /// One series per served CRL Secret; Secrets no longer served lose theirs.
    pub fn set_crl_next_updates(&self, next_updates: &BTreeMap<NamespacedName, i64>) {
        self.crl_next_update.clear();
        for (name, at) in next_updates {
            let label =
                SecretLabel { namespace: name.namespace.clone(), secret: name.name.clone() };
            self.crl_next_update.get_or_create(&label).set(*at);
        }
    }

    pub fn rebuilt(&self, elapsed: Duration, counts: ProxyCounts) {
        self.rebuilds.inc();
        self.duration.observe(elapsed.as_secs_f64());
        for (status, count) in
            PROXY_STATUSES.into_iter().zip([counts.valid, counts.invalid, counts.orphaned])
        {
            self.proxies.get_or_create(&StatusLabel { status }).set(to_i64(count));
        }
    }

    pub fn rebuild_failed(&self) {
        self.rebuilds.inc();
        self.rebuild_failures.inc();
    }

    pub fn status_written(&self, ok: bool) {
        let result = if ok { WRITE_RESULTS[0] } else { WRITE_RESULTS[1] };
        self.status_writes.get_or_create(&ResultLabel { result }).inc();
    }

    pub fn set_leader(&self, leader: bool) {
        self.leader.set(i64::from(leader));
    }

    /// Rebuilds so far (tests and tools).
    pub fn rebuilds(&self) -> u64 {
        self.rebuilds.get()
    }
}

fn to_i64(count: usize) -> i64 {
    i64::try_from(count).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closed_label_sets_start_at_zero() {
        let mut registry = Registry::default();
        let _metrics = ControllerMetrics::register(&mut registry);
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
        for line in [
            "certgate_edge_httpproxies{status=\"valid\"} 0\n",
            "certgate_edge_httpproxies{status=\"invalid\"} 0\n",
            "certgate_edge_httpproxies{status=\"orphaned\"} 0\n",
            "certgate_edge_status_writes_total{result=\"ok\"} 0\n",
            "certgate_edge_status_writes_total{result=\"error\"} 0\n",
            "certgate_edge_rebuilds_total 0\n",
        ] {
            assert!(text.contains(line), "missing {line:?} in\n{text}");
        }
    }

    #[test]
    fn registered_metrics_are_exposed() {
        let mut registry = Registry::default();
        let metrics = ControllerMetrics::register(&mut registry);
        metrics
            .rebuilt(Duration::from_millis(2), ProxyCounts { valid: 2, invalid: 1, orphaned: 0 });
        metrics.status_written(true);
        metrics.set_leader(true);
        let crl = NamespacedName { namespace: "ns".into(), name: "crl".into() };
        metrics.set_crl_next_updates(&[(crl, 4_102_444_800)].into_iter().collect());
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
        for line in [
            "certgate_edge_rebuilds_total 1\n",
            "certgate_edge_httpproxies{status=\"valid\"} 2\n",
            "certgate_edge_httpproxies{status=\"invalid\"} 1\n",
            "certgate_edge_httpproxies{status=\"orphaned\"} 0\n",
            "certgate_edge_status_writes_total{result=\"ok\"} 1\n",
            "certgate_edge_leader 1\n",
            "certgate_edge_rebuild_duration_seconds_count 1\n",
            "certgate_edge_crl_next_update_timestamp_seconds{namespace=\"ns\",secret=\"crl\"} 4102444800\n",
        ] {
            assert!(text.contains(line), "missing {line:?} in\n{text}");
        }
        assert_eq!(metrics.rebuilds(), 1);
    }
}
