//! Prometheus metrics of the admission endpoints, encoded with `prometheus-client`.

use std::collections::HashSet;
use std::sync::Mutex;
use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

/// The content type of [`Metrics::encode`]'s output.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// Distinct `resource` and `operation` label values kept before further ones are reported
/// as `other`. The values come from request bodies, so anyone able to reach the port could
/// otherwise grow the series without bound.
const MAX_LABEL_VALUES: usize = 32;

/// Latency buckets in seconds: admission answers are expected in well under 10 ms, the API
/// server's default webhook timeout is 10 s.
const LATENCY_BUCKETS: [f64; 14] =
    [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0];

/// How a request ended, the `result` label.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Answered with an AdmissionReview that allows.
    Allowed,
    /// Answered with an AdmissionReview that denies.
    Denied,
    /// Answered with an HTTP error instead of an AdmissionReview.
    Rejected,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Allowed => "allowed",
            Outcome::Denied => "denied",
            Outcome::Rejected => "rejected",
        }
    }
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    path: String,
    resource: String,
    operation: String,
    result: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct PathLabels {
    path: String,
}

/// The webhook's metrics and their registry.
pub struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    duration: Family<PathLabels, Histogram>,
    resources: LabelBudget,
    operations: LabelBudget,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

impl Default for Metrics {
    fn default() -> Self {
        let mut registry = Registry::with_prefix("certgate_webhook");
        let requests = Family::<RequestLabels, Counter>::default();
        registry.register(
            "requests",
            "Admission requests by path, resource, operation and result",
            requests.clone(),
        );
        let duration = Family::<PathLabels, Histogram>::new_with_constructor(
            (|| Histogram::new(LATENCY_BUCKETS)) as fn() -> Histogram,
        );
        registry.register(
            "request_duration_seconds",
            "Time from receiving an admission request to its answer",
            duration.clone(),
        );
        Self {
            registry,
            requests,
            duration,
            resources: LabelBudget::default(),
            operations: LabelBudget::default(),
        }
    }
}

impl Metrics {
    /// Counts one admission request on `path` and observes its latency.
    pub fn record(
        &self,
        path: &str,
        resource: &str,
        operation: &str,
        outcome: Outcome,
        elapsed: Duration,
    ) {
        let labels = RequestLabels {
            path: path.to_owned(),
            resource: self.resources.admit(resource),
            operation: self.operations.admit(operation),
            result: outcome.as_str().to_owned(),
        };
        self.requests.get_or_create(&labels).inc();
        self.duration
            .get_or_create(&PathLabels { path: path.to_owned() })
            .observe(elapsed.as_secs_f64());
    }

    /// The OpenMetrics text exposition of every metric.
    pub fn encode(&self) -> Result<String, std::fmt::Error> {
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &self.registry)?;
        Ok(text)
    }
}

/// Bounds the distinct values of one label.
#[derive(Default)]
struct LabelBudget {
    seen: Mutex<HashSet<String>>,
}

impl LabelBudget {
    fn admit(&self, value: &str) -> String {
        // A poisoned lock only means another request panicked mid-insert; the set is intact.
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        if seen.contains(value) {
            return value.to_owned();
        }
        if seen.len() >= MAX_LABEL_VALUES {
            return "other".to_owned();
        }
        seen.insert(value.to_owned());
        value.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_requests_and_latency_by_labels() {
        let metrics = Metrics::default();
        for _ in 0..2 {
            metrics.record(
                "/mutate",
                "cert-manager.io/v1/certificaterequests",
                "CREATE",
                Outcome::Allowed,
                Duration::from_micros(300),
            );
        }
        let text = metrics.encode().unwrap();
        assert!(
            text.contains(
                "certgate_webhook_requests_total{path=\"/mutate\",resource=\"cert-manager.io/v1/certificaterequests\",operation=\"CREATE\",result=\"allowed\"} 2\n"
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "certgate_webhook_request_duration_seconds_bucket{le=\"0.0005\",path=\"/mutate\"} 2\n"
            ),
            "{text}"
        );
        assert!(
            text.contains("certgate_webhook_request_duration_seconds_count{path=\"/mutate\"} 2\n"),
            "{text}"
        );
    }

    #[test]
    fn label_values_beyond_the_budget_become_other() {
        let budget = LabelBudget::default();
        for i in 0..MAX_LABEL_VALUES {
            assert_eq!(budget.admit(&format!("r{i}")), format!("r{i}"));
        }
        assert_eq!(budget.admit("one-too-many"), "other");
        assert_eq!(budget.admit("r0"), "r0");
    }
}
