//! Errors for turning manifest values into typed objects.

/// Why an object from a manifest could not be used.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum IngressError {
    /// The value does not have the shape of the named kind (wrong field types, not an object).
    #[error("invalid {kind}: {message}")]
    InvalidObject { kind: &'static str, message: String },
    /// A `data` entry of a Secret is not base64, which the API server would have refused.
    #[error("Secret {namespace}/{name}: data key {key:?} is not valid base64")]
    InvalidSecretData { namespace: String, name: String, key: String },
    /// Rendering the Envoy configuration failed: a YAML serializer error, or a message field set
    /// that the proto3 JSON writer does not cover.
    #[error("rendering Envoy configuration: {0}")]
    Render(String),
}
