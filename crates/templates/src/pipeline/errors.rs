//! Why a template could not be resolved, with the text upstream writes into the
//! `policy.open-cluster-management.io/hub-templates-error` annotation (§4.1).

/// What kind of failure, for the caller's retry decision (§4 step 6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResolveErrorKind {
    /// Syntax, NotFound, restricted namespace, denied function …: the replica is still
    /// written, carrying the error annotation.
    Permanent,
    /// Forbidden or Unauthorized: written like a permanent error, but the update path
    /// retries later (RBAC grants produce no event).
    Forbidden,
    /// Missing API resource, Internal, ServiceUnavailable, Timeout, TooManyRequests: retry
    /// with back-off and do not write the replica.
    Retryable,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ResolveError {
    /// Upstream's text, e.g. `failed to resolve the template {...}: template: tmpl:3:12:
    /// executing "tmpl" at <fromSecret ...>: error calling fromSecret: ...`.
    pub message: String,
    pub kind: ResolveErrorKind,
}

impl ResolveError {
    pub(crate) fn permanent(message: String) -> Self {
        Self { message, kind: ResolveErrorKind::Permanent }
    }
}
