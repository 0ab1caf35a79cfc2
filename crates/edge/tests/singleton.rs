//! The singleton xDS services over gRPC (`StreamClusters`, `StreamEndpoints`, …), which
//! Contour's bootstrap points Envoy at: each stream is the ADS state machine restricted to its
//! type. The protocol itself is covered by `ads.rs`; this checks what differs.

mod support;

use certgate_edge::singleton::{DELTA_UNIMPLEMENTED, FETCH_UNIMPLEMENTED};
use certgate_edge::{SnapshotCache, TypeUrl};
use envoy_types::pb::envoy::service::cluster::v3::cluster_discovery_service_client::ClusterDiscoveryServiceClient;
use envoy_types::pb::envoy::service::discovery::v3::{DeltaDiscoveryRequest, DiscoveryRequest};
use envoy_types::pb::envoy::service::endpoint::v3::endpoint_discovery_service_client::EndpointDiscoveryServiceClient;
use envoy_types::pb::envoy::service::listener::v3::listener_discovery_service_client::ListenerDiscoveryServiceClient;
use envoy_types::pb::envoy::service::route::v3::route_discovery_service_client::RouteDiscoveryServiceClient;
use envoy_types::pb::envoy::service::secret::v3::secret_discovery_service_client::SecretDiscoveryServiceClient;
use support::{Envoy, Server, contents, listeners_and_clusters, outgoing, request, start};

async fn started() -> Server {
    let cache = SnapshotCache::new();
    cache.set(listeners_and_clusters("one"));
    start(cache).await
}

fn url(server: &Server) -> String {
    format!("http://{}", server.address)
}

#[tokio::test]
async fn each_service_serves_its_own_type_with_or_without_a_type_url() {
    let server = started().await;

    let (requests, out) = outgoing();
    let mut client = ClusterDiscoveryServiceClient::connect(url(&server)).await.unwrap();
    let mut cds = Envoy::new(requests, client.stream_clusters(out).await.unwrap().into_inner());
    // The type is implicit on a singleton service: an empty type URL means clusters.
    let mut implicit = request(TypeUrl::Cluster, &[], "", "");
    implicit.type_url.clear();
    cds.send(implicit);
    let clusters = cds.expect(TypeUrl::Cluster).await;
    assert_eq!(contents(&clusters), ["one", "c2"]);
    cds.ack(&clusters, &[]);

    let (requests, out) = outgoing();
    let mut client = ListenerDiscoveryServiceClient::connect(url(&server)).await.unwrap();
    let mut lds = Envoy::new(requests, client.stream_listeners(out).await.unwrap().into_inner());
    assert_eq!(contents(&lds.subscribe(TypeUrl::Listener, &[]).await), ["l1", "l2"]);

    let (requests, out) = outgoing();
    let mut client = EndpointDiscoveryServiceClient::connect(url(&server)).await.unwrap();
    let mut eds = Envoy::new(requests, client.stream_endpoints(out).await.unwrap().into_inner());
    let endpoints = eds.subscribe(TypeUrl::ClusterLoadAssignment, &["c2"]).await;
    assert_eq!(contents(&endpoints), ["e2"]);

    let (requests, out) = outgoing();
    let mut client = SecretDiscoveryServiceClient::connect(url(&server)).await.unwrap();
    let mut sds = Envoy::new(requests, client.stream_secrets(out).await.unwrap().into_inner());
    assert_eq!(contents(&sds.subscribe(TypeUrl::Secret, &["s1"]).await), ["s1"]);

    let (requests, out) = outgoing();
    let mut client = RouteDiscoveryServiceClient::connect(url(&server)).await.unwrap();
    let mut rds = Envoy::new(requests, client.stream_routes(out).await.unwrap().into_inner());
    let routes = rds.subscribe(TypeUrl::RouteConfiguration, &["none"]).await;
    assert!(routes.resources.is_empty());

    // A change of clusters reaches the CDS stream.
    server.cache.set(listeners_and_clusters("two"));
    assert_eq!(contents(&cds.expect(TypeUrl::Cluster).await), ["two", "c2"]);
    assert_eq!(server.metrics.streams(), 5);
}

#[tokio::test]
async fn another_type_on_a_singleton_stream_is_ignored() {
    let server = started().await;
    let (requests, out) = outgoing();
    let mut client = EndpointDiscoveryServiceClient::connect(url(&server)).await.unwrap();
    let mut eds = Envoy::new(requests, client.stream_endpoints(out).await.unwrap().into_inner());
    eds.probe_type = TypeUrl::ClusterLoadAssignment;
    eds.send(request(TypeUrl::Cluster, &[], "", ""));
    // The probe (an EDS subscription) is answered first: the CDS request got nothing.
    eds.expect_silence().await;
}

#[tokio::test]
async fn fetch_and_delta_are_unimplemented() {
    let server = started().await;
    let mut client = ClusterDiscoveryServiceClient::connect(url(&server)).await.unwrap();
    let status = client.fetch_clusters(DiscoveryRequest::default()).await.expect_err("fetch");
    assert_eq!(status.code(), tonic::Code::Unimplemented);
    assert_eq!(status.message(), FETCH_UNIMPLEMENTED);
    let requests = futures_util::stream::iter([DeltaDiscoveryRequest::default()]);
    let status = client.delta_clusters(requests).await.expect_err("delta");
    assert_eq!(status.code(), tonic::Code::Unimplemented);
    assert_eq!(status.message(), DELTA_UNIMPLEMENTED);
}
