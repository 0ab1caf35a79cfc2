//! The health and metrics endpoints every certgate server exposes, in one place: `/healthz`
//! (the process serves), `/readyz` (the server says it is ready; each says why not) and
//! `/metrics` (OpenMetrics text from whatever registry the server keeps, completed with the
//! `process_*` families and `certgate_build_info`, see [`crate::exposition`]).
//!
//! The webhook merges these routes beside `/mutate` and `/validate` and serves them alone
//! on its plain-HTTP metrics port; the controller, `certgate edge serve` and `certgate dev`
//! serve them alone on theirs ([`crate::serve_plain`]).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use axum::Router;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

/// The OpenMetrics content type of `/metrics` (prometheus-client's text encoding).
pub const METRICS_CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// What `/metrics` serves: the text exposition of a registry, encoded on each scrape.
pub trait MetricsText: Send + Sync + 'static {
    fn encode(&self) -> Result<String, std::fmt::Error>;
}

/// Whether `/readyz` reports ready, and what it says when not. Cloning shares the flag.
#[derive(Clone, Debug)]
pub struct Readiness {
    ready: Arc<AtomicBool>,
    not_ready: &'static str,
}

impl Readiness {
    /// Not ready until [`Readiness::set`]; `not_ready` is `/readyz`'s body meanwhile.
    pub fn new(not_ready: &'static str) -> Self {
        Readiness { ready: Arc::new(AtomicBool::new(false)), not_ready }
    }

    pub fn set(&self, ready: bool) {
        self.ready.store(ready, Ordering::Release);
    }

    pub fn is_ready(&self) -> bool {
        self.ready.load(Ordering::Acquire)
    }
}

struct Shared<M: ?Sized> {
    readiness: Readiness,
    metrics: Arc<M>,
}

/// `/healthz`, `/readyz` and `/metrics` over `readiness` and `metrics`.
pub fn health_routes<M: MetricsText + ?Sized>(readiness: Readiness, metrics: Arc<M>) -> Router {
    Router::new()
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz::<M>))
        .route("/metrics", get(metrics_text::<M>))
        .with_state(Arc::new(Shared { readiness, metrics }))
}

fn plain(status: StatusCode, message: String) -> Response {
    (status, [(header::CONTENT_TYPE, "text/plain; charset=utf-8")], message).into_response()
}

async fn healthz() -> Response {
    plain(StatusCode::OK, "ok".to_owned())
}

async fn readyz<M: MetricsText + ?Sized>(State(shared): State<Arc<Shared<M>>>) -> Response {
    if shared.readiness.is_ready() {
        plain(StatusCode::OK, "ok".to_owned())
    } else {
        plain(StatusCode::SERVICE_UNAVAILABLE, shared.readiness.not_ready.to_owned())
    }
}

async fn metrics_text<M: MetricsText + ?Sized>(State(shared): State<Arc<Shared<M>>>) -> Response {
    match shared.metrics.encode() {
        Ok(text) => {
            let text = crate::exposition::complete(&text);
            (StatusCode::OK, [(header::CONTENT_TYPE, METRICS_CONTENT_TYPE)], text).into_response()
        }
        Err(err) => {
            plain(StatusCode::INTERNAL_SERVER_ERROR, format!("cannot encode metrics: {err}"))
        }
    }
}

#[cfg(test)]
mod tests {
    use axum::body::Body;
    use axum::http::Request;
    use http_body_util::BodyExt as _;
    use tower::ServiceExt as _;

    use super::*;

    struct Fixed(Result<&'static str, std::fmt::Error>);

    impl MetricsText for Fixed {
        fn encode(&self) -> Result<String, std::fmt::Error> {
            self.0.map(str::to_owned)
        }
    }

    async fn get(router: &Router, path: &str) -> (StatusCode, Option<String>, String) {
        let response =
            router.clone().oneshot(Request::get(path).body(Body::empty()).unwrap()).await.unwrap();
        let status = response.status();
        let content_type =
            response.headers().get(header::CONTENT_TYPE).map(|v| v.to_str().unwrap().to_owned());
        let body = response.into_body().collect().await.unwrap().to_bytes();
        (status, content_type, String::from_utf8_lossy(&body).into_owned())
    }

    #[tokio::test]
    async fn ready_only_when_set_with_the_servers_own_reason() {
        let readiness = Readiness::new("not ready: starting");
        let router = health_routes(readiness.clone(), Arc::new(Fixed(Ok("x 1\n"))));
        let text = Some("text/plain; charset=utf-8".to_owned());
        assert_eq!(get(&router, "/healthz").await, (StatusCode::OK, text.clone(), "ok".into()));
        assert_eq!(
            get(&router, "/readyz").await,
            (StatusCode::SERVICE_UNAVAILABLE, text.clone(), "not ready: starting".into())
        );
        readiness.set(true);
        assert_eq!(get(&router, "/readyz").await, (StatusCode::OK, text.clone(), "ok".into()));
        readiness.set(false);
        assert_eq!(get(&router, "/readyz").await.0, StatusCode::SERVICE_UNAVAILABLE);
    }

    #[tokio::test]
    async fn metrics_are_encoded_on_each_scrape_and_failures_said() {
        let router = health_routes(
            Readiness::new("no"),
            Arc::new(Fixed(Ok("# TYPE x gauge\nx 1\n# EOF\n"))),
        );
        let (status, content_type, body) = get(&router, "/metrics").await;
        assert_eq!((status, content_type), (StatusCode::OK, Some(METRICS_CONTENT_TYPE.to_owned())));
        // The server's families first, then those every server adds, one end marker last.
        assert!(body.starts_with("# TYPE x gauge\nx 1\n# HELP "), "{body}");
        assert!(body.ends_with("} 1\n# EOF\n"), "{body}");
        assert_eq!(body.matches("# EOF").count(), 1, "{body}");
        assert!(body.contains("\ncertgate_build_info{version=\"v"), "{body}");
        if cfg!(target_os = "linux") {
            assert!(body.contains("\nprocess_resident_memory_bytes "), "{body}");
            assert!(body.contains("\nprocess_cpu_seconds_total "), "{body}");
        }
        let failing = health_routes(Readiness::new("no"), Arc::new(Fixed(Err(std::fmt::Error))));
        let (status, _, body) = get(&failing, "/metrics").await;
        assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR);
        assert_eq!(body, "cannot encode metrics: an error occurred when formatting an argument");
    }
}
