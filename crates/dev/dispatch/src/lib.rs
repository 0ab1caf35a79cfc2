//! Calls admission webhooks as kube-apiserver does, for the certgate sandbox API server:
//! matching of Mutating/ValidatingWebhookConfigurations, AdmissionReview requests over HTTPS
//! with caBundle verification, patches, failure policies, timeouts and dry runs, and
//! validation of the configurations themselves. See docs/dispatch.md.
#![forbid(unsafe_code)]

mod attributes;
mod call;
mod call_error;
mod configurations;
mod dispatcher;
mod join;
mod match_conditions;
mod matching;
mod mutating;
mod patch;
mod rejection;
mod review;
mod transport;
mod uid;
mod validating;
mod validation;
mod warnings;

pub use attributes::{AdmissionAttributes, GroupVersionKind, GroupVersionResource, Operation};
pub use configurations::Configurations;
pub use dispatcher::Dispatcher;
pub use rejection::Rejection;
pub use validation::{ConfigurationKind, FieldError, validate_configuration};
pub use warnings::cap_warnings;

/// Bounds the dispatcher applies to webhook responses.
pub mod limits {
    /// The most response body read from a webhook.
    pub const MAX_RESPONSE_BYTES: usize = crate::transport::MAX_RESPONSE_BYTES;
    /// The most operations accepted in one JSONPatch.
    pub const MAX_PATCH_OPERATIONS: usize = crate::patch::MAX_OPERATIONS;
    /// The most bytes one JSONPatch may duplicate with `copy` operations.
    pub const MAX_PATCH_COPIED_BYTES: usize = crate::patch::MAX_COPIED_BYTES;
    /// The CEL cost one matchConditions expression may spend.
    pub const MATCH_CONDITION_COST_LIMIT: u64 = crate::match_conditions::PER_CALL_COST_LIMIT;
    /// The CEL cost all matchConditions of one webhook may spend on one request.
    pub const MATCH_CONDITIONS_COST_BUDGET: u64 = crate::match_conditions::REQUEST_COST_BUDGET;
}
