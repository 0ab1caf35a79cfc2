//! The controller's plain-HTTP endpoints: `/metrics`, `/healthz` (the process serves) and
//! `/readyz` (started and not shutting down; a standby replica is ready, so rollouts and
//! PodDisruptionBudgets count it).

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use axum::Router;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use certgate_serving::ConnectionPolicy;

use super::metrics::{CONTENT_TYPE, ControllerMetrics};

/// What the endpoints report.
#[derive(Default)]
pub struct Health {
    ready: AtomicBool,
}

impl Health {
    pub fn set_ready(&self, ready: bool) {
        self.ready.store(ready, Ordering::Release);
    }
}

struct Shared {
    health: Arc<Health>,
    metrics: Arc<ControllerMetrics>,
}

/// The endpoints' router.
pub fn router(health: Arc<Health>, metrics: Arc<ControllerMetrics>) -> Router {
    Router::new()
        .route("/healthz", get(|| async { (StatusCode::OK, "ok") }))
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics_text))
        .with_state(Arc::new(Shared { health, metrics }))
}

/// Binds `listen`; the returned future serves until `shutdown` completes, closing slow and
/// idle connections as `connections` says.
pub async fn serve(
    listen: SocketAddr,
    router: Router,
    connections: ConnectionPolicy,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<(SocketAddr, impl Future<Output = std::io::Result<()>>)> {
    let listener = tokio::net::TcpListener::bind(listen).await?;
    let address = listener.local_addr()?;
    Ok((address, async move {
        certgate_serving::serve_plain(listener, router, &connections, shutdown).await
    }))
}

async fn readyz(State(shared): State<Arc<Shared>>) -> Response {
    if shared.health.ready.load(Ordering::Acquire) {
        (StatusCode::OK, "ok").into_response()
    } else {
        (StatusCode::SERVICE_UNAVAILABLE, "not ready: starting or shutting down").into_response()
    }
}

async fn metrics_text(State(shared): State<Arc<Shared>>) -> Response {
    match shared.metrics.encode() {
        Ok(text) => ([(header::CONTENT_TYPE, CONTENT_TYPE)], text).into_response(),
        Err(err) => (StatusCode::INTERNAL_SERVER_ERROR, format!("cannot encode metrics: {err}"))
            .into_response(),
    }
}

#[cfg(test)]
mod tests {
    use axum::body::Body;
    use axum::http::Request;
    use http_body_util::BodyExt as _;
    use tower::ServiceExt as _;

    use super::*;

    async fn get_text(router: &Router, path: &str) -> (StatusCode, String) {
        let response =
            router.clone().oneshot(Request::get(path).body(Body::empty()).unwrap()).await.unwrap();
        let status = response.status();
        let body = response.into_body().collect().await.unwrap().to_bytes();
        (status, String::from_utf8_lossy(&body).into_owned())
    }

    #[tokio::test]
    async fn ready_only_once_started_and_metrics_are_served() {
        let health = Arc::new(Health::default());
        let metrics = Arc::new(ControllerMetrics::default());
        metrics.decision("policy-approver", "denied");
        let router = router(Arc::clone(&health), metrics);
        assert_eq!(get_text(&router, "/healthz").await, (StatusCode::OK, "ok".to_owned()));
        assert_eq!(get_text(&router, "/readyz").await.0, StatusCode::SERVICE_UNAVAILABLE);
        health.set_ready(true);
        assert_eq!(get_text(&router, "/readyz").await, (StatusCode::OK, "ok".to_owned()));
        let (status, text) = get_text(&router, "/metrics").await;
        assert_eq!(status, StatusCode::OK);
        assert!(
            text.contains(
                "certgate_controller_decisions_total{controller=\"policy-approver\",result=\"denied\"} 1"
            ),
            "{text}"
        );
    }
}
