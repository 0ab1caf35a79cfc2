//! `certgate edge serve` as a process: the xDS server, the edge controller, leader election
//! for status writes, and `/metrics`, `/healthz`, `/readyz`, stopped together on shutdown.

use std::net::SocketAddr;
use std::sync::Arc;

use certgate_runtime::{EventSink, LeaseSettings, Shutdown};
use certgate_serving::{ConnectionPolicy, MetricsText, Readiness, health_routes};
use kube::runtime::events::Reporter;
use prometheus_client::registry::Registry;
use tokio::net::TcpListener;

use super::leader::{LeaderError, Leadership};
use super::metrics::ControllerMetrics;
use super::run::{Controller, ControllerConfig};
use crate::cache::SnapshotCache;
use crate::metrics::EdgeMetrics;
use crate::server::{ServeError, serve_tls, serve_with_limits};
use crate::state::Limits;
use crate::tls::{ReloadingTls, XdsTlsFiles};

/// `/readyz`'s answer until the first snapshot is published (Envoy would get nothing yet).
pub const NOT_READY: &str = "not ready: the first Envoy configuration is not built yet";

/// How the process runs.
#[derive(Clone, Debug)]
pub struct ProcessOptions {
    /// Where the xDS server listens.
    pub xds: SocketAddr,
    /// Mutual TLS with Envoy; `None` serves plain gRPC (loopback or a network only Envoy
    /// reaches: SDS carries private keys).
    pub xds_tls: Option<XdsTlsFiles>,
    /// Where `/metrics`, `/healthz` and `/readyz` are served (plain HTTP).
    pub listen: SocketAddr,
    pub connections: ConnectionPolicy,
    /// The Lease electing the status writer; `None` writes statuses from this replica.
    pub lease: Option<LeaseSettings>,
    pub controller: ControllerConfig,
}

#[derive(Debug, thiserror::Error)]
pub enum ProcessError {
    #[error("cannot listen for xDS on {address}: {source}")]
    XdsListen {
        address: SocketAddr,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot serve /metrics and health on {address}: {source}")]
    HealthListen {
        address: SocketAddr,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot use the xDS server's TLS files: {0}")]
    XdsTls(#[from] certgate_serving::TlsError),
    #[error(transparent)]
    Leader(#[from] LeaderError),
    #[error(transparent)]
    Xds(#[from] ServeError),
}

/// The process's registry, encoded on each scrape.
struct RegistryText(Registry);

impl MetricsText for RegistryText {
    fn encode(&self) -> Result<String, std::fmt::Error> {
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &self.0)?;
        Ok(text)
    }
}

/// Runs until `shutdown` completes; then stops serving xDS (streams end, Envoy keeps its
/// configuration and reconnects), resigns the lease and returns.
pub async fn run_process(
    client: kube::Client,
    options: ProcessOptions,
    shutdown: Shutdown,
) -> Result<(), ProcessError> {
    let mut registry = Registry::default();
    let xds_metrics = EdgeMetrics::register(&mut registry);
    let metrics = ControllerMetrics::register(&mut registry);

    // Read before anything is served: a broken TLS file is a start-up error, not a server
    // that refuses every Envoy.
    let tls = options.xds_tls.clone().map(ReloadingTls::load).transpose()?.map(Arc::new);
    let xds = TcpListener::bind(options.xds)
        .await
        .map_err(|source| ProcessError::XdsListen { address: options.xds, source })?;
    let health = TcpListener::bind(options.listen)
        .await
        .map_err(|source| ProcessError::HealthListen { address: options.listen, source })?;
    if let Ok(address) = health.local_addr() {
        tracing::info!(address = %address, "serving /metrics, /healthz and /readyz");
    }
    let readiness = Readiness::new(NOT_READY);
    let router = health_routes(readiness.clone(), Arc::new(RegistryText(registry)));
    let endpoints = tokio::spawn({
        let (connections, shutdown) = (options.connections.clone(), shutdown.clone());
        async move { certgate_serving::serve_plain(health, router, &connections, shutdown).await }
    });

    let leadership = match &options.lease {
        Some(lease) => Leadership::elect(client.clone(), lease).await?,
        None => Leadership::always(),
    };
    let cache = SnapshotCache::new();
    let ready = tokio::spawn({
        let mut snapshots = cache.subscribe();
        async move {
            if snapshots.wait_for(Option::is_some).await.is_ok() {
                readiness.set(true);
            }
        }
    });
    let client_for_events = client.clone();
    let identity = match &options.lease {
        Some(lease) => lease.identity.clone(),
        None => certgate_runtime::replica_identity(),
    };
    let controller = Controller {
        client,
        cache: cache.clone(),
        config: options.controller,
        metrics,
        clock: Arc::new(certgate_clock::SystemClock),
        is_leader: leadership.is_leader.clone(),
        events: EventSink::new(
            client_for_events,
            Reporter { controller: "certgate-edge".to_owned(), instance: Some(identity) },
            "edge",
        ),
    };
    let xds_server = async {
        match tls {
            Some(tls) => {
                serve_tls(xds, tls, cache, xds_metrics, Limits::default(), shutdown.clone()).await
            }
            None => {
                serve_with_limits(xds, cache, xds_metrics, Limits::default(), shutdown.clone())
                    .await
            }
        }
    };
    let (served, ()) = tokio::join!(xds_server, controller.run(shutdown.clone()));
    ready.abort();
    leadership.resign().await;
    if let Ok(Err(error)) = endpoints.await {
        tracing::warn!(error = %error, "the health endpoint failed");
    }
    Ok(served?)
}
