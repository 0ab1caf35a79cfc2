//! Delta ADS end to end over gRPC (`DeltaAggregatedResources`) with envoy-types' tonic client:
//! resources with their versions, only changes and removals afterwards, named subscriptions
//! and unsubscriptions, resume from `initial_resource_versions`, NACKs counted. The rules
//! themselves are unit-tested in `src/delta.rs`.

mod support;

use std::collections::HashMap;

use certgate_edge::{SnapshotCache, TypeUrl};
use envoy_types::pb::envoy::config::core::v3::Node;
use envoy_types::pb::envoy::service::discovery::v3::{
    DeltaDiscoveryRequest, DeltaDiscoveryResponse,
};
use envoy_types::pb::google::rpc::Status;
use support::{HANG_GUARD, Server, listeners_and_clusters, start};
use tokio::sync::mpsc;
use tonic::Streaming;

struct DeltaEnvoy {
    requests: mpsc::UnboundedSender<DeltaDiscoveryRequest>,
    responses: Streaming<DeltaDiscoveryResponse>,
}

impl DeltaEnvoy {
    async fn open(server: &Server) -> DeltaEnvoy {
        let (requests, mut queued) = mpsc::unbounded_channel::<DeltaDiscoveryRequest>();
        let outgoing = futures_util::stream::poll_fn(move |cx| queued.poll_recv(cx));
        let mut client = server.client().await;
        let responses = client.delta_aggregated_resources(outgoing).await.unwrap().into_inner();
        DeltaEnvoy { requests, responses }
    }

    fn send(&self, type_url: TypeUrl, subscribe: &[&str], unsubscribe: &[&str], nonce: &str) {
        self.send_request(DeltaDiscoveryRequest {
            type_url: type_url.as_str().into(),
            resource_names_subscribe: subscribe.iter().map(|n| (*n).to_owned()).collect(),
            resource_names_unsubscribe: unsubscribe.iter().map(|n| (*n).to_owned()).collect(),
            response_nonce: nonce.into(),
            node: Some(Node { id: "envoy-delta".into(), ..Node::default() }),
            ..DeltaDiscoveryRequest::default()
        });
    }

    fn send_request(&self, request: DeltaDiscoveryRequest) {
        self.requests.send(request).unwrap();
    }

    async fn expect(&mut self, type_url: TypeUrl) -> DeltaDiscoveryResponse {
        let response = tokio::time::timeout(HANG_GUARD, self.responses.message())
            .await
            .expect("a response (hang guard)")
            .expect("a healthy stream")
            .expect("an open stream");
        assert_eq!(response.type_url, type_url.as_str(), "response of another type");
        assert!(!response.nonce.is_empty());
        response
    }
}

fn names(response: &DeltaDiscoveryResponse) -> Vec<&str> {
    response.resources.iter().map(|r| r.name.as_str()).collect()
}

#[tokio::test]
async fn delta_sends_resources_then_changes_and_removals() {
    let cache = SnapshotCache::new();
    cache.set(listeners_and_clusters("one"));
    let server = start(cache).await;
    let mut envoy = DeltaEnvoy::open(&server).await;

    envoy.send(TypeUrl::Cluster, &[], &[], "");
    let cds = envoy.expect(TypeUrl::Cluster).await;
    assert_eq!(names(&cds), ["c1", "c2"]);
    let current = server.cache.current().unwrap();
    assert_eq!(cds.resources[0].version, current.resource_version(TypeUrl::Cluster, "c1").unwrap());
    envoy.send(TypeUrl::Cluster, &[], &[], &cds.nonce);

    envoy.send(TypeUrl::ClusterLoadAssignment, &["c1", "c3"], &[], "");
    let eds = envoy.expect(TypeUrl::ClusterLoadAssignment).await;
    assert_eq!(names(&eds), ["c1", "c3"]);
    // Unsubscribing c3 and subscribing c2 sends only c2.
    envoy.send(TypeUrl::ClusterLoadAssignment, &["c2"], &["c3"], &eds.nonce);
    let eds = envoy.expect(TypeUrl::ClusterLoadAssignment).await;
    assert_eq!(names(&eds), ["c2"]);
    envoy.send(TypeUrl::ClusterLoadAssignment, &[], &[], &eds.nonce);

    // Only the changed cluster is pushed; c2 is gone from the next snapshot.
    server.cache.set(support::snapshot(&[
        (TypeUrl::Listener, &["l1", "l2"]),
        (TypeUrl::Cluster, &["c1=two"]),
        (TypeUrl::ClusterLoadAssignment, &["c1=e1", "c2=e2", "c3=e3"]),
        (TypeUrl::Secret, &["s1", "s2"]),
    ]));
    let pushed = envoy.expect(TypeUrl::Cluster).await;
    assert_eq!(names(&pushed), ["c1"]);
    assert_eq!(pushed.removed_resources, ["c2"]);
    assert_eq!(server.metrics.acks(TypeUrl::Cluster), 1);
    assert_eq!(server.metrics.acks(TypeUrl::ClusterLoadAssignment), 2);
}

#[tokio::test]
async fn a_delta_reconnect_states_what_it_holds_and_gets_only_the_rest() {
    let cache = SnapshotCache::new();
    cache.set(listeners_and_clusters("one"));
    let server = start(cache).await;
    let current = server.cache.current().unwrap();
    let mut envoy = DeltaEnvoy::open(&server).await;
    let holds: HashMap<String, String> = [
        ("c1".to_owned(), current.resource_version(TypeUrl::Cluster, "c1").unwrap().to_owned()),
        ("c2".to_owned(), "an older version".to_owned()),
    ]
    .into_iter()
    .collect();
    envoy.send_request(DeltaDiscoveryRequest {
        type_url: TypeUrl::Cluster.as_str().into(),
        initial_resource_versions: holds,
        ..DeltaDiscoveryRequest::default()
    });
    let cds = envoy.expect(TypeUrl::Cluster).await;
    assert_eq!(names(&cds), ["c2"]);
    assert!(cds.removed_resources.is_empty());
}

#[tokio::test]
async fn a_delta_nack_is_counted_and_not_answered() {
    let cache = SnapshotCache::new();
    cache.set(listeners_and_clusters("one"));
    let server = start(cache).await;
    let mut envoy = DeltaEnvoy::open(&server).await;
    envoy.send(TypeUrl::Listener, &[], &[], "");
    let lds = envoy.expect(TypeUrl::Listener).await;
    envoy.send_request(DeltaDiscoveryRequest {
        type_url: TypeUrl::Listener.as_str().into(),
        response_nonce: lds.nonce.clone(),
        error_detail: Some(Status { code: 3, message: "bad listener".into(), details: vec![] }),
        ..DeltaDiscoveryRequest::default()
    });
    // The next response is for the probe, not a resend of the listeners.
    envoy.send(TypeUrl::Secret, &["s1"], &[], "");
    envoy.expect(TypeUrl::Secret).await;
    assert_eq!(server.metrics.nacks(TypeUrl::Listener), 1);
}
