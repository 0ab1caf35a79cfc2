//! The HTTP routes: `/mutate`, `/validate`, `/healthz`, `/readyz`, `/metrics`, and
//! governance-policy-propagator's two validating paths as aliases of `/validate`
//! ([`OCM_POLICY_PATH`], [`OCM_POLICY_SET_PATH`]).

use std::borrow::Cow;
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

/// What the webhook's `/metrics` serves, before the families every server adds: its
/// registry, with the policy-review gauges of `handler` read at each scrape.
pub(crate) fn scraped_metrics<H: AdmissionHandler>(
    handler: Arc<H>,
    metrics: Arc<Metrics>,
) -> Arc<dyn MetricsText> {
    Arc::new(ScrapedMetrics { handler, metrics })
}

/// `/healthz`, `/readyz` and `/metrics` alone, for the plain-HTTP metrics port: the same
/// answers as on the HTTPS port.
pub(crate) fn health_router(scraped: Arc<dyn MetricsText>, readiness: Readiness) -> Router {
    health_routes(readiness.0, scraped)
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

/// Answers one admission request, then counts and logs it. The log line names the request
/// (its `uid`, the object's kind, namespace and name, the operation) and the decision (allowed,
/// and a denial's reason, code and message, as `denial`: `message` is the line's own): never
/// the object, the requester or tokens.
async fn admit<H: AdmissionHandler>(
    shared: &Shared<H>,
    endpoint: Endpoint,
    path: &'static str,
    request: Request,
) -> Response {
    let span = tracing::info_span!("admission", path);
    async move {
        let started = Instant::now();
        let (result, body) = match read_body(request).await {
            Ok(body) => (shared.handler.handle(endpoint, &body).await, Some(body)),
            Err(rejection) => (Err(rejection), None),
        };
        // Read only for a line that is written: the body is parsed a second time.
        let names = |level| match &body {
            Some(body) if tracing::level_enabled!(level) => RequestNames::of(body),
            _ => RequestNames::default(),
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
                    let names = names(tracing::Level::INFO);
                    let decision = Decision::of(&handled.body);
                    tracing::info!(
                        uid = %names.uid,
                        kind = %names.kind,
                        namespace = %names.namespace,
                        name = %names.name,
                        resource = %handled.resource,
                        operation = %handled.operation,
                        allowed = handled.allowed,
                        result = outcome.as_str(),
                        reason = %decision.reason,
                        code = decision.code,
                        denial = %decision.message,
                        duration_us = micros,
                        "answered admission request"
                    );
                } else {
                    // Upstream's configurations send every cert-manager.io resource: these
                    // are routine, so they are counted always and logged only at debug.
                    let names = names(tracing::Level::DEBUG);
                    tracing::debug!(
                        uid = %names.uid,
                        kind = %names.kind,
                        namespace = %names.namespace,
                        name = %names.name,
                        resource = %handled.resource,
                        operation = %handled.operation,
                        allowed = handled.allowed,
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
                let names = names(tracing::Level::WARN);
                tracing::warn!(
                    uid = %names.uid,
                    kind = %names.kind,
                    namespace = %names.namespace,
                    name = %names.name,
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

/// What names an AdmissionReview request in the logs, read from its body without keeping
/// anything else of it (the object, its `spec.request`, the user are skipped unread). Empty
/// where the body does not say.
#[derive(Debug, Default, PartialEq, Eq)]
struct RequestNames {
    uid: String,
    kind: String,
    namespace: String,
    /// `request.name`, else the object's `metadata.name`, else its `metadata.generateName`
    /// (a CREATE the API server has not named yet).
    name: String,
}

#[derive(serde::Deserialize)]
struct ReviewHead<'a> {
    #[serde(default, borrow)]
    request: Option<RequestHead<'a>>,
}

#[derive(serde::Deserialize)]
struct RequestHead<'a> {
    #[serde(default, borrow)]
    uid: Cow<'a, str>,
    #[serde(default, borrow)]
    kind: Option<KindHead<'a>>,
    #[serde(default, borrow)]
    namespace: Cow<'a, str>,
    #[serde(default, borrow)]
    name: Cow<'a, str>,
    #[serde(default, borrow)]
    object: Option<ObjectHead<'a>>,
}

#[derive(serde::Deserialize)]
struct KindHead<'a> {
    #[serde(default, borrow)]
    kind: Cow<'a, str>,
}

#[derive(serde::Deserialize)]
struct ObjectHead<'a> {
    #[serde(default, borrow)]
    metadata: Option<MetadataHead<'a>>,
}

#[derive(serde::Deserialize)]
struct MetadataHead<'a> {
    #[serde(default, borrow)]
    name: Cow<'a, str>,
    #[serde(default, borrow, rename = "generateName")]
    generate_name: Cow<'a, str>,
}

impl RequestNames {
    fn of(body: &[u8]) -> RequestNames {
        let Ok(ReviewHead { request: Some(request) }) = serde_json::from_slice(body) else {
            return RequestNames::default();
        };
        let metadata = request.object.and_then(|object| object.metadata);
        let name = [
            Some(request.name),
            metadata.as_ref().map(|m| m.name.clone()),
            metadata.as_ref().map(|m| m.generate_name.clone()),
        ]
        .into_iter()
        .flatten()
        .find(|name| !name.is_empty())
        .unwrap_or_default();
        RequestNames {
            uid: request.uid.into_owned(),
            kind: request.kind.map(|k| k.kind.into_owned()).unwrap_or_default(),
            namespace: request.namespace.into_owned(),
            name: name.into_owned(),
        }
    }
}

/// What the answer decided, for the log: a denial's `status` (reason, code, message). The
/// response's patch and warnings are not read.
#[derive(Debug, Default, PartialEq, Eq)]
struct Decision {
    reason: String,
    code: u16,
    message: String,
}

#[derive(serde::Deserialize)]
struct AnswerHead {
    #[serde(default)]
    response: Option<ResponseHead>,
}

#[derive(serde::Deserialize)]
struct ResponseHead {
    #[serde(default)]
    status: Option<StatusHead>,
}

#[derive(serde::Deserialize)]
struct StatusHead {
    #[serde(default)]
    reason: String,
    #[serde(default)]
    code: u16,
    #[serde(default)]
    message: String,
}

impl Decision {
    fn of(body: &[u8]) -> Decision {
        match serde_json::from_slice(body) {
            Ok(AnswerHead { response: Some(ResponseHead { status: Some(status) }) }) => {
                Decision { reason: status.reason, code: status.code, message: status.message }
            }
            _ => Decision::default(),
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_is_named_by_uid_kind_namespace_and_name_only() {
        let body = br#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{
            "uid":"705ab4f5-6393-11e8-b7cc-42010a800002",
            "kind":{"group":"cert-manager.io","version":"v1","kind":"CertificateRequest"},
            "namespace":"payments","operation":"CREATE",
            "userInfo":{"username":"alice","groups":["team-a"]},
            "object":{"metadata":{"name":"web-1"},"spec":{"request":"LS0tLS1CRUdJTg=="}}}}"#;
        assert_eq!(
            RequestNames::of(body),
            RequestNames {
                uid: "705ab4f5-6393-11e8-b7cc-42010a800002".to_owned(),
                kind: "CertificateRequest".to_owned(),
                namespace: "payments".to_owned(),
                name: "web-1".to_owned(),
            }
        );
    }

    #[test]
    fn the_name_falls_back_to_generate_name_and_bad_bodies_name_nothing() {
        let body =
            br#"{"request":{"uid":"u","name":"","object":{"metadata":{"generateName":"web-"}}}}"#;
        assert_eq!(RequestNames::of(body).name, "web-");
        let body =
            br#"{"request":{"uid":"u","name":"given","object":{"metadata":{"name":"other"}}}}"#;
        assert_eq!(RequestNames::of(body).name, "given");
        assert_eq!(RequestNames::of(b"not json"), RequestNames::default());
        assert_eq!(RequestNames::of(br#"{"request":{"uid":7}}"#), RequestNames::default());
    }

    #[test]
    fn a_denial_gives_its_status_and_an_allowance_nothing() {
        let denied = br#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{
            "uid":"u","allowed":false,
            "status":{"metadata":{},"status":"Failure","message":"no","reason":"Forbidden","code":403}}}"#;
        assert_eq!(
            Decision::of(denied),
            Decision { reason: "Forbidden".to_owned(), code: 403, message: "no".to_owned() }
        );
        let allowed =
            br#"{"response":{"uid":"u","allowed":true,"patchType":"JSONPatch","patch":"W10="}}"#;
        assert_eq!(Decision::of(allowed), Decision::default());
    }
}
