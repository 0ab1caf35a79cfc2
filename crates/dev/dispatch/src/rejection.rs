//! Why admission refused a request, in the shape of the Kubernetes Status the API server
//! answers with. The constructors mirror the apimachinery helpers upstream's webhook code
//! uses (`NewInternalError`, `NewBadRequest`, `NewNotFound`, `NewInvalid`) and the webhook
//! plugin's `ToStatusErr`.

use serde_json::{Value, json};

use certgate_api::field::FieldError;
use certgate_gofmt::quote;

/// Why admission refused a request: becomes the API error body (a Kubernetes Status with
/// `status: Failure`).
#[derive(Clone, Debug, PartialEq)]
pub struct Rejection {
    /// The HTTP status code (Status `code`).
    pub code: u16,
    /// Status `reason`; may be empty when a webhook denied without one, as upstream.
    pub reason: String,
    pub message: String,
    /// Status `details`, when there are any.
    pub details: Option<Value>,
    /// Warnings the webhooks called before the refusal returned. Upstream sends them as
    /// `Warning` headers with the error response too.
    pub warnings: Vec<String>,
}

impl std::fmt::Display for Rejection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Rejection {}

impl Rejection {
    /// `apierrors.NewInternalError(err)`: 500, `InternalError`, the cause repeated in
    /// `details.causes`.
    pub(crate) fn internal(error: &str) -> Self {
        Rejection {
            code: 500,
            reason: "InternalError".to_owned(),
            message: format!("Internal error occurred: {error}"),
            details: Some(json!({ "causes": [{ "message": error }] })),
            warnings: Vec::new(),
        }
    }

    /// `apierrors.NewBadRequest(message)`.
    pub(crate) fn bad_request(message: String) -> Self {
        Rejection {
            code: 400,
            reason: "BadRequest".to_owned(),
            message,
            details: None,
            warnings: Vec::new(),
        }
    }

    /// `apierrors.NewNotFound(namespaces, name)`, what upstream answers when the namespace of
    /// the object does not exist and a webhook has a namespaceSelector.
    pub(crate) fn namespace_not_found(namespace: &str) -> Self {
        Rejection {
            code: 404,
            reason: "NotFound".to_owned(),
            message: format!("namespaces {} not found", quote(namespace)),
            details: Some(json!({ "name": namespace, "kind": "namespaces" })),
            warnings: Vec::new(),
        }
    }

    /// `apierrors.NewForbidden(groupResource, name, err)`, what upstream answers when a
    /// webhook's matchConditions fail to evaluate under `failurePolicy: Fail`.
    pub(crate) fn forbidden(
        group_resource: &str,
        group: &str,
        resource: &str,
        name: &str,
        error: &str,
    ) -> Self {
        let message = if name.is_empty() {
            format!("{group_resource} is forbidden: {error}")
        } else {
            format!("{group_resource} {} is forbidden: {error}", quote(name))
        };
        // StatusDetails' fields are all `omitempty`.
        let mut details = serde_json::Map::new();
        for (key, value) in [("name", name), ("group", group), ("kind", resource)] {
            if !value.is_empty() {
                details.insert(key.to_owned(), Value::String(value.to_owned()));
            }
        }
        Rejection {
            code: 403,
            reason: "Forbidden".to_owned(),
            message,
            details: Some(Value::Object(details)),
            warnings: Vec::new(),
        }
    }

    /// `apierrors.NewInvalid(groupKind, name, [one field error])`.
    pub(crate) fn invalid(group: &str, kind: &str, name: &str, error: &FieldError) -> Self {
        let qualified = if group.is_empty() { kind.to_owned() } else { format!("{kind}.{group}") };
        Rejection {
            code: 422,
            reason: "Invalid".to_owned(),
            message: format!("{qualified} {} is invalid: {error}", quote(name)),
            details: Some(json!({
                "name": name,
                "group": group,
                "kind": kind,
                "causes": [{
                    "reason": error.kind.cause(),
                    "message": error.body(),
                    "field": error.path.as_str(),
                }],
            })),
            warnings: Vec::new(),
        }
    }

    /// Upstream's `webhookerrors.ToStatusErr`: the webhook's own Status with the message
    /// prefixed by who denied, a code of at least 400, and its reason and details kept.
    pub(crate) fn denied(webhook: &str, status: Option<&crate::review::WebhookStatus>) -> Self {
        let denied_by = format!("admission webhook {} denied the request", quote(webhook));
        let message = status.map(|s| s.message.as_str()).unwrap_or_default();
        let reason = status.map(|s| s.reason.as_str()).unwrap_or_default();
        let message = if !message.is_empty() {
            format!("{denied_by}: {message}")
        } else if !reason.is_empty() {
            format!("{denied_by}: {reason}")
        } else {
            format!("{denied_by} without explanation")
        };
        // A denial must not read as a success: codes below 400 (and absent ones) become 400.
        let code = status.map(|s| s.code).unwrap_or_default();
        let code = u16::try_from(code).ok().filter(|c| (400..=999).contains(c)).unwrap_or(400);
        Rejection {
            code,
            reason: reason.to_owned(),
            message,
            details: status.and_then(|s| s.details.clone()),
            warnings: Vec::new(),
        }
    }

    pub(crate) fn with_warnings(mut self, warnings: Vec<String>) -> Self {
        self.warnings = warnings;
        self
    }
}
