//! The gRPC face of ADS: envoy-types' generated `AggregatedDiscoveryService`, each stream a
//! pure state machine ([`StreamState`] for state of the world, [`DeltaStreamState`] for delta)
//! driven by the client's requests, the snapshot cache and the shutdown signal.
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
//! Delta xDS is served on ADS (`DeltaAggregatedResources`); the singleton services' delta
//! methods answer `UNIMPLEMENTED`.

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
use crate::delta::DeltaStreamState;
use crate::metrics::EdgeMetrics;
use crate::snapshot::{Snapshot, TypeUrl};
use crate::state::{Limits, Received, RequestError, StreamState, loggable};

/// The responses of one ADS (or singleton xDS) stream.
pub type ResponseStream = Pin<Box<dyn Stream<Item = Result<DiscoveryResponse, Status>> + Send>>;

/// The responses of one delta ADS stream.
pub type DeltaResponseStream =
    Pin<Box<dyn Stream<Item = Result<DeltaDiscoveryResponse, Status>> + Send>>;

/// What the stream driver needs of a protocol's state machine: state of the world and delta
/// differ in their messages and rules, not in how a stream is driven.
trait Protocol: Send + 'static {
    type Request: Send + 'static;
    type Response: Send + 'static;
    fn request(
        &mut self,
        request: Self::Request,
        snapshot: Option<&Snapshot>,
    ) -> Result<(Received, Option<Self::Response>), RequestError>;
    fn publish(&mut self, snapshot: &Snapshot) -> Vec<Self::Response>;
    fn node(&self) -> &str;
    /// Type URL, version, nonce and resource count of a response, for logs and metrics.
    fn describe(response: &Self::Response) -> (&str, &str, &str, usize);
}

impl Protocol for StreamState {
    type Request = DiscoveryRequest;
    type Response = DiscoveryResponse;
    fn request(
        &mut self,
        request: DiscoveryRequest,
        snapshot: Option<&Snapshot>,
    ) -> Result<(Received, Option<DiscoveryResponse>), RequestError> {
        self.on_request(request, snapshot).map(|handled| (handled.received, handled.response))
    }
    fn publish(&mut self, snapshot: &Snapshot) -> Vec<DiscoveryResponse> {
        self.on_snapshot(snapshot)
    }
    fn node(&self) -> &str {
        self.node_id()
    }
    fn describe(response: &DiscoveryResponse) -> (&str, &str, &str, usize) {
        (&response.type_url, &response.version_info, &response.nonce, response.resources.len())
    }
}

impl Protocol for DeltaStreamState {
    type Request = DeltaDiscoveryRequest;
    type Response = DeltaDiscoveryResponse;
    fn request(
        &mut self,
        request: DeltaDiscoveryRequest,
        snapshot: Option<&Snapshot>,
    ) -> Result<(Received, Option<DeltaDiscoveryResponse>), RequestError> {
        self.on_request(request, snapshot).map(|handled| (handled.received, handled.response))
    }
    fn publish(&mut self, snapshot: &Snapshot) -> Vec<DeltaDiscoveryResponse> {
        self.on_snapshot(snapshot)
    }
    fn node(&self) -> &str {
        self.node_id()
    }
    fn describe(response: &DeltaDiscoveryResponse) -> (&str, &str, &str, usize) {
        let (type_url, version) = (&response.type_url, &response.system_version_info);
        (
            type_url,
            version,
            &response.nonce,
            response.resources.len() + response.removed_resources.len(),
        )
    }
}

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

    /// The response stream for a stream of state-of-the-world requests (the gRPC method minus
    /// tonic's wrapping). `only` restricts a singleton service's stream to its type: an empty
    /// type URL means the service's (it is implicit there), and another type is ignored.
    pub(crate) fn open<R>(
        &self,
        requests: R,
        peer: Option<SocketAddr>,
        only: Option<TypeUrl>,
    ) -> ResponseStream
    where
        R: Stream<Item = Result<DiscoveryRequest, Status>> + Send + Unpin + 'static,
    {
        let Some(only) = only else {
            return self.drive(requests, peer, "ADS", StreamState::new);
        };
        let logged_len = self.limits.max_logged_len;
        let requests = requests.filter_map(move |request| {
            futures_util::future::ready(match request {
                Ok(mut request) if request.type_url.is_empty() => {
                    only.as_str().clone_into(&mut request.type_url);
                    Some(Ok(request))
                }
                Ok(request) if request.type_url != only.as_str() => {
                    tracing::debug!(
                        service = only.short_name(),
                        type_url = %loggable(&request.type_url, logged_len),
                        "request for another resource type on a singleton xDS stream ignored"
                    );
                    None
                }
                other => Some(other),
            })
        });
        self.drive(requests, peer, only.short_name(), StreamState::new)
    }

    /// One stream of `P`'s protocol over `requests`.
    fn drive<R, P>(
        &self,
        requests: R,
        peer: Option<SocketAddr>,
        service: &'static str,
        protocol: fn(u64, Limits) -> P,
    ) -> Pin<Box<dyn Stream<Item = Result<P::Response, Status>> + Send>>
    where
        P: Protocol,
        R: Stream<Item = Result<P::Request, Status>> + Send + Unpin + 'static,
    {
        let id = self.streams.fetch_add(1, Ordering::Relaxed) + 1;
        let peer = peer.map_or_else(String::new, |peer| peer.to_string());
        tracing::debug!(stream = id, peer = %peer, service, "xDS stream opened");
        let driver = Driver {
            requests,
            snapshots: self.cache.subscribe(),
            shutdown: self.shutdown.clone(),
            state: protocol(id, self.limits),
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

    type DeltaAggregatedResourcesStream = DeltaResponseStream;

    async fn delta_aggregated_resources(
        &self,
        request: Request<Streaming<DeltaDiscoveryRequest>>,
    ) -> Result<Response<DeltaResponseStream>, Status> {
        let peer = request.remote_addr();
        Ok(Response::new(self.drive(
            request.into_inner(),
            peer,
            "delta ADS",
            DeltaStreamState::new,
        )))
    }
}

/// One stream's state between polls.
struct Driver<R, P: Protocol> {
    requests: R,
    snapshots: watch::Receiver<Option<Arc<Snapshot>>>,
    shutdown: watch::Receiver<bool>,
    state: P,
    pending: VecDeque<P::Response>,
    open: OpenStream,
    finished: bool,
}

impl<R, P> Driver<R, P>
where
    P: Protocol,
    R: Stream<Item = Result<P::Request, Status>> + Send + Unpin + 'static,
{
    /// The next item of the response stream, or `None` when the stream ends.
    async fn next(mut self) -> Option<(Result<P::Response, Status>, Self)> {
        loop {
            if let Some(response) = self.pending.pop_front() {
                let (type_url, version, nonce, resources) = P::describe(&response);
                if let Some(type_url) = TypeUrl::parse(type_url) {
                    self.open.metrics.response_sent(type_url);
                }
                tracing::debug!(
                    stream = self.open.id,
                    node = self.state.node(),
                    type_url,
                    version,
                    nonce,
                    resources,
                    "xDS response sent"
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
                        self.pending.extend(self.state.publish(&snapshot));
                    }
                }
                request = self.requests.next() => match request {
                    None => return None,
                    Some(Err(status)) => {
                        tracing::debug!(
                            stream = self.open.id,
                            node = self.state.node(),
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
    fn handle(&mut self, request: P::Request) -> Result<(), Status> {
        // Clone the `Arc` out so the channel is not locked while the request is handled.
        let snapshot = self.snapshots.borrow().clone();
        let (received, response) = match self.state.request(request, snapshot.as_deref()) {
            Ok(handled) => handled,
            Err(error) => {
                tracing::warn!(
                    stream = self.open.id,
                    node = self.state.node(),
                    peer = %self.open.peer,
                    error = %error,
                    "xDS request refused; ending the stream"
                );
                return Err(Status::invalid_argument(error.to_string()));
            }
        };
        let (id, node) = (self.open.id, self.state.node());
        match &received {
            Received::Subscribe { type_url, version } => tracing::debug!(
                stream = id, node, type_url = %type_url, version = %version,
                "xDS subscription"
            ),
            Received::Ack { type_url, version } => {
                self.open.metrics.acked(*type_url);
                tracing::debug!(stream = id, node, type_url = %type_url, version = %version, "xDS ACK");
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
                "xDS request answering an older response (stale nonce)"
            ),
            Received::UnknownType { type_url } => tracing::debug!(
                stream = id, node, type_url = %type_url,
                "xDS request for a resource type certgate does not serve ignored"
            ),
        }
        self.pending.extend(response);
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
