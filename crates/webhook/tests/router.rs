//! The routes driven in-process, with a scripted handler.

mod support;

use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use certgate_admission::review::MAX_BODY_BYTES;
use certgate_webhook::{Metrics, Readiness, router};
use http::{Method, Request, StatusCode, header};
use http_body_util::BodyExt;
use pretty_assertions::assert_eq;
use support::Scripted;
use tower::ServiceExt;

fn app(ready: bool) -> Router {
    let readiness = Readiness::default();
    readiness.set(ready);
    router(Arc::new(Scripted), Arc::new(Metrics::default()), readiness)
}

struct Answer {
    status: StatusCode,
    content_type: String,
    body: String,
}

async fn send(app: &Router, method: Method, path: &str, body: impl Into<Body>) -> Answer {
    let request = Request::builder()
        .method(method)
        .uri(path)
        .header(header::CONTENT_TYPE, "application/json")
        .body(body.into())
        .unwrap();
    let response = app.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let content_type = response
        .headers()
        .get(header::CONTENT_TYPE)
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    let body = response.into_body().collect().await.unwrap().to_bytes();
    Answer { status, content_type, body: String::from_utf8(body.to_vec()).unwrap() }
}

#[tokio::test]
async fn healthz_answers_ok() {
    let answer = send(&app(false), Method::GET, "/healthz", Body::empty()).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.body, "ok");
}

#[tokio::test]
async fn readyz_follows_readiness() {
    let answer = send(&app(false), Method::GET, "/readyz", Body::empty()).await;
    assert_eq!(answer.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(answer.body, "not ready: not serving with a loaded certificate");
    let answer = send(&app(true), Method::GET, "/readyz", Body::empty()).await;
    assert_eq!((answer.status, answer.body.as_str()), (StatusCode::OK, "ok"));
}

#[tokio::test]
async fn mutate_and_validate_reach_the_handler_with_their_endpoint() {
    let app = app(true);
    let answer = send(&app, Method::POST, "/mutate", "{}").await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.content_type, "application/json");
    assert_eq!(answer.body, "Mutate:2");
    let answer = send(&app, Method::POST, "/validate", "{}").await;
    assert_eq!(answer.body, "Validate:2");
}

/// governance-policy-propagator's paths are `/validate` under upstream's names, so its
/// ValidatingWebhookConfiguration works unchanged; each is counted under its own path.
#[tokio::test]
async fn upstreams_ocm_paths_are_aliases_of_validate() {
    use certgate_webhook::registration::{OCM_POLICY_PATH, OCM_POLICY_SET_PATH};
    let app = app(true);
    for path in [OCM_POLICY_PATH, OCM_POLICY_SET_PATH] {
        let answer = send(&app, Method::POST, path, "{}").await;
        assert_eq!(answer.status, StatusCode::OK, "{path}");
        assert_eq!(answer.content_type, "application/json");
        assert_eq!(answer.body, "Validate:2", "{path}");
        assert_eq!(
            send(&app, Method::GET, path, Body::empty()).await.status,
            StatusCode::METHOD_NOT_ALLOWED
        );
    }
    let metrics = send(&app, Method::GET, "/metrics", Body::empty()).await.body;
    for path in [OCM_POLICY_PATH, OCM_POLICY_SET_PATH] {
        let count =
            format!("certgate_webhook_request_duration_seconds_count{{path=\"{path}\"}} 1\n");
        assert!(metrics.contains(&count), "{metrics}");
    }
    assert_eq!(
        send(&app, Method::POST, "/validate-policy-open-cluster-management-io-v1-policies", "{}")
            .await
            .status,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn a_body_of_exactly_the_limit_is_accepted() {
    let answer = send(&app(true), Method::POST, "/validate", vec![b' '; MAX_BODY_BYTES]).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.body, format!("Validate:{MAX_BODY_BYTES}"));
}

#[tokio::test]
async fn a_body_over_the_limit_is_413() {
    // `send` sets no Content-Length: the limit holds while reading.
    let answer = send(&app(true), Method::POST, "/mutate", vec![b' '; MAX_BODY_BYTES + 1]).await;
    assert_eq!(answer.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(answer.body, "the request body exceeds the limit of 3145728 bytes");
}

#[tokio::test]
async fn an_announced_length_over_the_limit_is_413_before_reading() {
    let request = Request::builder()
        .method(Method::POST)
        .uri("/mutate")
        .header(header::CONTENT_LENGTH, (MAX_BODY_BYTES + 1).to_string())
        .body(Body::from("{}"))
        .unwrap();
    let response = app(true).oneshot(request).await.unwrap();
    assert_eq!(response.status(), StatusCode::PAYLOAD_TOO_LARGE);
}

#[tokio::test]
async fn a_rejection_passes_its_status_and_message_through() {
    let answer = send(&app(true), Method::POST, "/validate", "reject:400").await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    assert_eq!(answer.content_type, "text/plain; charset=utf-8");
    assert_eq!(answer.body, "the AdmissionReview is not valid JSON");
}

#[tokio::test]
async fn a_rejection_with_a_success_status_becomes_500() {
    let answer = send(&app(true), Method::POST, "/validate", "reject:200").await;
    assert_eq!(answer.status, StatusCode::INTERNAL_SERVER_ERROR);
    assert_eq!(answer.body, "the AdmissionReview is not valid JSON");
}

#[tokio::test]
async fn other_methods_are_405_and_other_paths_404() {
    let app = app(true);
    assert_eq!(
        send(&app, Method::GET, "/mutate", Body::empty()).await.status,
        StatusCode::METHOD_NOT_ALLOWED
    );
    assert_eq!(
        send(&app, Method::POST, "/healthz", "{}").await.status,
        StatusCode::METHOD_NOT_ALLOWED
    );
    assert_eq!(send(&app, Method::POST, "/admit", "{}").await.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn metrics_count_requests_by_path_resource_operation_and_result() {
    let app = app(true);
    send(&app, Method::POST, "/mutate", "{}").await;
    send(&app, Method::POST, "/mutate", "{}").await;
    send(&app, Method::POST, "/validate", "deny").await;
    send(&app, Method::POST, "/validate", "reject:422").await;
    send(&app, Method::POST, "/validate", "not covered").await;

    let answer = send(&app, Method::GET, "/metrics", Body::empty()).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.content_type, "application/openmetrics-text; version=1.0.0; charset=utf-8");
    // The series declared at zero from the start are left out here (see the unit tests).
    let mut counters: Vec<&str> = answer
        .body
        .lines()
        .filter(|l| l.starts_with("certgate_webhook_requests_total{") && !l.ends_with(" 0"))
        .collect();
    counters.sort_unstable();
    assert_eq!(
        counters,
        [
            "certgate_webhook_requests_total{path=\"/mutate\",resource=\"cert-manager.io/v1/certificaterequests\",operation=\"CREATE\",result=\"allowed\"} 2",
            "certgate_webhook_requests_total{path=\"/validate\",resource=\"\",operation=\"\",result=\"rejected\"} 1",
            "certgate_webhook_requests_total{path=\"/validate\",resource=\"cert-manager.io/v1/certificaterequests\",operation=\"CREATE\",result=\"denied\"} 1",
            "certgate_webhook_requests_total{path=\"/validate\",resource=\"cert-manager.io/v1/certificaterequests\",operation=\"CREATE\",result=\"unreviewed\"} 1",
        ]
    );
    assert!(
        answer
            .body
            .contains("certgate_webhook_request_duration_seconds_count{path=\"/mutate\"} 2\n"),
        "{}",
        answer.body
    );
    assert!(
        answer
            .body
            .contains("certgate_webhook_request_duration_seconds_count{path=\"/validate\"} 3\n"),
        "{}",
        answer.body
    );
    assert!(answer.body.ends_with("# EOF\n"), "{}", answer.body);
}
