//! The gRPC face of ADS: envoy-types' generated `AggregatedDiscoveryService`, each stream a
//! [`StreamState`] driven by the client's requests, the snapshot cache and the shutdown signal.
//!
//! A stream is a plain `futures` stream the gRPC server polls (no task or channel per stream):
//! it waits for whichever comes first of a request, a newly published snapshot or shutdown,
//! hands it to the state machine, and yields the responses that come out, one at a time. It
//! reads the next request only after the previous responses were taken, so a client that stops
//! reading stops its own stream instead of queueing responses in certgate.
//!
//! The same streams serve the singleton xDS services (one resource type per stream, as
//! Contour's bootstrap configures Envoy): see [`crate::singleton`].
//!
//! Delta xDS is not served: `DeltaAggregatedResources` answers `UNIMPLEMENTED`.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use envoy_types::pb::envoy::service::discovery::v3::aggregated_discovery_service_server::AggregatedDiscoveryService;
use envoy_types::pb::envoy::service::discovery::v3::{
    DeltaDiscoveryRequest, DeltaDiscoveryResponse, DiscoveryRequest, DiscoveryResponse,
};
use futures_util::{Stream, StreamExt};
use tokio::sync::watch;
use tonic::{Request, Response, Status, Streaming};

use crate::cache::SnapshotCache;
use crate::metrics::EdgeMetrics;
use crate::snapshot::{Snapshot, TypeUrl};
use crate::state::{Limits, Received, StreamState, loggable};

/// The text of the `UNIMPLEMENTED` status of `DeltaAggregatedResources`.
pub const DELTA_UNIMPLEMENTED: &str = "certgate serves state-of-the-world ADS only: set api_type \
     GRPC (not DELTA_GRPC) in the Envoy bootstrap's ads_config";

/// The responses of one ADS (or singleton xDS) stream.
pub type ResponseStream = Pin<Box<dyn Stream<Item = Result<DiscoveryResponse, Status>> + Send>>;

/// The ADS service (and the singleton services): one per server, shared by its streams.
#[derive(Debug)]
pub struct AdsService {
    cache: SnapshotCache,
    metrics: EdgeMetrics,
    limits: Limits,
    shutdown: watch::Receiver<bool>,
    streams: AtomicU64,
}

impl AdsService {
    /// Streams end when `shutdown` turns `true` (or its sender is dropped).
    pub fn new(
        cache: SnapshotCache,
        metrics: EdgeMetrics,
        limits: Limits,
        shutdown: watch::Receiver<bool>,
    ) -> AdsService {
        AdsService { cache, metrics, limits, shutdown, streams: AtomicU64::new(0) }
    }

    /// The response stream for a stream of requests (the gRPC method minus tonic's wrapping).
    /// `only` restricts a singleton service's stream to its type (see [`Driver::handle`]).
    pub(crate) fn open<R>(
        &self,
        requests: R,
        peer: Option<SocketAddr>,
        only: Option<TypeUrl>,
    ) -> ResponseStream
    where
        R: Stream<Item = Result<DiscoveryRequest, Status>> + Send + Unpin + 'static,
    {
        let id = self.streams.fetch_add(1, Ordering::Relaxed) + 1;
        let peer = peer.map_or_else(String::new, |peer| peer.to_string());
        let service = only.map_or("ADS", TypeUrl::short_name);
        tracing::debug!(stream = id, peer = %peer, service, "xDS stream opened");
        let driver = Driver {
            requests,
            only,
            snapshots: self.cache.subscribe(),
            shutdown: self.shutdown.clone(),
            state: StreamState::new(id, self.limits),
            pending: VecDeque::new(),
            open: OpenStream::new(self.metrics.clone(), id, peer),
            finished: false,
        };
        Box::pin(futures_util::stream::unfold(driver, Driver::next))
    }
}

#[tonic::async_trait]
impl AggregatedDiscoveryService for AdsService {
    type StreamAggregatedResourcesStream = ResponseStream;

    async fn stream_aggregated_resources(
        &self,
        request: Request<Streaming<DiscoveryRequest>>,
    ) -> Result<Response<ResponseStream>, Status> {
        let peer = request.remote_addr();
        Ok(Response::new(self.open(request.into_inner(), peer, None)))
    }

    type DeltaAggregatedResourcesStream =
        futures_util::stream::Empty<Result<DeltaDiscoveryResponse, Status>>;

    async fn delta_aggregated_resources(
        &self,
        _request: Request<Streaming<DeltaDiscoveryRequest>>,
    ) -> Result<Response<Self::DeltaAggregatedResourcesStream>, Status> {
        tracing::debug!("delta ADS stream refused: not implemented");
        Err(Status::unimplemented(DELTA_UNIMPLEMENTED))
    }
}

/// One stream's state between polls.
struct Driver<R> {
    requests: R,
    /// The type of a singleton service's stream; `None` on ADS.
    only: Option<TypeUrl>,
    snapshots: watch::Receiver<Option<Arc<Snapshot>>>,
    shutdown: watch::Receiver<bool>,
    state: StreamState,
    pending: VecDeque<DiscoveryResponse>,
    open: OpenStream,
    finished: bool,
}

impl<R> Driver<R>
where
    R: Stream<Item = Result<DiscoveryRequest, Status>> + Send + Unpin + 'static,
{
    /// The next item of the response stream, or `None` when the stream ends.
    async fn next(mut self) -> Option<(Result<DiscoveryResponse, Status>, Self)> {
        loop {
            if let Some(response) = self.pending.pop_front() {
                if let Some(type_url) = TypeUrl::parse(&response.type_url) {
                    self.open.metrics.response_sent(type_url);
                }
                tracing::debug!(
                    stream = self.open.id,
                    node = self.state.node_id(),
                    type_url = %response.type_url,
                    version = %response.version_info,
                    nonce = %response.nonce,
                    resources = response.resources.len(),
                    "ADS response sent"
                );
                return Some((Ok(response), self));
            }
            if self.finished || *self.shutdown.borrow() {
                return None;
            }
            tokio::select! {
                // Not `biased`: a controller publishing faster than this stream can answer
                // must not starve the client's requests. Shutdown is still seen at once: the
                // flag is checked above before every wait.
                stopped = self.shutdown.changed() => {
                    if stopped.is_err() || *self.shutdown.borrow() {
                        tracing::debug!(stream = self.open.id, "xDS stream ended by shutdown");
                        return None;
                    }
                }
                published = self.snapshots.changed() => {
                    if published.is_err() {
                        // The cache is gone: the server is being torn down.
                        return None;
                    }
                    let snapshot = self.snapshots.borrow_and_update().clone();
                    if let Some(snapshot) = snapshot {
                        self.pending.extend(self.state.on_snapshot(&snapshot));
                    }
                }
                request = self.requests.next() => match request {
                    None => return None,
                    Some(Err(status)) => {
                        tracing::debug!(
                            stream = self.open.id,
                            node = self.state.node_id(),
                            code = %status.code(),
                            "xDS stream ended by the client"
                        );
                        return None;
                    }
                    Some(Ok(request)) => {
                        if let Err(status) = self.handle(request) {
                            self.finished = true;
                            return Some((Err(status), self));
                        }
                    }
                },
            }
        }
    }

    /// Feeds one request to the state machine; logs and counts what it was.
    fn handle(&mut self, mut request: DiscoveryRequest) -> Result<(), Status> {
        if let Some(only) = self.only {
            // On a singleton service the type is implicit: an empty type URL means the
            // service's, and another type has no business on this stream.
            if request.type_url.is_empty() {
                only.as_str().clone_into(&mut request.type_url);
            } else if request.type_url != only.as_str() {
                tracing::debug!(
                    stream = self.open.id,
                    node = self.state.node_id(),
                    service = only.short_name(),
                    type_url = %loggable(&request.type_url, self.state.limits().max_logged_len),
                    "request for another resource type on a singleton xDS stream ignored"
                );
                return Ok(());
            }
        }
        // Clone the `Arc` out so the channel is not locked while the request is handled.
        let snapshot = self.snapshots.borrow().clone();
        let handled = match self.state.on_request(request, snapshot.as_deref()) {
            Ok(handled) => handled,
            Err(error) => {
                tracing::warn!(
                    stream = self.open.id,
                    node = self.state.node_id(),
                    peer = %self.open.peer,
                    error = %error,
                    "ADS request refused; ending the stream"
                );
                return Err(Status::invalid_argument(error.to_string()));
            }
        };
        let (id, node) = (self.open.id, self.state.node_id());
        match &handled.received {
            Received::Subscribe { type_url, version } => tracing::debug!(
                stream = id, node, type_url = %type_url, version = %version,
                "ADS subscription"
            ),
            Received::Ack { type_url, version } => {
                self.open.metrics.acked(*type_url);
                tracing::debug!(stream = id, node, type_url = %type_url, version = %version, "ADS ACK");
            }
            Received::Nack { type_url, version, code, message } => {
                self.open.metrics.nacked(*type_url);
                tracing::warn!(
                    stream = id, node, type_url = %type_url, version = %version, code = *code,
                    error = %message,
                    "Envoy rejected a configuration update (NACK); it keeps its previous version"
                );
            }
            Received::Stale { type_url } => tracing::debug!(
                stream = id, node, type_url = %type_url,
                "ADS request for an older response ignored (stale nonce)"
            ),
            Received::UnknownType { type_url } => tracing::debug!(
                stream = id, node, type_url = %type_url,
                "ADS request for a resource type certgate does not serve ignored"
            ),
        }
        self.pending.extend(handled.response);
        Ok(())
    }
}

/// Counts the stream as open for as long as it lives: the gRPC server drops the response
/// stream however it ends (client gone, error, shutdown), and the drop closes it.
struct OpenStream {
    metrics: EdgeMetrics,
    id: u64,
    peer: String,
}

impl OpenStream {
    fn new(metrics: EdgeMetrics, id: u64, peer: String) -> OpenStream {
        metrics.stream_opened();
        OpenStream { metrics, id, peer }
    }
}

impl Drop for OpenStream {
    fn drop(&mut self) {
        self.metrics.stream_closed();
        tracing::debug!(stream = self.id, peer = %self.peer, "xDS stream closed");
    }
}
