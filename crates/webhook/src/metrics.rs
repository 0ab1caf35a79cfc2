//! Prometheus metrics of the admission endpoints, encoded with `prometheus-client`.

use std::collections::HashSet;
use std::sync::Mutex;
use std::time::Duration;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

use certgate_admission::review::HeavyReviewStats;

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
    /// Allowed without a review: no rule covers the resource or operation (a webhook
    /// configuration routing more to certgate than it handles, as upstream's `*/*` does).
    Unreviewed,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Allowed => "allowed",
            Outcome::Denied => "denied",
            Outcome::Rejected => "rejected",
            Outcome::Unreviewed => "unreviewed",
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

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ReviewResultLabels {
    result: &'static str,
}

/// The `requests_total` series every webhook exposes at zero from its start, so dashboards
/// and alerts (a rate of denials, a ratio of rejections) see zeros rather than no data: the
/// requests the default webhook configurations send (deploy/, `certgate dev`), by path,
/// resource and operations, each `allowed` and `denied`; and each path's `rejected`.
/// Upstream's OCM paths and cert-manager's other resources are counted from their first
/// request on.
const DECLARED_REQUESTS: [(&str, &str, &[&str]); 4] = [
    ("/mutate", "cert-manager.io/v1/certificaterequests", &["CREATE"]),
    ("/validate", "cert-manager.io/v1/certificaterequests", &["CREATE", "UPDATE"]),
    ("/validate", "cert-manager.io/v1/certificaterequests/status", &["UPDATE"]),
    (
        "/validate",
        "policy.cert-manager.io/v1alpha1/certificaterequestpolicies",
        &["CREATE", "UPDATE"],
    ),
];

/// The paths whose `rejected` count and latency histogram are declared up front.
const DECLARED_PATHS: [&str; 2] = ["/mutate", "/validate"];

/// How policy reviews ended, the `result` label of `policy_reviews_total`.
const REVIEW_RESULTS: [&str; 3] = ["completed", "cancelled", "refused"];

/// The CPU-heavy policy reviews (the webhook's [`crate::BoundedReviewPool`]), read from the
/// handler's counters when metrics are scraped.
struct PolicyReviews {
    running: Gauge,
    waiting: Gauge,
    ended: Family<ReviewResultLabels, Counter>,
    /// The handler's totals last exported: counters only move forward by the difference,
    /// once per change even when scrapes overlap.
    exported: Mutex<[u64; 3]>,
}

/// The webhook's metrics and their registry.
pub struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    duration: Family<PathLabels, Histogram>,
    resources: LabelBudget,
    operations: LabelBudget,
    policy_reviews: PolicyReviews,
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
        let policy_reviews = PolicyReviews {
            running: Gauge::default(),
            waiting: Gauge::default(),
            ended: Family::default(),
            exported: Mutex::new([0; 3]),
        };
        registry.register(
            "policy_reviews_running",
            "CertificateRequestPolicy reviews compiling CEL now",
            policy_reviews.running.clone(),
        );
        registry.register(
            "policy_reviews_waiting",
            "CertificateRequestPolicy reviews waiting for a turn to compile",
            policy_reviews.waiting.clone(),
        );
        registry.register(
            "policy_reviews",
            "CertificateRequestPolicy reviews by how they ended: completed, cancelled (the \
             client went away) or refused (too many waiting, 429)",
            policy_reviews.ended.clone(),
        );
        // Declared up front, so dashboards and alerts see zeros rather than no series.
        for result in REVIEW_RESULTS {
            let _declared = policy_reviews.ended.get_or_create(&ReviewResultLabels { result });
        }
        let metrics = Self {
            registry,
            requests,
            duration,
            resources: LabelBudget::default(),
            operations: LabelBudget::default(),
            policy_reviews,
        };
        metrics.declare();
        metrics
    }
}

impl Metrics {
    /// Creates the series of [`DECLARED_REQUESTS`] and [`DECLARED_PATHS`] at zero.
    fn declare(&self) {
        let series = |path: &str, resource: &str, operation: &str, outcome: Outcome| {
            let _declared = self.requests.get_or_create(&RequestLabels {
                path: path.to_owned(),
                resource: self.resources.admit(resource),
                operation: self.operations.admit(operation),
                result: outcome.as_str().to_owned(),
            });
        };
        for (path, resource, operations) in DECLARED_REQUESTS {
            for operation in operations {
                for outcome in [Outcome::Allowed, Outcome::Denied] {
                    series(path, resource, operation, outcome);
                }
            }
        }
        for path in DECLARED_PATHS {
            series(path, "", "", Outcome::Rejected);
            let _declared = self.duration.get_or_create(&PathLabels { path: path.to_owned() });
        }
    }

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

    /// Brings the policy-review metrics up to the handler's counters `stats`.
    pub fn observe_policy_reviews(&self, stats: &HeavyReviewStats) {
        let reviews = &self.policy_reviews;
        reviews.running.set(i64::try_from(stats.running).unwrap_or(i64::MAX));
        reviews.waiting.set(i64::try_from(stats.waiting).unwrap_or(i64::MAX));
        let totals = [stats.completed, stats.cancelled, stats.refused];
        // A poisoned lock only means a scrape panicked mid-update; the totals are intact.
        let mut exported = reviews.exported.lock().unwrap_or_else(|e| e.into_inner());
        for ((result, total), seen) in
            REVIEW_RESULTS.into_iter().zip(totals).zip(exported.iter_mut())
        {
            if total > *seen {
                reviews.ended.get_or_create(&ReviewResultLabels { result }).inc_by(total - *seen);
                *seen = total;
            }
        }
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
    fn the_default_configurations_series_start_at_zero() {
        let text = Metrics::default().encode().unwrap();
        let mut declared: Vec<&str> =
            text.lines().filter(|l| l.starts_with("certgate_webhook_requests_total{")).collect();
        declared.sort_unstable();
        let request = "cert-manager.io/v1/certificaterequests";
        let policy = "policy.cert-manager.io/v1alpha1/certificaterequestpolicies";
        let mut expected = vec![
            "certgate_webhook_requests_total{path=\"/mutate\",resource=\"\",operation=\"\",result=\"rejected\"} 0".to_owned(),
            "certgate_webhook_requests_total{path=\"/validate\",resource=\"\",operation=\"\",result=\"rejected\"} 0".to_owned(),
        ];
        for (path, resource, operation) in [
            ("/mutate", request.to_owned(), "CREATE"),
            ("/validate", request.to_owned(), "CREATE"),
            ("/validate", request.to_owned(), "UPDATE"),
            ("/validate", format!("{request}/status"), "UPDATE"),
            ("/validate", policy.to_owned(), "CREATE"),
            ("/validate", policy.to_owned(), "UPDATE"),
        ] {
            for result in ["allowed", "denied"] {
                expected.push(format!(
                    "certgate_webhook_requests_total{{path=\"{path}\",resource=\"{resource}\",operation=\"{operation}\",result=\"{result}\"}} 0"
                ));
            }
        }
        expected.sort_unstable();
        assert_eq!(declared, expected);
        for path in DECLARED_PATHS {
            let count =
                format!("certgate_webhook_request_duration_seconds_count{{path=\"{path}\"}} 0\n");
            assert!(text.contains(&count), "{count} missing in {text}");
        }
    }

    #[test]
    fn policy_reviews_follow_the_handler_counters_and_start_at_zero() {
        let metrics = Metrics::default();
        let text = metrics.encode().unwrap();
        for result in REVIEW_RESULTS {
            assert!(
                text.contains(&format!(
                    "certgate_webhook_policy_reviews_total{{result=\"{result}\"}} 0\n"
                )),
                "{text}"
            );
        }
        let stats =
            HeavyReviewStats { running: 2, waiting: 5, completed: 7, cancelled: 1, refused: 3 };
        metrics.observe_policy_reviews(&stats);
        // A second scrape of the same totals adds nothing.
        metrics.observe_policy_reviews(&stats);
        metrics.observe_policy_reviews(&HeavyReviewStats { completed: 9, ..stats });
        let text = metrics.encode().unwrap();
        for line in [
            "certgate_webhook_policy_reviews_running 2\n",
            "certgate_webhook_policy_reviews_waiting 5\n",
            "certgate_webhook_policy_reviews_total{result=\"completed\"} 9\n",
            "certgate_webhook_policy_reviews_total{result=\"cancelled\"} 1\n",
            "certgate_webhook_policy_reviews_total{result=\"refused\"} 3\n",
        ] {
            assert!(text.contains(line), "{line} missing in {text}");
        }
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
