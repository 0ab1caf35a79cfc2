//! Field errors as apimachinery's `field.Error` renders them (`ErrorBody`).

use certgate_gofmt::quote;

/// One validation problem: `field` is the path (`webhooks[0].name`), `detail` the body
/// upstream prints after it (`Required value`, `Invalid value: "x": ...`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldError {
    pub field: String,
    pub detail: String,
}

impl std::fmt::Display for FieldError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.field, self.detail)
    }
}

fn with_detail(body: String, detail: &str) -> String {
    if detail.is_empty() { body } else { format!("{body}: {detail}") }
}

pub(crate) fn required(field: &str, detail: &str) -> FieldError {
    FieldError { field: field.to_owned(), detail: with_detail("Required value".to_owned(), detail) }
}

pub(crate) fn forbidden(field: &str, detail: &str) -> FieldError {
    FieldError { field: field.to_owned(), detail: with_detail("Forbidden".to_owned(), detail) }
}

/// `field.Invalid` with a string value (printed with `%q`).
pub(crate) fn invalid(field: &str, value: &str, detail: &str) -> FieldError {
    invalid_rendered(field, &quote(value), detail)
}

/// `field.Invalid` with a value already rendered as Go prints it (numbers, `%#v` slices).
pub(crate) fn invalid_rendered(field: &str, value: &str, detail: &str) -> FieldError {
    FieldError {
        field: field.to_owned(),
        detail: with_detail(format!("Invalid value: {value}"), detail),
    }
}

/// `field.NotSupported`: the value and the quoted list of supported values.
pub(crate) fn not_supported(field: &str, value: &str, supported: &[&str]) -> FieldError {
    let list: Vec<String> = supported.iter().map(|s| quote(s)).collect();
    FieldError {
        field: field.to_owned(),
        detail: with_detail(
            format!("Unsupported value: {}", quote(value)),
            &format!("supported values: {}", list.join(", ")),
        ),
    }
}

pub(crate) fn duplicate(field: &str, value: &str) -> FieldError {
    FieldError { field: field.to_owned(), detail: format!("Duplicate value: {}", quote(value)) }
}

pub(crate) fn too_many(field: &str, actual: usize, max: usize) -> FieldError {
    FieldError {
        field: field.to_owned(),
        detail: format!("Too many: {actual}: must have at most {max} items"),
    }
}
