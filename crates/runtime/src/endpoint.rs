//! The controller's plain-HTTP endpoint: `/metrics`, `/healthz` (the process serves) and
//! `/readyz` (started and not shutting down; a standby replica is ready, so rollouts and
//! PodDisruptionBudgets count it), with the routes every certgate server shares
//! ([`certgate_serving::health`]).

use std::net::SocketAddr;
use std::sync::Arc;

use certgate_serving::{ConnectionPolicy, MetricsText, Readiness, health_routes};

use crate::metrics::ControllerMetrics;

/// `/readyz`'s answer before the controllers start and once they stop.
pub const NOT_READY: &str = "not ready: starting or shutting down";

/// The controller's readiness flag, not ready until set.
pub fn controller_readiness() -> Readiness {
    Readiness::new(NOT_READY)
}

impl MetricsText for ControllerMetrics {
    fn encode(&self) -> Result<String, std::fmt::Error> {
        ControllerMetrics::encode(self)
    }
}

/// Binds `listen`; the returned future serves the health and metrics routes until
/// `shutdown` completes, closing slow and idle connections as `connections` says.
pub async fn serve_health(
    listen: SocketAddr,
    readiness: Readiness,
    metrics: Arc<ControllerMetrics>,
    connections: ConnectionPolicy,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<(SocketAddr, impl Future<Output = std::io::Result<()>>)> {
    let listener = tokio::net::TcpListener::bind(listen).await?;
    let address = listener.local_addr()?;
    let router = health_routes(readiness, metrics);
    Ok((address, async move {
        certgate_serving::serve_plain(listener, router, &connections, shutdown).await
    }))
}
