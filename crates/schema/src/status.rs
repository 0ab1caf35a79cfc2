//! The API server's 422 Invalid `Status`: its message and `details.causes`.

use serde::{Deserialize, Serialize};

use certgate_api::field::{ErrorType, FieldError, aggregate};
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
        .map(|error| {
            let text = error.to_string();
            // `Display` is always `<path>: <body>`.
            let prefix_len = error.path.as_str().len() + 2;
            let message = text.get(prefix_len..).unwrap_or_default().to_owned();
            StatusCause {
                reason: reason(error.kind).to_owned(),
                message,
                field: error.path.as_str().to_owned(),
            }
        })
        .collect()
}

/// `field.ErrorType`'s string value, which upstream uses as the cause type.
fn reason(kind: ErrorType) -> &'static str {
    match kind {
        ErrorType::Invalid => "FieldValueInvalid",
        ErrorType::Required => "FieldValueRequired",
        ErrorType::NotSupported => "FieldValueNotSupported",
        ErrorType::Forbidden => "FieldValueForbidden",
        ErrorType::Internal => "InternalError",
        ErrorType::Duplicate => "FieldValueDuplicate",
        ErrorType::NotFound => "FieldValueNotFound",
        ErrorType::TooLong => "FieldValueTooLong",
        ErrorType::TooMany => "FieldValueTooMany",
    }
}
