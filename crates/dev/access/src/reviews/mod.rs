//! The review APIs: pure handlers from a decoded request body to the response object, or to
//! the error kube-apiserver answers with.

mod access;
mod identity;
mod object_meta;
mod rules;

pub use access::{local_subject_access_review, self_subject_access_review, subject_access_review};
pub use identity::{self_subject_review, token_review};
pub use rules::self_subject_rules_review;

use crate::invalid::InvalidRequest;
use crate::status::StatusError;

/// Why a review request was refused; [`Self::status`] is the answer to send.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ReviewError {
    /// 400: the body does not decode, its namespace is not the URL's, or a TokenReview has no
    /// token.
    #[error("{}", .0.message)]
    BadRequest(StatusError),
    /// 422: the spec or metadata is invalid.
    #[error("{0}")]
    Invalid(InvalidRequest),
    /// 500: kube-apiserver's own consistency checks failed.
    #[error("{}", .0.message)]
    Internal(StatusError),
}

impl ReviewError {
    pub fn status(&self) -> StatusError {
        match self {
            ReviewError::BadRequest(status) | ReviewError::Internal(status) => status.clone(),
            ReviewError::Invalid(invalid) => invalid.status(),
        }
    }
}

#[cfg(test)]
mod tests;
