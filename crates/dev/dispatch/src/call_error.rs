//! Failures to get a usable answer from a webhook (upstream's `ErrCallingWebhook` reasons).
//! These are the failures `failurePolicy` decides about; their texts follow upstream's.

/// The reason part of `failed calling webhook "<name>": <reason>`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum CallError {
    /// The HTTP exchange failed: Go's `*url.Error`, `Post "<url>": <cause>`.
    #[error("failed to call webhook: Post {}: {cause}", certgate_gofmt::quote(.url))]
    Transport { url: String, cause: String },
    /// The webhook answered, but not with something client-go could decode (a non-2xx status,
    /// a body that is not an AdmissionReview).
    #[error("failed to call webhook: {0}")]
    Response(String),
    /// The AdmissionReview decoded but fails upstream's checks (uid, kind, patch fields).
    #[error("received invalid webhook response: {0}")]
    InvalidResponse(String),
    /// The client for the webhook could not be built (an unusable caBundle).
    #[error("could not get REST client: {0}")]
    RestClient(String),
    #[error(
        "could not create admission objects: webhook does not accept known AdmissionReview versions (v1, v1beta1)"
    )]
    NoKnownReviewVersion,
    #[error("Webhook SideEffects is nil")]
    SideEffectsNil,
    #[error("received undecodable patch in webhook response: {0}")]
    UndecodablePatch(String),
    #[error("unsupported patch type {}", certgate_gofmt::quote(.0))]
    UnsupportedPatchType(String),
}
