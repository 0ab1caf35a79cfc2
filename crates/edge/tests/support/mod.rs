//! What the xDS end-to-end tests share: the server on 127.0.0.1 (port 0) with its cache and
//! metrics, snapshots written as `name=content` pairs, and [`Envoy`], one xDS stream driven as
//! Envoy drives it (over ADS or a singleton service), with the probe that shows "no response"
//! without timing anything.
#![allow(dead_code)] // each test binary uses its own part

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use certgate_edge::state::Limits;
use certgate_edge::{EdgeMetrics, Snapshot, SnapshotCache, TypeUrl, serve, serve_with_limits};
use envoy_types::pb::envoy::config::core::v3::Node;
use envoy_types::pb::envoy::service::discovery::v3::aggregated_discovery_service_client::AggregatedDiscoveryServiceClient;
use envoy_types::pb::envoy::service::discovery::v3::{DiscoveryRequest, DiscoveryResponse};
use envoy_types::pb::google::protobuf::Any;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tonic::Streaming;
use tonic::transport::Channel;

/// A guard against a hung test, never a measured time: a response the protocol calls for
/// arrives in microseconds on loopback.
pub const HANG_GUARD: Duration = Duration::from_secs(30);
/// How long "before the first snapshot nothing is sent" is watched for (negative check only).
pub const QUIET_WINDOW: Duration = Duration::from_millis(300);

/// A snapshot whose resources are `name=content` pairs; a resource's bytes are its content,
/// so tests read back which resources a response carried.
pub fn snapshot(types: &[(TypeUrl, &[&str])]) -> Snapshot {
    let mut builder = Snapshot::builder();
    for (type_url, resources) in types {
        for resource in *resources {
            let (name, content) = resource.split_once('=').unwrap_or((resource, resource));
            let any = Any { type_url: type_url.as_str().into(), value: content.into() };
            builder.add(*type_url, name, any).unwrap();
        }
    }
    builder.build()
}

pub fn contents(response: &DiscoveryResponse) -> Vec<String> {
    response.resources.iter().map(|r| String::from_utf8_lossy(&r.value).into_owned()).collect()
}

pub struct Server {
    pub address: SocketAddr,
    pub cache: SnapshotCache,
    pub metrics: EdgeMetrics,
    pub stop: Option<oneshot::Sender<()>>,
    pub task: JoinHandle<Result<(), certgate_edge::ServeError>>,
}

pub async fn start(cache: SnapshotCache) -> Server {
    start_with(cache, Limits::default()).await
}

pub async fn start_with(cache: SnapshotCache, limits: Limits) -> Server {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    serve_on(listener, cache, limits)
}

/// A server on a given address, as a restarted one comes back on its port.
pub async fn start_on(address: SocketAddr, cache: SnapshotCache) -> Server {
    let listener = tokio::net::TcpListener::bind(address).await.unwrap();
    serve_on(listener, cache, Limits::default())
}

fn serve_on(listener: tokio::net::TcpListener, cache: SnapshotCache, limits: Limits) -> Server {
    let address = listener.local_addr().unwrap();
    let metrics = EdgeMetrics::default();
    let (stop, stopped) = oneshot::channel::<()>();
    let shutdown = async move {
        let _ = stopped.await;
    };
    let task = if limits == Limits::default() {
        tokio::spawn(serve(listener, cache.clone(), metrics.clone(), shutdown))
    } else {
        tokio::spawn(serve_with_limits(listener, cache.clone(), metrics.clone(), limits, shutdown))
    };
    Server { address, cache, metrics, stop: Some(stop), task }
}

impl Server {
    pub async fn client(&self) -> AggregatedDiscoveryServiceClient<Channel> {
        AggregatedDiscoveryServiceClient::connect(format!("http://{}", self.address)).await.unwrap()
    }

    pub async fn envoy(&self) -> Envoy {
        Envoy::open(self.client().await).await
    }
}

/// One ADS stream, as Envoy holds it.
pub struct Envoy {
    requests: mpsc::UnboundedSender<DiscoveryRequest>,
    pub responses: Streaming<DiscoveryResponse>,
    /// The type the probe subscribes to by name; RDS unless a test sets it.
    pub probe_type: TypeUrl,
    probes: usize,
    probe_nonce: String,
}

pub fn request(type_url: TypeUrl, names: &[&str], version: &str, nonce: &str) -> DiscoveryRequest {
    DiscoveryRequest {
        type_url: type_url.as_str().into(),
        resource_names: names.iter().map(|n| (*n).to_owned()).collect(),
        version_info: version.into(),
        response_nonce: nonce.into(),
        node: Some(Node { id: "envoy-test".into(), ..Node::default() }),
        ..DiscoveryRequest::default()
    }
}

/// The request half of a stream: what is sent on the sender goes out on the stream.
pub fn outgoing() -> (
    mpsc::UnboundedSender<DiscoveryRequest>,
    impl futures_util::Stream<Item = DiscoveryRequest> + Send + 'static,
) {
    let (requests, mut queued) = mpsc::unbounded_channel::<DiscoveryRequest>();
    (requests, futures_util::stream::poll_fn(move |cx| queued.poll_recv(cx)))
}

impl Envoy {
    /// An ADS stream.
    pub async fn open(mut client: AggregatedDiscoveryServiceClient<Channel>) -> Envoy {
        let (requests, outgoing) = outgoing();
        let responses = client.stream_aggregated_resources(outgoing).await.unwrap().into_inner();
        Envoy::new(requests, responses)
    }

    /// A stream opened by the caller on any xDS service with the requests of [`outgoing`].
    pub fn new(
        requests: mpsc::UnboundedSender<DiscoveryRequest>,
        responses: Streaming<DiscoveryResponse>,
    ) -> Envoy {
        Envoy {
            requests,
            responses,
            probe_type: TypeUrl::RouteConfiguration,
            probes: 0,
            probe_nonce: String::new(),
        }
    }

    pub fn send(&self, request: DiscoveryRequest) {
        self.requests.send(request).unwrap();
    }

    pub async fn recv(&mut self) -> DiscoveryResponse {
        tokio::time::timeout(HANG_GUARD, self.responses.message())
            .await
            .expect("a response (hang guard)")
            .expect("a healthy stream")
            .expect("an open stream")
    }

    pub async fn expect(&mut self, type_url: TypeUrl) -> DiscoveryResponse {
        let response = self.recv().await;
        assert_eq!(response.type_url, type_url.as_str(), "response of another type");
        assert!(!response.nonce.is_empty());
        response
    }

    /// Subscribes to `type_url` for the first time on this stream and takes the response.
    pub async fn subscribe(&mut self, type_url: TypeUrl, names: &[&str]) -> DiscoveryResponse {
        self.send(request(type_url, names, "", ""));
        self.expect(type_url).await
    }

    pub fn ack(&self, response: &DiscoveryResponse, names: &[&str]) {
        let type_url = TypeUrl::parse(&response.type_url).unwrap();
        self.send(request(type_url, names, &response.version_info, &response.nonce));
    }

    /// Checks that nothing was sent since the last response, by asking the probe type for a
    /// new name and requiring its answer to come next.
    pub async fn expect_silence(&mut self) {
        self.probes += 1;
        let name = format!("probe-{}", self.probes);
        self.send(request(self.probe_type, &[&name], "", &self.probe_nonce));
        let response = self.recv().await;
        assert_eq!(
            response.type_url,
            self.probe_type.as_str(),
            "expected nothing before the probe's answer, got a {} response",
            response.type_url
        );
        self.probe_nonce = response.nonce;
    }
}

pub fn listeners_and_clusters(cluster_content: &str) -> Snapshot {
    let cluster = format!("c1={cluster_content}");
    snapshot(&[
        (TypeUrl::Listener, &["l1", "l2"]),
        (TypeUrl::Cluster, &[cluster.as_str(), "c2"]),
        (TypeUrl::ClusterLoadAssignment, &["c1=e1", "c2=e2", "c3=e3"]),
        (TypeUrl::Secret, &["s1", "s2"]),
    ])
}

/// The Envoy binary: `CERTGATE_ENVOY`, or the last line `tools/envoy/install` prints.
pub fn envoy_binary() -> PathBuf {
    if let Some(path) = std::env::var_os("CERTGATE_ENVOY").filter(|p| !p.is_empty()) {
        return PathBuf::from(path);
    }
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tools/envoy/install");
    let output = Command::new("bash").arg(script).output().expect("bash runs tools/envoy/install");
    assert!(
        output.status.success(),
        "tools/envoy/install failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    PathBuf::from(String::from_utf8_lossy(&output.stdout).lines().last().unwrap_or("").trim())
}
