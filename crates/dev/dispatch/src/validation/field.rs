//! The public, rendered form of a validation error. Validation itself builds
//! `certgate_api::field` errors, which render as apimachinery's `field.Error` does.

use certgate_api::field::{self as kube, BadValue};
use certgate_gofmt::go_string_slice;

/// One validation problem: `field` is the path (`webhooks[0].name`), `detail` the body
/// upstream prints after it (`Required value`, `Invalid value: "x": ...`), i.e. `ErrorBody()`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldError {
    pub field: String,
    pub detail: String,
}

impl From<kube::FieldError> for FieldError {
    fn from(error: kube::FieldError) -> Self {
        FieldError { field: error.path.as_str().to_owned(), detail: error.body() }
    }
}

impl std::fmt::Display for FieldError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.field, self.detail)
    }
}

/// A Go `string` value (`%q`).
pub(super) fn string(value: &str) -> BadValue {
    BadValue::Str(value.to_owned())
}

/// A list of strings as kube-apiserver 1.33 prints it (`%#v`): `[]<element type>{"a", "b"}`.
pub(super) fn go_slice(element_type: &str, items: &[String]) -> BadValue {
    BadValue::GoSyntax(go_string_slice(element_type, items))
}
