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

    /// A path that names no served resource.
    pub fn no_route() -> Self {
        ApiError::new(404, "NotFound", "the server could not find the requested resource")
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

    pub fn method_not_allowed(method: &str) -> Self {
        ApiError::new(
            405,
            "MethodNotAllowed",
            format!("the server does not allow this method on the requested resource ({method})"),
        )
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
            status["details"] = (**details).clone();
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
