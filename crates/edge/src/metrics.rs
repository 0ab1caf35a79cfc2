//! Prometheus metrics of the xDS server: open streams, responses sent, ACKs and NACKs per
//! resource type.
//!
//! Like `certgate_runtime::ControllerMetrics` they are `prometheus-client` metrics, but they
//! register into a `Registry` the caller passes in rather than owning one: the process that runs
//! the edge controller already has its registry and endpoint, and the xDS server adds to it.
//! The `type_url` label takes only the five served type URLs (unknown types are never counted),
//! so no client can grow the series; each of them is declared at zero when registered, so
//! dashboards see zeros from the start rather than no data.

use std::sync::atomic::AtomicI64;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

use crate::snapshot::TypeUrl;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct TypeLabel {
    type_url: String,
}

fn label(type_url: TypeUrl) -> TypeLabel {
    TypeLabel { type_url: type_url.as_str().to_owned() }
}

/// The xDS server's metrics. Clones share the same series. [`EdgeMetrics::default`] makes
/// unregistered metrics (they count, but nothing exposes them), for tests and tools.
#[derive(Clone, Debug, Default)]
pub struct EdgeMetrics {
    streams: Gauge<i64, AtomicI64>,
    responses: Family<TypeLabel, Counter>,
    acks: Family<TypeLabel, Counter>,
    nacks: Family<TypeLabel, Counter>,
}

impl EdgeMetrics {
    /// New metrics registered under `certgate_xds_` in `registry`.
    pub fn register(registry: &mut Registry) -> EdgeMetrics {
        let metrics = EdgeMetrics::default();
        let registry = registry.sub_registry_with_prefix("certgate_xds");
        registry.register("streams", "ADS streams open now", metrics.streams.clone());
        registry.register(
            "responses",
            "Discovery responses sent, by resource type",
            metrics.responses.clone(),
        );
        registry.register(
            "acks",
            "Responses the client acknowledged (applied), by resource type",
            metrics.acks.clone(),
        );
        registry.register(
            "nacks",
            "Responses the client rejected (error_detail set), by resource type",
            metrics.nacks.clone(),
        );
        for type_url in TypeUrl::ALL {
            for family in [&metrics.responses, &metrics.acks, &metrics.nacks] {
                let _declared = family.get_or_create(&label(type_url));
            }
        }
        metrics
    }

    pub(crate) fn stream_opened(&self) {
        self.streams.inc();
    }

    pub(crate) fn stream_closed(&self) {
        self.streams.dec();
    }

    pub(crate) fn response_sent(&self, type_url: TypeUrl) {
        self.responses.get_or_create(&label(type_url)).inc();
    }

    pub(crate) fn acked(&self, type_url: TypeUrl) {
        self.acks.get_or_create(&label(type_url)).inc();
    }

    pub(crate) fn nacked(&self, type_url: TypeUrl) {
        self.nacks.get_or_create(&label(type_url)).inc();
    }

    /// ADS streams open now.
    pub fn streams(&self) -> i64 {
        self.streams.get()
    }

    /// Responses of `type_url` sent so far.
    pub fn responses(&self, type_url: TypeUrl) -> u64 {
        self.responses.get_or_create(&label(type_url)).get()
    }

    /// ACKs of `type_url` received so far.
    pub fn acks(&self, type_url: TypeUrl) -> u64 {
        self.acks.get_or_create(&label(type_url)).get()
    }

    /// NACKs of `type_url` received so far.
    pub fn nacks(&self, type_url: TypeUrl) -> u64 {
        self.nacks.get_or_create(&label(type_url)).get()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registered_metrics_are_exposed_with_their_type_label() {
        let mut registry = Registry::default();
        let metrics = EdgeMetrics::register(&mut registry);
        metrics.stream_opened();
        metrics.response_sent(TypeUrl::Cluster);
        metrics.response_sent(TypeUrl::Cluster);
        metrics.acked(TypeUrl::Cluster);
        metrics.nacked(TypeUrl::Listener);
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
        for line in [
            "certgate_xds_streams 1\n",
            "certgate_xds_responses_total{type_url=\"type.googleapis.com/envoy.config.cluster.v3.Cluster\"} 2\n",
            "certgate_xds_acks_total{type_url=\"type.googleapis.com/envoy.config.cluster.v3.Cluster\"} 1\n",
            "certgate_xds_nacks_total{type_url=\"type.googleapis.com/envoy.config.listener.v3.Listener\"} 1\n",
        ] {
            assert!(text.contains(line), "missing {line:?} in\n{text}");
        }
        assert_eq!(metrics.responses(TypeUrl::Cluster), 2);
        // The other types are there from the start, at zero.
        for type_url in TypeUrl::ALL.into_iter().filter(|t| *t != TypeUrl::Cluster) {
            let line =
                format!("certgate_xds_responses_total{{type_url=\"{}\"}} 0\n", type_url.as_str());
            assert!(text.contains(&line), "missing {line:?} in\n{text}");
        }
        metrics.stream_closed();
        assert_eq!(metrics.streams(), 0);
    }
}
