//! One wording for API server failures, shared by both trait implementations.

/// Describes a kube client failure for an operator: the HTTP status, the API server's
/// reason and message when it sent a `Status`, otherwise the transport or decoding error.
pub(crate) fn describe(err: &kube::Error) -> String {
    match err {
        kube::Error::Api(status) => {
            let reason = if status.reason.is_empty() { "no reason given" } else { &status.reason };
            format!("the API server answered HTTP {} ({reason}): {}", status.code, status.message)
        }
        other => other.to_string(),
    }
}
