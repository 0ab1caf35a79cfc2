//! The 422 `Invalid` answer kube-apiserver 1.33 builds from field errors
//! (`apierrors.NewInvalid`). The field errors themselves are `certgate_api::field`'s.

use std::fmt;

use certgate_api::field::{FieldError, aggregate};
use certgate_gofmt::quote;
use serde_json::{Map, Value};

use crate::status::{self, StatusError};

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

    /// The 422 answer, with one `details.causes` entry per field error (repeats kept, as
    /// upstream).
    pub fn status(&self) -> StatusError {
        let mut details = status::details(&self.name, &self.group, &self.kind);
        let causes: Vec<Value> = self
            .errors
            .iter()
            .map(|error| {
                let mut cause = Map::new();
                cause.insert("reason".into(), error.kind.cause().into());
                cause.insert("message".into(), error.body().into());
                cause.insert("field".into(), error.path.as_str().into());
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

#[cfg(test)]
mod tests {
    use super::*;
    use certgate_api::field::{BadValue, Path};
    use serde_json::json;

    #[test]
    fn invalid_request_message_and_status() {
        let one = FieldError::invalid(Path::new("a"), BadValue::Str("x".into()), "bad");
        let two = FieldError::invalid(Path::new("b"), BadValue::Int(1), "worse");
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
