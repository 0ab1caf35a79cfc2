//! Kubernetes field errors (`field.Error`) and the 422 `Invalid` answer built from them
//! (`apierrors.NewInvalid`), rendered as kube-apiserver 1.33 renders them.

use std::collections::HashSet;
use std::fmt;

use certgate_gofmt::quote;
use serde_json::{Map, Value};

use crate::status::{self, StatusError};

/// `field.ErrorType`, for the kinds of error this crate reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorType {
    Invalid,
    Required,
    NotSupported,
}

impl ErrorType {
    /// `ErrorType.String()`, the words in the message.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorType::Invalid => "Invalid value",
            ErrorType::Required => "Required value",
            ErrorType::NotSupported => "Unsupported value",
        }
    }

    /// The `CauseType` in `details.causes[].reason`.
    pub fn cause(self) -> &'static str {
        match self {
            ErrorType::Invalid => "FieldValueInvalid",
            ErrorType::Required => "FieldValueRequired",
            ErrorType::NotSupported => "FieldValueNotSupported",
        }
    }
}

/// The offending value, tagged with how Go prints it in a 1.33 field error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BadValue {
    /// A Go string: `%q`.
    Str(String),
    /// A Go `int64`: `%v`.
    Int(i64),
    /// A nil pointer: apimachinery 1.33 substitutes the string `"null"` and quotes it.
    Null,
    /// Any other value, already in Go's `%#v` syntax.
    GoSyntax(String),
}

impl fmt::Display for BadValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BadValue::Str(s) => f.write_str(&quote(s)),
            BadValue::Int(i) => write!(f, "{i}"),
            BadValue::Null => f.write_str(&quote("null")),
            BadValue::GoSyntax(s) => f.write_str(s),
        }
    }
}

/// One `field.Error`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldError {
    pub kind: ErrorType,
    /// The field path, e.g. `spec.expirationSeconds`.
    pub field: String,
    /// Not shown for `Required` errors.
    pub value: Option<BadValue>,
    pub detail: String,
}

impl FieldError {
    pub fn invalid(field: &str, value: BadValue, detail: impl Into<String>) -> Self {
        FieldError {
            kind: ErrorType::Invalid,
            field: field.to_owned(),
            value: Some(value),
            detail: detail.into(),
        }
    }

    pub fn required(field: &str, detail: impl Into<String>) -> Self {
        FieldError {
            kind: ErrorType::Required,
            field: field.to_owned(),
            value: None,
            detail: detail.into(),
        }
    }

    /// `field.NotSupported`: the detail lists the supported values, Go-quoted.
    pub fn not_supported(field: &str, value: &str, supported: &[&str]) -> Self {
        let quoted: Vec<String> = supported.iter().map(|v| quote(v)).collect();
        FieldError {
            kind: ErrorType::NotSupported,
            field: field.to_owned(),
            value: Some(BadValue::Str(value.to_owned())),
            detail: format!("supported values: {}", quoted.join(", ")),
        }
    }

    /// The same error with another detail text.
    pub fn with_detail(mut self, detail: impl Into<String>) -> Self {
        self.detail = detail.into();
        self
    }

    /// `ErrorBody()`: the message without the field path.
    pub fn body(&self) -> String {
        let mut body = self.kind.as_str().to_owned();
        if let Some(value) = self.value.as_ref().filter(|_| self.kind != ErrorType::Required) {
            body.push_str(&format!(": {value}"));
        }
        if !self.detail.is_empty() {
            body.push_str(&format!(": {}", self.detail));
        }
        body
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.body())
    }
}

/// A request body kube-apiserver refuses with 422 `Invalid`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvalidRequest {
    /// The `Kind` Go had in hand; empty for the access reviews, whose handlers name the kind
    /// from a field that decoding leaves empty (so their message starts with `.authorization`).
    pub kind: String,
    pub group: String,
    pub name: String,
    pub errors: Vec<FieldError>,
}

impl InvalidRequest {
    pub(crate) fn new(kind: &str, group: &str, name: &str, errors: Vec<FieldError>) -> Self {
        InvalidRequest {
            kind: kind.to_owned(),
            group: group.to_owned(),
            name: name.to_owned(),
            errors,
        }
    }

    /// `<Kind>.<group> "<name>" is invalid: <errors>`; several errors as `[a, b]`, repeats
    /// removed.
    pub fn message(&self) -> String {
        let head = format!(
            "{} {} is invalid",
            status::qualified(&self.kind, &self.group),
            quote(&self.name)
        );
        match aggregate(&self.errors) {
            Some(errors) => format!("{head}: {errors}"),
            None => head,
        }
    }

    /// The 422 answer, with one `details.causes` entry per field error.
    pub fn status(&self) -> StatusError {
        let mut details = status::details(&self.name, &self.group, &self.kind);
        let causes: Vec<Value> = self
            .errors
            .iter()
            .map(|error| {
                let mut cause = Map::new();
                cause.insert("reason".into(), error.kind.cause().into());
                cause.insert("message".into(), error.body().into());
                cause.insert("field".into(), error.field.clone().into());
                Value::Object(cause)
            })
            .collect();
        if let Some(map) = details.as_object_mut() {
            map.insert("causes".into(), Value::Array(causes));
        }
        StatusError {
            code: 422,
            reason: "Invalid",
            message: self.message(),
            details: Some(details),
        }
    }
}

impl fmt::Display for InvalidRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())
    }
}

impl std::error::Error for InvalidRequest {}

/// `ErrorList.ToAggregate().Error()`; `None` for no errors.
fn aggregate(errors: &[FieldError]) -> Option<String> {
    let mut seen = HashSet::new();
    let texts: Vec<String> =
        errors.iter().map(ToString::to_string).filter(|text| seen.insert(text.clone())).collect();
    match texts.as_slice() {
        [] => None,
        [only] => Some(only.clone()),
        several => Some(format!("[{}]", several.join(", "))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn renders_like_apimachinery() {
        let error = FieldError::invalid(
            "spec.expirationSeconds",
            BadValue::Int(599),
            "may not specify a duration less than 10 minutes",
        );
        assert_eq!(
            error.to_string(),
            "spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes"
        );
        assert_eq!(
            FieldError::invalid("spec.resourceAttributes", BadValue::Null, "x").to_string(),
            r#"spec.resourceAttributes: Invalid value: "null": x"#
        );
        assert_eq!(
            FieldError::required("spec.x", "needed").to_string(),
            "spec.x: Required value: needed"
        );
        assert_eq!(
            FieldError::not_supported("spec.kind", "Pod", &["Secret"]).to_string(),
            r#"spec.kind: Unsupported value: "Pod": supported values: "Secret""#
        );
    }

    #[test]
    fn invalid_request_message_and_status() {
        let one = FieldError::invalid("a", BadValue::Str("x".into()), "bad");
        let two = FieldError::invalid("b", BadValue::Int(1), "worse");
        let request =
            InvalidRequest::new("TokenRequest", "authentication.k8s.io", "", vec![one.clone()]);
        assert_eq!(
            request.message(),
            r#"TokenRequest.authentication.k8s.io "" is invalid: a: Invalid value: "x": bad"#
        );
        let several =
            InvalidRequest::new("", "authorization.k8s.io", "", vec![one.clone(), two, one]);
        assert_eq!(
            several.message(),
            r#".authorization.k8s.io "" is invalid: [a: Invalid value: "x": bad, b: Invalid value: 1: worse]"#
        );
        let status = several.status();
        assert_eq!((status.code, status.reason), (422, "Invalid"));
        assert_eq!(
            status.details,
            Some(json!({
                "group": "authorization.k8s.io",
                "causes": [
                    {"reason": "FieldValueInvalid", "message": "Invalid value: \"x\": bad", "field": "a"},
                    {"reason": "FieldValueInvalid", "message": "Invalid value: 1: worse", "field": "b"},
                    {"reason": "FieldValueInvalid", "message": "Invalid value: \"x\": bad", "field": "a"},
                ]
            }))
        );
    }
}
