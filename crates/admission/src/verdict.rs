//! What the webhook answers to one request, before it is written as an AdmissionResponse.

use crate::patch::JsonPatch;
use crate::review::Rejection;
use crate::wire::{self, AdmissionResponse, Status};

/// Why a request was denied: its rules said no (403, as upstream answers every plugin
/// error), or the review itself could not be evaluated (400).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DenialKind {
    Forbidden,
    /// A rule said no, answered as controller-runtime's `admission.Denied` (the OCM
    /// validators): 403 `Forbidden` without `status` (the API server sets `Failure` itself).
    ValidatorDenied,
    BadRequest,
    /// certgate failed (500): nothing the request did, but nothing to allow either.
    Internal,
}

/// The answer to one admission request.
#[derive(Debug)]
pub(crate) enum Verdict {
    Allowed {
        patch: Option<JsonPatch>,
        warnings: Vec<String>,
    },
    Denied {
        kind: DenialKind,
        message: String,
        warnings: Vec<String>,
    },
    /// No rule covers the request: allowed without a patch and without a review.
    NotCovered,
}

impl Verdict {
    pub(crate) fn allowed() -> Self {
        Verdict::Allowed { patch: None, warnings: Vec::new() }
    }

    pub(crate) fn forbidden(message: impl Into<String>) -> Self {
        Verdict::Denied {
            kind: DenialKind::Forbidden,
            message: message.into(),
            warnings: Vec::new(),
        }
    }

    /// A denial by an OCM check, shaped as controller-runtime's validator denial.
    pub(crate) fn validator_denied(message: impl Into<String>) -> Self {
        Verdict::Denied {
            kind: DenialKind::ValidatorDenied,
            message: message.into(),
            warnings: Vec::new(),
        }
    }

    pub(crate) fn bad_request(message: impl Into<String>) -> Self {
        Verdict::Denied {
            kind: DenialKind::BadRequest,
            message: message.into(),
            warnings: Vec::new(),
        }
    }

    pub(crate) fn internal(message: impl Into<String>) -> Self {
        Verdict::Denied {
            kind: DenialKind::Internal,
            message: message.into(),
            warnings: Vec::new(),
        }
    }

    pub(crate) fn not_covered() -> Self {
        Verdict::NotCovered
    }

    pub(crate) fn is_allowed(&self) -> bool {
        matches!(self, Verdict::Allowed { .. } | Verdict::NotCovered)
    }

    /// Whether any rule looked at the request.
    pub(crate) fn is_reviewed(&self) -> bool {
        !matches!(self, Verdict::NotCovered)
    }

    /// The serialized AdmissionReview answering request `uid`.
    pub(crate) fn to_body(&self, uid: &str) -> Result<Vec<u8>, Rejection> {
        let response = match self {
            Verdict::NotCovered => AdmissionResponse {
                uid,
                allowed: true,
                status: None,
                patch_type: None,
                patch: None,
                warnings: &[],
            },
            Verdict::Allowed { patch, warnings } => {
                let patch = match patch {
                    Some(patch) => Some(patch.to_base64_literal().map_err(|err| Rejection {
                        status: 500,
                        message: format!("the JSON patch could not be encoded: {err}"),
                    })?),
                    None => None,
                };
                AdmissionResponse {
                    uid,
                    allowed: true,
                    status: None,
                    patch_type: patch.as_ref().map(|_| "JSONPatch"),
                    patch,
                    warnings,
                }
            }
            Verdict::Denied { kind, message, warnings } => {
                let (code, reason, status) = match kind {
                    DenialKind::Forbidden => (403, "Forbidden", "Failure"),
                    DenialKind::ValidatorDenied => (403, "Forbidden", ""),
                    DenialKind::BadRequest => (400, "BadRequest", "Failure"),
                    DenialKind::Internal => (500, "InternalError", "Failure"),
                };
                let status = Status { code, message: message.clone(), reason, status };
                AdmissionResponse {
                    uid,
                    allowed: false,
                    status: Some(status),
                    patch_type: None,
                    patch: None,
                    warnings,
                }
            }
        };
        wire::serialize(response)
    }
}
