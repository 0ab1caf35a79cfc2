//! Policy reviews that compile a lot of CEL do not hold up other requests, stop when
//! their client is gone, and queue within bounds (issue #16).
//!
//! The worst-case review is a CertificateRequestPolicy at the limits of
//! `certgate_approval` (rules of 32 KiB of `1==0||1==1||...`, the probe of the issue).
//! Every wait below is bounded: a regression fails the test instead of hanging it.

use std::io::Write;
use std::net::TcpStream;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use certgate_admission::review::{Admission, HeavyReviewOptions, HeavyReviewStats};
use certgate_cel::{MAX_RULE_BYTES, PolicyCel};
use certgate_rbac::NoCluster;
use certgate_webhook::{BoundedReviewPool, Metrics, Readiness, router};
use http::{Method, Request, StatusCode, header};
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tower::ServiceExt;

type Production = Admission<NoCluster, NoCluster>;

/// Longest any step may take before the test fails rather than hangs.
const PATIENCE: Duration = Duration::from_secs(120);

fn admission(options: HeavyReviewOptions) -> Arc<Production> {
    let cel = Arc::new(PolicyCel::default());
    let pool = Arc::new(BoundedReviewPool::new(options));
    Arc::new(Admission::new(cel, NoCluster, NoCluster).with_review_pool(pool))
}

fn app(admission: &Arc<Production>) -> Router {
    router(Arc::clone(admission), Arc::new(Metrics::default()), Readiness::default())
}

/// A policy of `rules` rules of 32 KiB each, distinct so that none comes from the cache.
fn worst_case_policy_review(rules: usize, tag: &str) -> Vec<u8> {
    let validations: Vec<Value> = (0..rules)
        .map(|i| {
            let head = format!("'{tag}{i}'!=''");
            let mut rule = head.clone();
            while rule.len() + 6 <= MAX_RULE_BYTES {
                rule.push_str(if rule.len() % 4 == 0 { "||1==0" } else { "||1==1" });
            }
            json!({"rule": rule})
        })
        .collect();
    let policy = json!({
        "apiVersion": "policy.cert-manager.io/v1alpha1",
        "kind": "CertificateRequestPolicy",
        "metadata": {"name": format!("worst-{tag}")},
        "spec": {"selector": {"issuerRef": {}}, "allowed": {"dnsNames": {"validations": validations}}}
    });
    let kind = json!({"group": "policy.cert-manager.io", "version": "v1alpha1", "kind": "CertificateRequestPolicy"});
    let resource = json!({"group": "policy.cert-manager.io", "version": "v1alpha1", "resource": "certificaterequestpolicies"});
    review(kind, resource, policy)
}

/// An ordinary `/mutate` review of a CertificateRequest.
fn mutate_review() -> Vec<u8> {
    let cr = json!({
        "apiVersion": "cert-manager.io/v1",
        "kind": "CertificateRequest",
        "metadata": {"name": "my-cr", "namespace": "my-ns"},
        "spec": {"request": "", "issuerRef": {"name": "ca"}}
    });
    let kind = json!({"group": "cert-manager.io", "version": "v1", "kind": "CertificateRequest"});
    let resource =
        json!({"group": "cert-manager.io", "version": "v1", "resource": "certificaterequests"});
    review(kind, resource, cr)
}

fn review(kind: Value, resource: Value, object: Value) -> Vec<u8> {
    let review = json!({
        "kind": "AdmissionReview",
        "apiVersion": "admission.k8s.io/v1",
        "request": {
            "uid": "705ab4f5-6393-11e8-b7cc-42010a800002",
            "kind": kind,
            "resource": resource,
            "requestKind": kind,
            "requestResource": resource,
            "namespace": "my-ns",
            "operation": "CREATE",
            "userInfo": {"username": "alice", "groups": ["system:authenticated"]},
            "object": object,
            "dryRun": false
        }
    });
    serde_json::to_vec(&review).unwrap()
}

async fn post(app: Router, path: &str, body: Vec<u8>) -> (StatusCode, String) {
    let request = Request::builder()
        .method(Method::POST)
        .uri(path)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(body))
        .unwrap();
    let response = app.oneshot(request).await.unwrap();
    let status = response.status();
    let body = response.into_body().collect().await.unwrap().to_bytes();
    (status, String::from_utf8(body.to_vec()).unwrap())
}

/// Waits until `stats` of `admission` satisfy `done`, failing the test after [`PATIENCE`].
async fn wait_for(admission: &Production, what: &str, done: impl Fn(HeavyReviewStats) -> bool) {
    let waited = tokio::time::timeout(PATIENCE, async {
        while !done(admission.heavy_review_stats()) {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    })
    .await;
    assert!(waited.is_ok(), "{what}: still {:?}", admission.heavy_review_stats());
}

fn options(running: usize, waiting: usize) -> HeavyReviewOptions {
    // A time budget the worst case cannot reach, so the reviews run to their end.
    HeavyReviewOptions { running, waiting, compile_time: Duration::from_secs(600) }
}

/// The probe of issue #16: on a single-threaded runtime, a policy review compiling on
/// the async worker would answer before a `/mutate` sent while it runs. Off the runtime,
/// the `/mutate` answer comes first.
#[tokio::test(flavor = "current_thread")]
async fn a_mutate_review_is_answered_while_a_worst_case_policy_review_runs() {
    let admission = admission(options(1, 1));
    let heavy = tokio::spawn(post(app(&admission), "/validate", worst_case_policy_review(4, "a")));
    // Compiling on this (only) worker thread, the review would finish before this wait
    // could see it running: then the ordering check below fails.
    let waited = tokio::time::timeout(PATIENCE, async {
        while admission.heavy_review_stats().running == 0 && !heavy.is_finished() {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    })
    .await;
    assert!(waited.is_ok(), "the policy review did not start");

    let (status, body) = post(app(&admission), "/mutate", mutate_review()).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(body.contains("\"uid\":\"705ab4f5-6393-11e8-b7cc-42010a800002\""), "{body}");
    // Ordering, not timing: the policy review has not answered yet.
    assert!(!heavy.is_finished(), "the policy review answered before /mutate");
    assert_eq!(admission.heavy_review_stats().completed, 0);

    let (status, body) = tokio::time::timeout(PATIENCE, heavy).await.unwrap().unwrap();
    assert_eq!(status, StatusCode::OK);
    assert!(body.contains("\"allowed\":true"), "{}", &body[..body.len().min(300)]);
    assert_eq!(admission.heavy_review_stats().completed, 1);
}

/// A client that disconnects while its policy review compiles stops the review before
/// its next rule: it is counted as cancelled, never as completed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_client_stops_its_policy_review() {
    let admission = admission(options(1, 1));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let server = tokio::spawn(axum::serve(listener, app(&admission)).into_future());

    let body = worst_case_policy_review(8, "b");
    let client = std::thread::spawn(move || {
        let mut stream = TcpStream::connect(address).unwrap();
        let head = format!(
            "POST /validate HTTP/1.1\r\nhost: webhook\r\ncontent-type: application/json\r\n\
             content-length: {}\r\n\r\n",
            body.len()
        );
        stream.write_all(head.as_bytes()).unwrap();
        stream.write_all(&body).unwrap();
        stream
    });
    let stream = tokio::task::spawn_blocking(move || client.join().unwrap()).await.unwrap();
    wait_for(&admission, "the policy review starts", |s| s.running == 1).await;
    drop(stream);

    wait_for(&admission, "the policy review stops", |s| s.cancelled == 1 && s.running == 0).await;
    assert_eq!(admission.heavy_review_stats().completed, 0);
    server.abort();
}

/// Beyond the reviews running and waiting, one more is refused at once with 429.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn policy_reviews_beyond_the_queue_are_refused_with_429() {
    let admission = admission(options(1, 0));
    let first = tokio::spawn(post(app(&admission), "/validate", worst_case_policy_review(2, "c")));
    wait_for(&admission, "the first policy review starts", |s| s.running == 1).await;

    let (status, body) = post(app(&admission), "/validate", worst_case_policy_review(1, "d")).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(
        body,
        "too many CertificateRequestPolicy reviews in progress (1 compiling, 0 waiting); \
         retry later"
    );
    assert_eq!(admission.heavy_review_stats().refused, 1);
    // Operators see it on /metrics, with the review still compiling.
    let scrape = Request::builder().uri("/metrics").body(Body::empty()).unwrap();
    let metrics = app(&admission).oneshot(scrape).await.unwrap().into_body();
    let metrics = String::from_utf8(metrics.collect().await.unwrap().to_bytes().to_vec()).unwrap();
    for line in [
        "certgate_webhook_policy_reviews_total{result=\"refused\"} 1\n",
        "certgate_webhook_policy_reviews_running 1\n",
    ] {
        assert!(metrics.contains(line), "{line} missing in {metrics}");
    }

    let (status, _) = tokio::time::timeout(PATIENCE, first).await.unwrap().unwrap();
    assert_eq!(status, StatusCode::OK);
    // The queue is free again.
    let small = worst_case_policy_review(0, "e");
    assert_eq!(post(app(&admission), "/validate", small).await.0, StatusCode::OK);
}

/// Dropping a review that waits for its turn gives up its place: it never runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_review_dropped_while_waiting_never_runs() {
    let admission = admission(options(1, 1));
    let first = tokio::spawn(post(app(&admission), "/validate", worst_case_policy_review(2, "f")));
    wait_for(&admission, "the first policy review starts", |s| s.running == 1).await;
    let second = tokio::spawn(post(app(&admission), "/validate", worst_case_policy_review(1, "g")));
    wait_for(&admission, "the second policy review waits", |s| s.waiting == 1).await;
    second.abort();
    wait_for(&admission, "the second policy review leaves the queue", |s| s.waiting == 0).await;

    tokio::time::timeout(PATIENCE, first).await.unwrap().unwrap();
    let stats = admission.heavy_review_stats();
    assert_eq!((stats.completed, stats.cancelled, stats.running), (1, 0, 0));
}
