//! [`AccessChecker`] through `authorization.k8s.io/v1` SubjectAccessReviews, with a short
//! allow/deny cache like the API server's delegating authorizer.

use std::collections::BTreeMap;
use std::num::NonZeroUsize;
use std::sync::Arc;
use std::time::Duration;

use certgate_admission::review::AccessChecker;
use certgate_rbac::{AccessDecision, AccessReview, AuthorizerError, ResourceAttributes};
use k8s_openapi::api::authorization::v1 as authz;
use kube::api::{Api, PostParams};

use crate::api_error::describe;
use crate::clock::{Clock, SystemClock};
use crate::ttl_cache::TtlCache;

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
pub struct SarAccessChecker {
    api: Api<authz::SubjectAccessReview>,
    ttl: Duration,
    cache: TtlCache<ReviewKey, AccessDecision>,
}

impl SarAccessChecker {
    /// A checker using `client` whose answers are reused for `ttl` (zero disables caching).
    pub fn new(client: kube::Client, ttl: Duration) -> Self {
        SarAccessChecker {
            api: Api::all(client),
            ttl,
            cache: TtlCache::new(DEFAULT_SAR_CACHE_ENTRIES, Arc::new(SystemClock)),
        }
    }

    /// Replaces the cache with an empty one of at most `entries` reviews read against
    /// `clock`; least recently used reviews are evicted first.
    pub fn with_cache(mut self, entries: NonZeroUsize, clock: Arc<dyn Clock>) -> Self {
        self.cache = TtlCache::new(entries, clock);
        self
    }

    async fn ask(&self, review: &AccessReview) -> Result<AccessDecision, SarFailure> {
        let created = self
            .api
            .create(&PostParams::default(), &to_subject_access_review(review))
            .await
            .map_err(|err| SarFailure::Request {
                question: Question::of(review),
                cause: describe(&err),
            })?;
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
}

impl AccessChecker for SarAccessChecker {
    async fn check(&self, review: &AccessReview) -> Result<AccessDecision, AuthorizerError> {
        let key = ReviewKey::of(review);
        if let Some(decision) = self.cache.get(&key) {
            return Ok(decision);
        }
        let decision = self.ask(review).await.map_err(|err| AuthorizerError(err.to_string()))?;
        self.cache.insert(key, decision.clone(), self.ttl);
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
        "SubjectAccessReview ({question}) failed: {cause}; denying. Check that the API server is \
         reachable and that certgate's ServiceAccount may create \
         subjectaccessreviews.authorization.k8s.io"
    )]
    Request { question: Question, cause: String },
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
