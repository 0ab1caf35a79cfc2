//! The HTTP routes: `/mutate`, `/validate`, `/healthz`, `/readyz`, `/metrics`, and
//! governance-policy-propagator's two validating paths as aliases of `/validate`
//! ([`OCM_POLICY_PATH`], [`OCM_POLICY_SET_PATH`]).

use std::sync::Arc;
use std::time::Instant;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use certgate_admission::review::{Endpoint, Handled, MAX_BODY_BYTES, Rejection};
use certgate_serving::{MetricsText, health_routes};
use http_body_util::{BodyExt, LengthLimitError, Limited};
use tracing::Instrument;

use crate::handler::AdmissionHandler;
use crate::metrics::{Metrics, Outcome};
use crate::registration::{OCM_POLICY_PATH, OCM_POLICY_SET_PATH};

/// `/readyz`'s answer until the server listens with a loaded certificate.
const NOT_READY: &str = "not ready: not serving with a loaded certificate";

/// Whether `/readyz` reports ready: set once the server listens with a loaded certificate,
/// cleared when shutdown begins so load balancers stop sending new requests. The endpoint
/// itself is the one every certgate server shares ([`certgate_serving::health`]).
#[derive(Clone, Debug)]
pub struct Readiness(certgate_serving::Readiness);

impl Default for Readiness {
    fn default() -> Self {
        Readiness(certgate_serving::Readiness::new(NOT_READY))
    }
}

impl Readiness {
    pub fn set(&self, ready: bool) {
        self.0.set(ready);
    }

    pub fn is_ready(&self) -> bool {
        self.0.is_ready()
    }
}

/// What `/metrics` serves: the webhook's registry, with the policy-review pool's gauges
/// read at each scrape.
struct ScrapedMetrics<H> {
    handler: Arc<H>,
    metrics: Arc<Metrics>,
}

impl<H: AdmissionHandler> MetricsText for ScrapedMetrics<H> {
    fn encode(&self) -> Result<String, std::fmt::Error> {
        if let Some(stats) = self.handler.policy_review_stats() {
            self.metrics.observe_policy_reviews(&stats);
        }
        self.metrics.encode()
    }
}

struct Shared<H> {
    handler: Arc<H>,
    metrics: Arc<Metrics>,
}

/// The webhook's routes over `handler`. Requests to other paths get 404, other methods 405.
///
/// Upstream's OCM paths answer exactly as `/validate` does (the rules follow the request's
/// resource, not the path), so a ValidatingWebhookConfiguration written for
/// governance-policy-propagator works unchanged when its Service points at certgate. They are
/// counted and logged under their own path.
pub fn router<H: AdmissionHandler>(
    handler: Arc<H>,
    metrics: Arc<Metrics>,
    readiness: Readiness,
) -> Router {
    let scraped = ScrapedMetrics { handler: Arc::clone(&handler), metrics: Arc::clone(&metrics) };
    let shared = Arc::new(Shared { handler, metrics });
    Router::new()
        .route("/mutate", post(mutate::<H>))
        .route("/validate", post(validate::<H>))
        .route(OCM_POLICY_PATH, post(validate_ocm_policy::<H>))
        .route(OCM_POLICY_SET_PATH, post(validate_ocm_policy_set::<H>))
        .with_state(shared)
        .merge(health_routes(readiness.0, Arc::new(scraped)))
}

async fn mutate<H: AdmissionHandler>(
    State(shared): State<Arc<Shared<H>>>,
    request: Request,
) -> Response {
    admit(&shared, Endpoint::Mutate, "/mutate", request).await
}

async fn validate<H: AdmissionHandler>(
    State(shared): State<Arc<Shared<H>>>,
    request: Request,
) -> Response {
    admit(&shared, Endpoint::Validate, "/validate", request).await
}

async fn validate_ocm_policy<H: AdmissionHandler>(
    State(shared): State<Arc<Shared<H>>>,
    request: Request,
) -> Response {
    admit(&shared, Endpoint::Validate, OCM_POLICY_PATH, request).await
}

async fn validate_ocm_policy_set<H: AdmissionHandler>(
    State(shared): State<Arc<Shared<H>>>,
    request: Request,
) -> Response {
    admit(&shared, Endpoint::Validate, OCM_POLICY_SET_PATH, request).await
}

/// Answers one admission request, then counts and logs it. The log line carries the
/// request's resource, operation and outcome only: never the object, user or tokens.
async fn admit<H: AdmissionHandler>(
    shared: &Shared<H>,
    endpoint: Endpoint,
    path: &'static str,
    request: Request,
) -> Response {
    let span = tracing::info_span!("admission", path);
    async move {
        let started = Instant::now();
        let result = match read_body(request).await {
            Ok(body) => shared.handler.handle(endpoint, &body).await,
            Err(rejection) => Err(rejection),
        };
        let elapsed = started.elapsed();
        let micros = u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX);
        match result {
            Ok(handled) => {
                let outcome = match (handled.reviewed, handled.allowed) {
                    (false, _) => Outcome::Unreviewed,
                    (true, true) => Outcome::Allowed,
                    (true, false) => Outcome::Denied,
                };
                shared.metrics.record(
                    path,
                    &handled.resource,
                    &handled.operation,
                    outcome,
                    elapsed,
                );
                if handled.reviewed {
                    tracing::info!(
                        resource = %handled.resource,
                        operation = %handled.operation,
                        result = outcome.as_str(),
                        duration_us = micros,
                        "answered admission request"
                    );
                } else {
                    // Upstream's configurations send every cert-manager.io resource: these
                    // are routine, so they are counted always and logged only at debug.
                    tracing::debug!(
                        resource = %handled.resource,
                        operation = %handled.operation,
                        result = outcome.as_str(),
                        duration_us = micros,
                        "allowed admission request without review: no certgate rule covers it"
                    );
                }
                review_response(handled)
            }
            Err(rejection) => {
                let status = status_of(&rejection);
                shared.metrics.record(path, "", "", Outcome::Rejected, elapsed);
                tracing::warn!(
                    result = Outcome::Rejected.as_str(),
                    status = status.as_u16(),
                    reason = %rejection.message,
                    duration_us = micros,
                    "rejected admission request"
                );
                plain(status, rejection.message)
            }
        }
    }
    .instrument(span)
    .await
}

/// Reads at most [`MAX_BODY_BYTES`]; a larger body (announced or actual) is a 413.
async fn read_body(request: Request) -> Result<Bytes, Rejection> {
    let too_large = || Rejection {
        status: StatusCode::PAYLOAD_TOO_LARGE.as_u16(),
        message: format!("the request body exceeds the limit of {MAX_BODY_BYTES} bytes"),
    };
    let announced = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if announced.is_some_and(|len| len > MAX_BODY_BYTES as u64) {
        return Err(too_large());
    }
    match Limited::new(request.into_body(), MAX_BODY_BYTES).collect().await {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(err) if err.downcast_ref::<LengthLimitError>().is_some() => Err(too_large()),
        Err(err) => Err(Rejection {
            status: StatusCode::BAD_REQUEST.as_u16(),
            message: format!("cannot read the request body: {err}"),
        }),
    }
}

/// A status outside 400..=599 would let a handler bug look like success: answer 500.
fn status_of(rejection: &Rejection) -> StatusCode {
    StatusCode::from_u16(rejection.status)
        .ok()
        .filter(|s| s.is_client_error() || s.is_server_error())
        .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
}

fn review_response(handled: Handled) -> Response {
    let mut response = Response::new(Body::from(handled.body));
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

fn plain(status: StatusCode, message: String) -> Response {
    (status, [(header::CONTENT_TYPE, "text/plain; charset=utf-8")], message).into_response()
}
