//! The webhook entry point: an AdmissionReview in, an AdmissionReview out.
//!
//! The webhook server codes against these names and signatures (issue #4): it hands the
//! body to [`Admission::handle`] and writes back [`Handled::body`], or the [`Rejection`]'s
//! status and message.

pub use crate::handler::{Admission, RESOURCE_UNSET};
pub use crate::inline_pool::{Gauge, InlineReviewPool};
pub use crate::review_pool::{
    HeavyReviewOptions, HeavyReviewStats, PolicyReviewFuture, PolicyReviewJob, PolicyVerdict,
    ReviewPool,
};
/// The budget a [`PolicyReviewJob`] compiles within and its early stop: re-exported so
/// that a [`ReviewPool`] can be written without naming `certgate-approval`.
pub use certgate_approval::{Cancelled, CompileBudget};

/// Largest AdmissionReview body accepted (the API server's own request limit).
pub const MAX_BODY_BYTES: usize = 3 * 1024 * 1024;

/// Which webhook path the API server called.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Endpoint {
    Mutate,
    Validate,
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
    /// `false` when no rule covers the request's resource or operation, so it was allowed
    /// without a review (the server counts and logs these apart).
    pub reviewed: bool,
}

/// A request the webhook cannot even answer with an AdmissionReview: the server
/// replies with this HTTP status and message (never "allowed").
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Rejection {
    pub status: u16,
    pub message: String,
}
