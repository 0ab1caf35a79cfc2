//! ADS end to end over gRPC: the xDS server on 127.0.0.1 (port 0) and envoy-types' generated
//! tonic client playing Envoy's part of the state-of-the-world protocol.
//!
//! No assertion is about time. "No response" is shown with a probe: the client sends a
//! request of another type that must be answered, and the next response on the stream has to
//! be the probe's (responses on one stream are ordered, and the server handles requests in
//! order, so anything the earlier request caused would have come first). Only where nothing at
//! all may be answered (before the first snapshot) is a bounded wait used, as a negative check.

mod support;

use std::time::Duration;

use certgate_edge::state::Limits;
use certgate_edge::{SnapshotCache, TypeUrl};
use envoy_types::pb::google::rpc::Status;
use support::{
    HANG_GUARD, QUIET_WINDOW, contents, listeners_and_clusters, request, snapshot, start,
    start_with,
};

#[tokio::test]
async fn wildcard_lds_and_cds_get_everything_and_an_ack_gets_nothing_until_a_change() {
    let cache = SnapshotCache::new();
    cache.set(listeners_and_clusters("one"));
    let server = start(cache).await;
    let mut envoy = server.envoy().await;

    let lds = envoy.subscribe(TypeUrl::Listener, &[]).await;
    assert_eq!(contents(&lds), ["l1", "l2"]);
    let current = server.cache.current().unwrap();
    assert_eq!(lds.version_info, current.version(TypeUrl::Listener));
    let cds = envoy.subscribe(TypeUrl::Cluster, &[]).await;
    assert_eq!(contents(&cds), ["one", "c2"]);
    assert_eq!(cds.version_info, current.version(TypeUrl::Cluster));
    assert_ne!(lds.nonce, cds.nonce);

    envoy.ack(&lds, &[]);
    envoy.ack(&cds, &[]);
    envoy.expect_silence().await;
    assert_eq!(server.metrics.acks(TypeUrl::Listener), 1);
    assert_eq!(server.metrics.acks(TypeUrl::Cluster), 1);

    // Publishing the same content wakes nobody; changing clusters pushes CDS only.
    assert!(!server.cache.set(listeners_and_clusters("one")));
    assert!(server.cache.set(listeners_and_clusters("two")));
    let pushed = envoy.expect(TypeUrl::Cluster).await;
    assert_eq!(contents(&pushed), ["two", "c2"]);
    assert_ne!(pushed.version_info, cds.version_info);
    assert_ne!(pushed.nonce, cds.nonce);
    envoy.ack(&pushed, &[]);
    envoy.expect_silence().await;
    assert_eq!(server.metrics.responses(TypeUrl::Listener), 1);
    assert_eq!(server.metrics.responses(TypeUrl::Cluster), 2);
    assert_eq!(server.metrics.streams(), 1);
}

#[tokio::test]
async fn named_eds_and_sds_get_only_their_names_and_a_new_name_set_is_resent() {
    let cache = SnapshotCache::new();
    cache.set(listeners_and_clusters("one"));
    let server = start(cache).await;
    let mut envoy = server.envoy().await;

    let eds = envoy.subscribe(TypeUrl::ClusterLoadAssignment, &["c1", "nowhere"]).await;
    assert_eq!(contents(&eds), ["e1"]);
    let sds = envoy.subscribe(TypeUrl::Secret, &["s2"]).await;
    assert_eq!(contents(&sds), ["s2"]);

    envoy.ack(&eds, &["c1", "c3"]);
    let resent = envoy.expect(TypeUrl::ClusterLoadAssignment).await;
    assert_eq!(contents(&resent), ["e1", "e3"]);
    assert_eq!(resent.version_info, eds.version_info, "same snapshot, other names");
    envoy.ack(&resent, &["c3", "c1"]);
    envoy.ack(&sds, &["s2"]);
    envoy.expect_silence().await;
}

#[tokio::test]
async fn a_nack_is_counted_and_nothing_is_resent_until_the_snapshot_changes() {
    let cache = SnapshotCache::new();
    cache.set(listeners_and_clusters("bad"));
    let server = start(cache).await;
    let mut envoy = server.envoy().await;

    let cds = envoy.subscribe(TypeUrl::Cluster, &[]).await;
    let mut nack = request(TypeUrl::Cluster, &[], "", &cds.nonce);
    nack.error_detail = Some(Status {
        code: 3,
        message: "cluster c1: invalid connect_timeout".into(),
        details: vec![],
    });
    envoy.send(nack);
    envoy.expect_silence().await;
    assert_eq!(server.metrics.nacks(TypeUrl::Cluster), 1);
    assert_eq!(server.metrics.acks(TypeUrl::Cluster), 0);
    assert_eq!(server.metrics.responses(TypeUrl::Cluster), 1);

    server.cache.set(listeners_and_clusters("fixed"));
    let fixed = envoy.expect(TypeUrl::Cluster).await;
    assert_eq!(contents(&fixed), ["fixed", "c2"]);
    assert_ne!(fixed.version_info, cds.version_info);
}

#[tokio::test]
async fn a_request_with_a_stale_nonce_is_ignored() {
    let cache = SnapshotCache::new();
    cache.set(listeners_and_clusters("one"));
    let server = start(cache).await;
    let mut envoy = server.envoy().await;

    let first = envoy.subscribe(TypeUrl::ClusterLoadAssignment, &["c1"]).await;
    // Only the endpoints of c1 change.
    server.cache.set(snapshot(&[
        (TypeUrl::Listener, &["l1", "l2"]),
        (TypeUrl::Cluster, &["c1=one", "c2"]),
        (TypeUrl::ClusterLoadAssignment, &["c1=e1-new", "c2=e2", "c3=e3"]),
        (TypeUrl::Secret, &["s1", "s2"]),
    ]));
    let second = envoy.expect(TypeUrl::ClusterLoadAssignment).await;
    assert_eq!(contents(&second), ["e1-new"]);

    // Envoy answers the first response after the second was sent, with a new name: stale.
    envoy.ack(&first, &["c1", "c2"]);
    envoy.expect_silence().await;
    // Its answer to the newest response carries the names again, and they are served.
    envoy.ack(&second, &["c1", "c2"]);
    let names = envoy.expect(TypeUrl::ClusterLoadAssignment).await;
    assert_eq!(contents(&names), ["e1-new", "e2"]);
}

#[tokio::test]
async fn a_reconnect_with_the_current_version_resumes_and_an_older_one_is_updated() {
    let cache = SnapshotCache::new();
    cache.set(listeners_and_clusters("one"));
    let server = start(cache).await;

    let mut envoy = server.envoy().await;
    let cds = envoy.subscribe(TypeUrl::Cluster, &[]).await;
    envoy.ack(&cds, &[]);
    envoy.expect_silence().await;
    drop(envoy);

    // A new stream stating the current version (and no nonce, as Envoy sends after a
    // reconnect) is not sent the clusters again.
    let mut envoy = server.envoy().await;
    envoy.send(request(TypeUrl::Cluster, &[], &cds.version_info, ""));
    envoy.expect_silence().await;
    // It is sent the next change.
    server.cache.set(listeners_and_clusters("two"));
    let pushed = envoy.expect(TypeUrl::Cluster).await;
    assert_eq!(contents(&pushed), ["two", "c2"]);

    // A stream stating an older version gets the current one.
    let mut older = server.envoy().await;
    older.send(request(TypeUrl::Cluster, &[], &cds.version_info, ""));
    let current = older.expect(TypeUrl::Cluster).await;
    assert_eq!(current.version_info, pushed.version_info);
    assert_eq!(contents(&current), ["two", "c2"]);
}

#[tokio::test]
async fn an_unknown_type_url_gets_nothing() {
    let cache = SnapshotCache::new();
    cache.set(listeners_and_clusters("one"));
    let server = start(cache).await;
    let mut envoy = server.envoy().await;
    let mut unknown = request(TypeUrl::Cluster, &[], "", "");
    unknown.type_url = "type.googleapis.com/envoy.config.core.v3.TypedExtensionConfig".into();
    envoy.send(unknown);
    envoy.expect_silence().await;
}

#[tokio::test]
async fn nothing_is_served_before_the_first_snapshot() {
    let server = start(SnapshotCache::new()).await;
    let mut envoy = server.envoy().await;
    envoy.send(request(TypeUrl::Listener, &[], "", ""));
    envoy.send(request(TypeUrl::Cluster, &[], "", ""));
    // Negative check only: nothing may arrive while no snapshot is published.
    let early = tokio::time::timeout(QUIET_WINDOW, envoy.responses.message()).await;
    assert!(early.is_err(), "a response before the first snapshot");

    server.cache.set(listeners_and_clusters("one"));
    // Pushed in make-before-break order: clusters before listeners.
    let cds = envoy.expect(TypeUrl::Cluster).await;
    assert_eq!(contents(&cds), ["one", "c2"]);
    let lds = envoy.expect(TypeUrl::Listener).await;
    assert_eq!(contents(&lds), ["l1", "l2"]);
}

#[tokio::test]
async fn a_request_over_the_limits_ends_the_stream_with_invalid_argument() {
    let cache = SnapshotCache::new();
    cache.set(listeners_and_clusters("one"));
    let limits = Limits { max_resource_names: 2, ..Limits::default() };
    let server = start_with(cache, limits).await;
    let mut envoy = server.envoy().await;
    envoy.send(request(TypeUrl::ClusterLoadAssignment, &["a", "b", "c"], "", ""));
    let status = tokio::time::timeout(HANG_GUARD, envoy.responses.message())
        .await
        .expect("hang guard")
        .expect_err("the stream ends with an error");
    assert_eq!(status.code(), tonic::Code::InvalidArgument);
    assert_eq!(status.message(), "the request names 3 resources, more than the 2 accepted");
}

#[tokio::test]
async fn shutdown_ends_open_streams_and_the_server() {
    let cache = SnapshotCache::new();
    cache.set(listeners_and_clusters("one"));
    let mut server = start(cache).await;
    let mut envoy = server.envoy().await;
    envoy.subscribe(TypeUrl::Cluster, &[]).await;
    assert_eq!(server.metrics.streams(), 1);

    server.stop.take().unwrap().send(()).unwrap();
    let end =
        tokio::time::timeout(HANG_GUARD, envoy.responses.message()).await.expect("hang guard");
    assert!(matches!(end, Ok(None)), "the stream finishes cleanly");
    let served = tokio::time::timeout(HANG_GUARD, server.task).await.expect("hang guard");
    served.unwrap().unwrap();
    assert_eq!(server.metrics.streams(), 0);
}

#[tokio::test]
async fn a_client_going_away_closes_its_stream() {
    let cache = SnapshotCache::new();
    cache.set(listeners_and_clusters("one"));
    let server = start(cache).await;
    let mut envoy = server.envoy().await;
    envoy.subscribe(TypeUrl::Listener, &[]).await;
    assert_eq!(server.metrics.streams(), 1);
    drop(envoy);
    // The server notices when the connection's stream is reset; wait for it (the hang guard
    // bounds the wait, nothing is measured).
    tokio::time::timeout(HANG_GUARD, async {
        while server.metrics.streams() != 0 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the stream is closed (hang guard)");
}
