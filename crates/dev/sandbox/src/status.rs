//! Kubernetes `Status` error bodies.

use std::borrow::Cow;

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

/// An API error as the API server reports it: HTTP status, reason and message, with the
/// object it concerns in `details`.
#[derive(Clone, Debug, PartialEq)]
pub struct ApiError {
    pub code: u16,
    pub reason: Cow<'static, str>,
    pub message: String,
    /// Boxed: errors travel in every `Result` of the request path, keep them small.
    pub details: Option<Box<Value>>,
}

impl ApiError {
    pub fn new(
        code: u16,
        reason: impl Into<Cow<'static, str>>,
        message: impl Into<String>,
    ) -> Self {
        ApiError { code, reason: reason.into(), message: message.into(), details: None }
    }

    pub fn with_details(mut self, details: Value) -> Self {
        self.details = Some(Box::new(details));
        self
    }

    /// `<resource> "<name>" not found`, as the API server words it.
    pub fn not_found(qualified_plural: &str, name: &str) -> Self {
        ApiError::new(404, "NotFound", format!("{qualified_plural} \"{name}\" not found"))
            .with_details(json!({"name": name, "kind": short_kind(qualified_plural), "group": group_of(qualified_plural)}))
    }

    /// A path that names no served resource (with empty details, as kube-apiserver sends it).
    pub fn no_route() -> Self {
        ApiError::new(404, "NotFound", "the server could not find the requested resource")
            .with_details(json!({}))
    }

    /// 422 `<Kind>.<group> "<name>" is invalid: <aggregate>`, as `errors.NewInvalid` words
    /// it; `causes` (one per field error) go in the details when given.
    pub fn invalid(
        qualified_kind: &str,
        group: &str,
        kind: &str,
        name: &str,
        aggregate: &str,
        causes: Option<Vec<Value>>,
    ) -> Self {
        let mut details = json!({"name": name, "group": group, "kind": kind});
        if let Some(causes) = causes {
            details["causes"] = Value::Array(causes);
        }
        ApiError::new(
            422,
            "Invalid",
            format!("{qualified_kind} {} is invalid: {aggregate}", certgate_gofmt::quote(name)),
        )
        .with_details(details)
    }

    pub fn bad_request(message: impl Into<String>) -> Self {
        ApiError::new(400, "BadRequest", message)
    }

    /// 405 as kube-apiserver words it: the method is not named, the details are empty.
    pub fn method_not_allowed() -> Self {
        ApiError::new(
            405,
            "MethodNotAllowed",
            "the server does not allow this method on the requested resource",
        )
        .with_details(json!({}))
    }

    /// 415 for a PATCH whose Content-Type is no patch type, as kube-apiserver words it.
    pub fn unsupported_patch_type() -> Self {
        ApiError::new(415, "UnsupportedMediaType", "415: Unsupported Media Type")
            .with_details(json!({}))
    }

    pub fn body(&self) -> Value {
        let mut status = json!({
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message,
            "reason": self.reason,
            "code": self.code,
        });
        // `StatusReasonUnknown` is the empty string and `reason` is `omitempty` upstream.
        if self.reason.is_empty()
            && let Some(fields) = status.as_object_mut()
        {
            fields.remove("reason");
        }
        if let Some(details) = &self.details {
            status["details"] = without_empty_fields((**details).clone());
        }
        status
    }
}

impl From<certgate_access::StatusError> for ApiError {
    fn from(status: certgate_access::StatusError) -> Self {
        ApiError {
            code: status.code,
            reason: status.reason.into(),
            message: status.message,
            details: status.details.map(Box::new),
        }
    }
}

/// `StatusDetails` as the API server serializes it: every field is `omitempty`, so an empty
/// `group` (the core group), `name`, `kind` or `uid`, no `causes` and a zero
/// `retryAfterSeconds` are left out (`{"name":"x","kind":"configmaps"}`).
fn without_empty_fields(mut details: Value) -> Value {
    if let Some(fields) = details.as_object_mut() {
        fields.retain(|_, value| match value {
            Value::String(text) => !text.is_empty(),
            Value::Array(items) => !items.is_empty(),
            Value::Number(number) => number.as_u64() != Some(0),
            Value::Null => false,
            _ => true,
        });
    }
    details
}

fn short_kind(qualified_plural: &str) -> &str {
    qualified_plural.split('.').next().unwrap_or(qualified_plural)
}

fn group_of(qualified_plural: &str) -> &str {
    qualified_plural.split_once('.').map(|(_, g)| g).unwrap_or("")
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({}): {}", self.code, self.reason, self.message)
    }
}

impl std::error::Error for ApiError {}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let code = StatusCode::from_u16(self.code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        (code, axum::Json(self.body())).into_response()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn details_leave_out_empty_fields_as_the_api_server_does() {
        // kube-apiserver: {"name":"nope","kind":"configmaps"} for the core group.
        let core = ApiError::not_found("configmaps", "nope").body();
        assert_eq!(core["details"], json!({"name": "nope", "kind": "configmaps"}));
        let custom = ApiError::not_found("widgets.example.com", "w").body();
        assert_eq!(
            custom["details"],
            json!({"name": "w", "group": "example.com", "kind": "widgets"})
        );
        // 404 for no route, 405 and a PATCH's 415 carry empty details upstream.
        assert_eq!(ApiError::method_not_allowed().body()["details"], json!({}));
        assert_eq!(ApiError::no_route().body()["details"], json!({}));
        assert_eq!(
            ApiError::unsupported_patch_type().body()["message"],
            "415: Unsupported Media Type"
        );
        let no_causes = ApiError::invalid(
            "Widget.example.com",
            "example.com",
            "Widget",
            "w",
            "x",
            Some(vec![]),
        );
        assert_eq!(
            no_causes.body()["details"],
            json!({"name": "w", "group": "example.com", "kind": "Widget"})
        );
    }
}
