//! The `Status` error bodies kube-apiserver answers with (`apierrors.New*`), so that every
//! error of this crate can say exactly what the sandbox must send back.

use std::fmt;

use certgate_gofmt::quote;
use serde_json::{Map, Value, json};

/// An API error: HTTP code, `reason`, `message` and `details`, as `metav1.Status` carries them.
#[derive(Clone, Debug, PartialEq)]
pub struct StatusError {
    pub code: u16,
    pub reason: &'static str,
    pub message: String,
    /// `metav1.StatusDetails`, already in its JSON form; `None` when kube-apiserver sends none.
    pub details: Option<Value>,
}

impl StatusError {
    /// `apierrors.NewBadRequest`: 400 without details.
    pub fn bad_request(message: impl Into<String>) -> Self {
        StatusError { code: 400, reason: "BadRequest", message: message.into(), details: None }
    }

    /// `apierrors.NewUnauthorized("Unauthorized")`, what the authentication filter sends for
    /// any credential it could not accept, whatever the reason.
    pub fn unauthorized() -> Self {
        StatusError {
            code: 401,
            reason: "Unauthorized",
            message: "Unauthorized".to_owned(),
            details: None,
        }
    }

    /// `apierrors.NewNotFound`: `<resource>[.<group>] "<name>" not found`.
    pub fn not_found(group: &str, resource: &str, name: &str) -> Self {
        StatusError {
            code: 404,
            reason: "NotFound",
            message: format!("{} {} not found", qualified(resource, group), quote(name)),
            details: Some(details(name, group, resource)),
        }
    }

    /// `apierrors.NewConflict`: `Operation cannot be fulfilled on <resource> "<name>": <why>`.
    pub fn conflict(group: &str, resource: &str, name: &str, why: &str) -> Self {
        StatusError {
            code: 409,
            reason: "Conflict",
            message: format!(
                "Operation cannot be fulfilled on {} {}: {why}",
                qualified(resource, group),
                quote(name)
            ),
            details: Some(details(name, group, resource)),
        }
    }

    /// `apierrors.NewInternalError`: `Internal error occurred: <why>`, the cause repeated in
    /// `details.causes`.
    pub fn internal(why: &str) -> Self {
        StatusError {
            code: 500,
            reason: "InternalError",
            message: format!("Internal error occurred: {why}"),
            details: Some(json!({ "causes": [{ "message": why }] })),
        }
    }

    /// The whole `Status` object, fields in kube-apiserver's order.
    pub fn to_status(&self) -> Value {
        let mut status = Map::new();
        status.insert("kind".into(), "Status".into());
        status.insert("apiVersion".into(), "v1".into());
        status.insert("metadata".into(), json!({}));
        status.insert("status".into(), "Failure".into());
        status.insert("message".into(), self.message.clone().into());
        status.insert("reason".into(), self.reason.into());
        if let Some(details) = &self.details {
            status.insert("details".into(), details.clone());
        }
        status.insert("code".into(), self.code.into());
        Value::Object(status)
    }
}

impl fmt::Display for StatusError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}: {}", self.code, self.reason, self.message)
    }
}

impl std::error::Error for StatusError {}

/// `schema.GroupResource.String()` (and `GroupKind.String()`): `resource.group`, or just
/// `resource` in the core group.
pub(crate) fn qualified(resource: &str, group: &str) -> String {
    if group.is_empty() { resource.to_owned() } else { format!("{resource}.{group}") }
}

/// `metav1.StatusDetails` with its empty fields left out, as `omitempty` does.
pub(crate) fn details(name: &str, group: &str, kind: &str) -> Value {
    let mut details = Map::new();
    for (key, value) in [("name", name), ("group", group), ("kind", kind)] {
        if !value.is_empty() {
            details.insert(key.into(), value.into());
        }
    }
    Value::Object(details)
}

/// The plain-text body of `responsewriters.InternalError`, which filters use before a request
/// reaches an API handler (failed RequestInfo, impersonation headers without a user):
/// `Internal Server Error: "<request URI>": <why>` with `&`, `<` and `>` HTML-escaped and a
/// trailing newline. Send it with code 500, `Content-Type: text/plain; charset=utf-8` and
/// `X-Content-Type-Options: nosniff`.
pub fn plain_internal_error(request_uri: &str, why: &dyn fmt::Display) -> String {
    let mut body = sanitize(&format!("Internal Server Error: {}: {why}", quote(request_uri)));
    body.push('\n');
    body
}

/// kube-apiserver's `sanitizer`: error texts must not look like HTML.
pub(crate) fn sanitize(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_bodies_follow_apierrors() {
        let conflict = StatusError::conflict("", "Secret", "s", "gone");
        assert_eq!(conflict.message, r#"Operation cannot be fulfilled on Secret "s": gone"#);
        assert_eq!(
            gofmt_json(&conflict.to_status()),
            r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Operation cannot be fulfilled on Secret \"s\": gone","reason":"Conflict","details":{"name":"s","kind":"Secret"},"code":409}"#
        );
        let internal = StatusError::internal("error validating audiences");
        assert_eq!(internal.message, "Internal error occurred: error validating audiences");
        assert_eq!(
            internal.details,
            Some(json!({"causes": [{"message": "error validating audiences"}]}))
        );
        let missing = StatusError::not_found("", "secrets", "s");
        assert_eq!(missing.message, r#"secrets "s" not found"#);
        assert_eq!(StatusError::unauthorized().to_status()["message"], "Unauthorized");
    }

    #[test]
    fn plain_internal_errors_are_sanitized() {
        assert_eq!(
            plain_internal_error("/api?a=<b>&c", &"boom"),
            "Internal Server Error: \"/api?a=&lt;b&gt;&amp;c\": boom\n"
        );
    }

    /// Field order matters to byte-comparing clients and golden files.
    fn gofmt_json(value: &Value) -> String {
        serde_json::to_string(value).unwrap_or_default()
    }
}
