//! The API server's 422 Invalid `Status`: its message and `details.causes`.

use serde::{Deserialize, Serialize};

use certgate_api::field::{FieldError, aggregate};
use certgate_api::gofmt;

/// One `metav1.StatusCause` of an Invalid `Status`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatusCause {
    /// `FieldValueRequired`, `FieldValueInvalid`, `FieldValueNotSupported`, ...
    pub reason: String,
    /// The error without its field path (`field.Error.ErrorBody()`).
    pub message: String,
    pub field: String,
}

/// `<Kind>.<group> "<name>" is invalid: <errors>`, as `apierrors.NewInvalid` words it: the
/// kind alone when `group` is empty (core), one error as-is, several as `[a, b]` with
/// repeated texts dropped, and no `: ...` tail when there are no errors.
pub fn invalid_message(kind: &str, group: &str, name: &str, errors: &[FieldError]) -> String {
    let qualified = if group.is_empty() { kind.to_owned() } else { format!("{kind}.{group}") };
    let name = gofmt::quote(name);
    match aggregate(errors) {
        Some(aggregate) => format!("{qualified} {name} is invalid: {aggregate}"),
        None => format!("{qualified} {name} is invalid"),
    }
}

/// One cause per error, in order (not de-duplicated, as upstream).
pub fn causes(errors: &[FieldError]) -> Vec<StatusCause> {
    errors
        .iter()
        .map(|error| StatusCause {
            reason: error.kind.cause().to_owned(),
            message: error.body(),
            field: error.path.as_str().to_owned(),
        })
        .collect()
}
