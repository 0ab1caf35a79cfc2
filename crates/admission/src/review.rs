//! The webhook entry point: an AdmissionReview in, an AdmissionReview out.
//!
//! The webhook server codes against these names and signatures (issue #4): it hands the
//! body to [`Admission::handle`] and writes back [`Handled::body`], or the [`Rejection`]'s
//! status and message.

use std::future::Future;

use certgate_rbac::{AccessDecision, AccessReview, AuthorizerError};

pub use crate::handler::{Admission, RESOURCE_UNSET};
pub use crate::offload::{HeavyReviewOptions, HeavyReviewStats};

/// Largest AdmissionReview body accepted (the API server's own request limit).
pub const MAX_BODY_BYTES: usize = 3 * 1024 * 1024;

/// Which webhook path the API server called.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Endpoint {
    Mutate,
    Validate,
}

/// Asks whether a user may do something (in a cluster: a SubjectAccessReview).
pub trait AccessChecker: Send + Sync {
    fn check(
        &self,
        review: &AccessReview,
    ) -> impl Future<Output = Result<AccessDecision, AuthorizerError>> + Send;
}

/// How API discovery names an issuer kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResolvedKind {
    /// The resource plural, e.g. `issuers`.
    pub plural: String,
    pub namespaced: bool,
}

/// Why discovery could not answer (any such error denies the request).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct DiscoveryError {
    pub message: String,
}

/// Resolves an issuer `group`/`kind` to its resource through API discovery.
pub trait KindResolver: Send + Sync {
    /// `Ok(None)` when the group or kind does not exist.
    fn resolve(
        &self,
        group: &str,
        kind: &str,
    ) -> impl Future<Output = Result<Option<ResolvedKind>, DiscoveryError>> + Send;
}

/// Answers every cluster question with an error, so a request that needs one (the signer
/// permission check) is denied: for running without an API server, and for benchmarks.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoCluster;

/// The error [`NoCluster`] answers with.
pub const NO_CLUSTER: &str = "no cluster connection configured: certgate cannot ask the API server";

impl AccessChecker for NoCluster {
    async fn check(&self, _review: &AccessReview) -> Result<AccessDecision, AuthorizerError> {
        Err(AuthorizerError(NO_CLUSTER.to_owned()))
    }
}

impl KindResolver for NoCluster {
    async fn resolve(
        &self,
        _group: &str,
        _kind: &str,
    ) -> Result<Option<ResolvedKind>, DiscoveryError> {
        Err(DiscoveryError { message: NO_CLUSTER.to_owned() })
    }
}

/// What the server needs besides the response body: for logs and metrics.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Handled {
    /// The AdmissionReview response, serialized.
    pub body: Vec<u8>,
    /// `group/version/resource[/subresource]` of the request, e.g.
    /// `cert-manager.io/v1/certificaterequests/status`.
    pub resource: String,
    /// `CREATE`, `UPDATE`, ...
    pub operation: String,
    pub allowed: bool,
}

/// A request the webhook cannot even answer with an AdmissionReview: the server
/// replies with this HTTP status and message (never "allowed").
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Rejection {
    pub status: u16,
    pub message: String,
}
