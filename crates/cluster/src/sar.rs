//! [`AccessChecker`] through `authorization.k8s.io/v1` SubjectAccessReviews, with a short
//! allow/deny cache and a retry of transient failures like the API server's delegating
//! authorizer.

use std::collections::BTreeMap;
use std::num::NonZeroUsize;
use std::sync::Arc;
use std::time::Duration;

use certgate_rbac::{
    AccessChecker, AccessDecision, AccessReview, AuthorizerError, CheckFuture, ResourceAttributes,
};
use k8s_openapi::api::authorization::v1 as authz;
use kube::api::{Api, PostParams};

use crate::api_error::describe;
use crate::backoff::{Backoff, DEFAULT_SAR_BACKOFF, random_fraction};
use crate::ttl_cache::TtlCache;
use certgate_clock::{Clock, SystemClock};

/// How long answers are reused by default: the delegating authorizer's allow and deny TTL.
pub const DEFAULT_SAR_TTL: Duration = Duration::from_secs(1);

/// How many distinct reviews are remembered by default.
pub const DEFAULT_SAR_CACHE_ENTRIES: NonZeroUsize = NonZeroUsize::new(10_000).unwrap();

/// Asks the API server whether a user may do something, one SubjectAccessReview per
/// question not answered from the cache.
///
/// Allow and deny answers are cached for the TTL given to [`SarAccessChecker::new`], keyed
/// by the whole review (user, uid, groups, extra and every resource attribute). Failures are
/// never cached, so the next request asks again. Concurrent misses for the same review
/// each send a request: the cache bounds load over time, not per instant.
///
/// A request that fails for a transient reason (a reset connection, HTTP 429, 500 or 504, or
/// a `retryAfterSeconds` hint; see `docs/cluster.md`) is sent again on the
/// [`Backoff`] schedule, [`DEFAULT_SAR_BACKOFF`] unless [`SarAccessChecker::with_backoff`]
/// says otherwise; any other failure is final at once.
pub struct SarAccessChecker {
    api: Api<authz::SubjectAccessReview>,
    ttl: Duration,
    cache: TtlCache<ReviewKey, AccessDecision>,
    backoff: Backoff,
}

impl SarAccessChecker {
    /// A checker using `client` whose answers are reused for `ttl` (zero disables caching)
    /// and whose transient failures are retried on [`DEFAULT_SAR_BACKOFF`].
    pub fn new(client: kube::Client, ttl: Duration) -> Self {
        SarAccessChecker {
            api: Api::all(client),
            ttl,
            cache: TtlCache::new(DEFAULT_SAR_CACHE_ENTRIES, Arc::new(SystemClock)),
            backoff: DEFAULT_SAR_BACKOFF,
        }
    }

    /// Retries transient failures on `backoff` instead; one step disables retries.
    pub fn with_backoff(mut self, backoff: Backoff) -> Self {
        self.backoff = backoff;
        self
    }

    /// Replaces the cache with an empty one of at most `entries` reviews read against
    /// `clock`; least recently used reviews are evicted first.
    pub fn with_cache(mut self, entries: NonZeroUsize, clock: Arc<dyn Clock>) -> Self {
        self.cache = TtlCache::new(entries, clock);
        self
    }

    /// Forgets every cached answer, also those of reviews in flight: called when RBAC
    /// objects changed, so the next question is asked again.
    pub fn forget(&self) {
        self.cache.clear();
    }

    async fn ask(&self, review: &AccessReview) -> Result<AccessDecision, SarFailure> {
        let created = self.create(review).await?;
        let status = created
            .status
            .ok_or_else(|| SarFailure::NoStatus { question: Question::of(review) })?;
        let denied = status.denied.unwrap_or(false);
        if status.allowed && denied {
            return Err(SarFailure::Contradictory { question: Question::of(review) });
        }
        Ok(AccessDecision {
            allowed: status.allowed,
            reason: reason(status.reason, status.evaluation_error, status.allowed, denied),
        })
    }

    /// Sends the review, again after a wait while the failure is transient and attempts
    /// remain; the error names the last failure and how many attempts were made.
    async fn create(
        &self,
        review: &AccessReview,
    ) -> Result<authz::SubjectAccessReview, SarFailure> {
        let body = to_subject_access_review(review);
        let mut attempt = 1;
        loop {
            match self.api.create(&PostParams::default(), &body).await {
                Ok(created) => return Ok(created),
                Err(err) if attempt < self.backoff.steps.get() && is_transient(&err) => {
                    tokio::time::sleep(self.backoff.delay(attempt, random_fraction())).await;
                    attempt += 1;
                }
                Err(err) => {
                    return Err(SarFailure::Request {
                        question: Question::of(review),
                        cause: describe(&err),
                        attempts: Attempts(attempt),
                    });
                }
            }
        }
    }
}

/// Whether a failed request may succeed if sent again, by the rules client-go's webhook
/// clients (and so the delegating authorizer) retry on:
///
/// - the connection was reset (an I/O `ConnectionReset` anywhere in the error's causes);
/// - the API server answered `TooManyRequests` (reason, or HTTP 429 whatever the reason);
/// - it answered `InternalError` or `Timeout`, or HTTP 500 or 504 with a reason that is not
///   one of the API's known reasons (a proxy's or an unparsable answer);
/// - it answered with `details.retryAfterSeconds` > 0, or `ServerTimeout` with any details.
///
/// Everything else is final: other HTTP answers (400, 401, 403, 404, ...), other transport
/// failures (refused connections, TLS, timeouts on our side) and undecodable bodies.
/// Upstream also retries Go's HTTP/2 "client connection lost" error, which has no single
/// counterpart in hyper; a lost connection that surfaces as a reset is covered above.
fn is_transient(err: &kube::Error) -> bool {
    use kube::core::response::reason;

    let kube::Error::Api(status) = err else {
        return connection_reset(err);
    };
    let unknown_reason = !reason::is_known(&status.reason);
    let suggests_delay = status.details.as_ref().is_some_and(|details| {
        details.retry_after_seconds > 0 || status.reason == reason::SERVER_TIMEOUT
    });
    status.reason == reason::TOO_MANY_REQUESTS
        || status.code == 429
        || status.reason == reason::INTERNAL_ERROR
        || status.reason == reason::TIMEOUT
        || (unknown_reason && (status.code == 500 || status.code == 504))
        || suggests_delay
}

/// How deep [`connection_reset`] looks; real chains (kube, hyper-util, hyper, io) are
/// four or five causes long.
const MAX_CAUSES: usize = 16;

/// Whether an I/O reset is among the error's causes, however the client layers wrapped it.
fn connection_reset(err: &kube::Error) -> bool {
    let first: &(dyn std::error::Error + 'static) = err;
    std::iter::successors(Some(first), |cause| cause.source()).take(MAX_CAUSES).any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::ConnectionReset)
    })
}

impl AccessChecker for SarAccessChecker {
    fn check<'a>(&'a self, review: &'a AccessReview) -> CheckFuture<'a> {
        Box::pin(self.check_cached(review))
    }

    /// [`SarAccessChecker::forget`]: the cache is dropped when RBAC objects change.
    fn forget(&self) {
        SarAccessChecker::forget(self);
    }
}

impl SarAccessChecker {
    /// The cached answer, or the API server's (cached when it answered).
    async fn check_cached(&self, review: &AccessReview) -> Result<AccessDecision, AuthorizerError> {
        let key = ReviewKey::of(review);
        if let Some(decision) = self.cache.get(&key) {
            return Ok(decision);
        }
        let generation = self.cache.generation();
        let decision = self.ask(review).await.map_err(|err| AuthorizerError(err.to_string()))?;
        self.cache.insert_if_current(generation, key, decision.clone(), self.ttl);
        Ok(decision)
    }
}

/// The API server's reason, plus the evaluation error it hit (an authorizer that failed
/// while others had no opinion), so a denial can be explained from the logs.
fn reason(
    reason: Option<String>,
    evaluation_error: Option<String>,
    allowed: bool,
    denied: bool,
) -> String {
    let reason = reason.unwrap_or_default();
    match evaluation_error.filter(|e| !e.is_empty()) {
        Some(error) if reason.is_empty() => format!("evaluation error: {error}"),
        Some(error) => format!("{reason}; evaluation error: {error}"),
        None if !reason.is_empty() || allowed => reason,
        None if denied => "denied by the API server's authorizers".to_owned(),
        None => "no authorizer allowed it".to_owned(),
    }
}

/// Empty strings mean "unset" in [`AccessReview`]; on the wire they are omitted, as the
/// Go client omits empty `omitempty` fields.
fn to_subject_access_review(review: &AccessReview) -> authz::SubjectAccessReview {
    let user = &review.user;
    let attrs = &review.resource;
    authz::SubjectAccessReview {
        spec: authz::SubjectAccessReviewSpec {
            user: set(&user.username),
            uid: set(&user.uid),
            groups: (!user.groups.is_empty()).then(|| user.groups.clone()),
            extra: (!user.extra.is_empty()).then(|| user.extra.clone()),
            resource_attributes: Some(authz::ResourceAttributes {
                namespace: set(&attrs.namespace),
                verb: set(&attrs.verb),
                group: set(&attrs.group),
                version: set(&attrs.version),
                resource: set(&attrs.resource),
                subresource: set(&attrs.subresource),
                name: set(&attrs.name),
                ..Default::default()
            }),
            non_resource_attributes: None,
        },
        ..Default::default()
    }
}

fn set(value: &str) -> Option<String> {
    (!value.is_empty()).then(|| value.to_owned())
}

/// The whole review as a hashable key: `AccessReview` itself does not implement `Hash`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct ReviewKey {
    username: String,
    uid: String,
    groups: Vec<String>,
    extra: BTreeMap<String, Vec<String>>,
    resource: ResourceAttributes,
}

impl ReviewKey {
    fn of(review: &AccessReview) -> Self {
        ReviewKey {
            username: review.user.username.clone(),
            uid: review.user.uid.clone(),
            groups: review.user.groups.clone(),
            extra: review.user.extra.clone(),
            resource: review.resource.clone(),
        }
    }
}

/// The question, worded for error messages: who wanted to do what to which object.
#[derive(Debug)]
struct Question(String);

impl Question {
    fn of(review: &AccessReview) -> Self {
        let a = &review.resource;
        let mut text = format!("user {:?} {} {}", review.user.username, a.verb, a.resource);
        if !a.subresource.is_empty() {
            text.push('/');
            text.push_str(&a.subresource);
        }
        text.push_str(&format!(" {:?} in API group {:?}", a.name, a.group));
        if !a.namespace.is_empty() {
            text.push_str(&format!(" in namespace {:?}", a.namespace));
        }
        Question(text)
    }
}

impl std::fmt::Display for Question {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

#[derive(Debug, thiserror::Error)]
enum SarFailure {
    #[error(
        "SubjectAccessReview ({question}) failed: {cause}{attempts}; denying. Check that the API server is \
         reachable and that certgate's ServiceAccount may create \
         subjectaccessreviews.authorization.k8s.io"
    )]
    Request { question: Question, cause: String, attempts: Attempts },
    #[error(
        "SubjectAccessReview ({question}) came back without a status; denying. The API server \
         or a proxy in front of it answered with something that is not a SubjectAccessReview"
    )]
    NoStatus { question: Question },
    #[error(
        "SubjectAccessReview ({question}) came back both allowed and denied; denying. Check the \
         cluster's authorization webhooks"
    )]
    Contradictory { question: Question },
}

/// How many times a failed review was sent, worded only when it was retried so a
/// single failure reads as before.
#[derive(Debug)]
struct Attempts(u32);

impl std::fmt::Display for Attempts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            0 | 1 => Ok(()),
            n => write!(f, " (after {n} attempts)"),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io;

    use kube::core::Status;
    use kube::core::response::StatusDetails;

    use super::*;

    fn api(code: u16, reason: &str) -> kube::Error {
        kube::Error::Api(Status::failure("the server said no", reason).with_code(code).boxed())
    }

    fn retry_after(code: u16, reason: &str, seconds: u32) -> kube::Error {
        let details = StatusDetails {
            name: String::new(),
            group: String::new(),
            kind: String::new(),
            uid: String::new(),
            causes: Vec::new(),
            retry_after_seconds: seconds,
        };
        kube::Error::Api(
            Status::failure("come back later", reason)
                .with_code(code)
                .with_details(details)
                .boxed(),
        )
    }

    /// A client layer that wraps the failure below it, as hyper-util and hyper do.
    #[derive(Debug, thiserror::Error)]
    #[error("client layer failed")]
    struct Layer<E: std::error::Error + 'static>(#[source] E);

    fn transport(kind: io::ErrorKind) -> kube::Error {
        kube::Error::Service(Box::new(io::Error::new(kind, "socket trouble")))
    }

    #[test]
    fn overload_and_server_faults_are_transient() {
        for (code, reason) in [
            (429, "TooManyRequests"),
            (429, ""),
            (429, "Forbidden"),
            (503, "TooManyRequests"),
            (500, "InternalError"),
            (500, ""),
            (500, "Failed to parse error data"),
            (504, "Timeout"),
            (504, ""),
            (0, "Timeout"),
        ] {
            assert!(is_transient(&api(code, reason)), "HTTP {code} {reason:?} must be retried");
        }
    }

    #[test]
    fn client_faults_and_known_non_retry_reasons_are_final() {
        for (code, reason) in [
            (400, "BadRequest"),
            (401, "Unauthorized"),
            (403, "Forbidden"),
            (404, "NotFound"),
            (409, "AlreadyExists"),
            (422, "Invalid"),
            (503, "ServiceUnavailable"),
            (503, ""),
            (500, "Forbidden"),
            (504, "BadRequest"),
            (500, "ServerTimeout"),
        ] {
            assert!(
                !is_transient(&api(code, reason)),
                "HTTP {code} {reason:?} must not be retried"
            );
        }
    }

    #[test]
    fn a_retry_after_hint_makes_any_answer_transient() {
        assert!(is_transient(&retry_after(503, "ServiceUnavailable", 1)));
        assert!(is_transient(&retry_after(403, "Forbidden", 3)));
        assert!(!is_transient(&retry_after(503, "ServiceUnavailable", 0)));
        // ServerTimeout asks for a delay by itself once it carries details.
        assert!(is_transient(&retry_after(500, "ServerTimeout", 0)));
    }

    #[test]
    fn only_reset_connections_are_transient_transport_failures() {
        assert!(is_transient(&transport(io::ErrorKind::ConnectionReset)));
        // The reset is found however deep the client layers wrapped it.
        let wrapped = Layer(Layer(io::Error::from(io::ErrorKind::ConnectionReset)));
        assert!(is_transient(&kube::Error::Service(Box::new(wrapped))));
        for kind in [
            io::ErrorKind::ConnectionRefused,
            io::ErrorKind::TimedOut,
            io::ErrorKind::UnexpectedEof,
            io::ErrorKind::Other,
        ] {
            assert!(!is_transient(&transport(kind)), "{kind:?} must not be retried");
        }
    }

    #[test]
    fn undecodable_answers_are_final() {
        let decode = serde_json::from_str::<serde_json::Value>("{").map(|_| ());
        let err = decode.map_err(kube::Error::SerdeError).err();
        assert!(err.is_some_and(|err| !is_transient(&err)));
    }

    #[test]
    fn retried_failures_say_how_often_they_were_tried() {
        assert_eq!(Attempts(1).to_string(), "");
        assert_eq!(Attempts(2).to_string(), " (after 2 attempts)");
    }
}
