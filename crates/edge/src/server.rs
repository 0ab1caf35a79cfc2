//! The xDS server: ADS and the singleton xDS services over gRPC (tonic, HTTP/2) on a listener
//! the caller binds, either with mutual TLS ([`serve_tls`], what production uses: Envoy and
//! certgate authenticate each other, as `contour serve` and `contour bootstrap` set it up) or
//! over plain TCP ([`serve`]: for loopback, where anyone who can connect may read every served
//! resource, serving certificates' keys (SDS) included).

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use envoy_types::pb::envoy::service::cluster::v3::cluster_discovery_service_server::ClusterDiscoveryServiceServer;
use envoy_types::pb::envoy::service::discovery::v3::aggregated_discovery_service_server::AggregatedDiscoveryServiceServer;
use envoy_types::pb::envoy::service::endpoint::v3::endpoint_discovery_service_server::EndpointDiscoveryServiceServer;
use envoy_types::pb::envoy::service::listener::v3::listener_discovery_service_server::ListenerDiscoveryServiceServer;
use envoy_types::pb::envoy::service::route::v3::route_discovery_service_server::RouteDiscoveryServiceServer;
use envoy_types::pb::envoy::service::secret::v3::secret_discovery_service_server::SecretDiscoveryServiceServer;
use thiserror::Error;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tonic::transport::server::TcpIncoming;

use crate::tls::{ReloadingTls, incoming as tls_incoming};

use crate::ads::AdsService;
use crate::cache::SnapshotCache;
use crate::metrics::EdgeMetrics;
use crate::state::Limits;

/// HTTP/2 pings on an idle connection, and how long a ping may go unanswered: an Envoy that
/// vanished without closing its connection (node lost, network cut) is noticed and its stream
/// state freed within about a minute and a half, instead of when TCP gives up.
const KEEPALIVE_INTERVAL: Duration = Duration::from_secs(60);
const KEEPALIVE_TIMEOUT: Duration = Duration::from_secs(20);

#[derive(Debug, Error)]
pub enum ServeError {
    #[error("the xDS server failed: {0}")]
    Transport(#[from] tonic::transport::Error),
}

/// Serves xDS on `listener` from `cache` until `shutdown` completes, with the default
/// [`Limits`]. See [`serve_with_limits`].
pub async fn serve<F>(
    listener: TcpListener,
    cache: SnapshotCache,
    metrics: EdgeMetrics,
    shutdown: F,
) -> Result<(), ServeError>
where
    F: Future<Output = ()> + Send,
{
    serve_with_limits(listener, cache, metrics, Limits::default(), shutdown).await
}

/// Serves xDS on `listener` until `shutdown` completes: ADS (`StreamAggregatedResources`),
/// delta ADS (`DeltaAggregatedResources`) and the five singleton services (`StreamListeners`,
/// `StreamRoutes`, `StreamClusters`, `StreamEndpoints`, `StreamSecrets`), every stream run by
/// the same state machine. When `shutdown` completes it stops accepting connections, ends every
/// open stream (each client sees its stream finish with status OK and reconnects, to another
/// replica or to this one restarted) and returns once the connections are closed.
pub async fn serve_with_limits<F>(
    listener: TcpListener,
    cache: SnapshotCache,
    metrics: EdgeMetrics,
    limits: Limits,
    shutdown: F,
) -> Result<(), ServeError>
where
    F: Future<Output = ()> + Send,
{
    if let Ok(address) = listener.local_addr() {
        tracing::info!(address = %address, "xDS server listening (plain TCP, no TLS)");
    }
    let incoming = TcpIncoming::from(listener).with_nodelay(Some(true));
    run(incoming, cache, metrics, limits, shutdown).await
}

/// [`serve_with_limits`] with mutual TLS: only clients presenting a certificate signed by the
/// CA of `tls` are served; `tls` re-reads its files when they change.
pub async fn serve_tls<F>(
    listener: TcpListener,
    tls: Arc<ReloadingTls>,
    cache: SnapshotCache,
    metrics: EdgeMetrics,
    limits: Limits,
    shutdown: F,
) -> Result<(), ServeError>
where
    F: Future<Output = ()> + Send,
{
    if let Ok(address) = listener.local_addr() {
        tracing::info!(address = %address, "xDS server listening (mutual TLS)");
    }
    run(tls_incoming(listener, tls), cache, metrics, limits, shutdown).await
}

async fn run<I, IO, IE, F>(
    incoming: I,
    cache: SnapshotCache,
    metrics: EdgeMetrics,
    limits: Limits,
    shutdown: F,
) -> Result<(), ServeError>
where
    I: futures_util::Stream<Item = Result<IO, IE>>,
    IO: tokio::io::AsyncRead
        + tokio::io::AsyncWrite
        + tonic::transport::server::Connected
        + Unpin
        + Send
        + 'static,
    IE: Into<Box<dyn std::error::Error + Send + Sync>>,
    F: Future<Output = ()> + Send,
{
    // tonic's graceful shutdown waits for open requests to finish, and an xDS stream never
    // finishes by itself: the streams watch this flag to end when shutdown begins.
    let (stop, stopped) = watch::channel(false);
    let xds = Arc::new(AdsService::new(cache, metrics, limits, stopped));
    let max = limits.max_request_bytes;
    let signal = async move {
        shutdown.await;
        tracing::info!("xDS server stopping: ending the xDS streams");
        stop.send_replace(true);
    };
    tonic::transport::Server::builder()
        .http2_keepalive_interval(Some(KEEPALIVE_INTERVAL))
        .http2_keepalive_timeout(Some(KEEPALIVE_TIMEOUT))
        .add_service(
            AggregatedDiscoveryServiceServer::from_arc(xds.clone()).max_decoding_message_size(max),
        )
        .add_service(
            ListenerDiscoveryServiceServer::from_arc(xds.clone()).max_decoding_message_size(max),
        )
        .add_service(
            RouteDiscoveryServiceServer::from_arc(xds.clone()).max_decoding_message_size(max),
        )
        .add_service(
            ClusterDiscoveryServiceServer::from_arc(xds.clone()).max_decoding_message_size(max),
        )
        .add_service(
            EndpointDiscoveryServiceServer::from_arc(xds.clone()).max_decoding_message_size(max),
        )
        .add_service(SecretDiscoveryServiceServer::from_arc(xds).max_decoding_message_size(max))
        .serve_with_incoming_shutdown(incoming, signal)
        .await?;
    tracing::info!("xDS server stopped");
    Ok(())
}
