//! Times as Kubernetes writes them.

/// The current time as Kubernetes writes condition times (RFC 3339, UTC, whole seconds).
pub fn now_rfc3339() -> String {
    chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ").to_string()
}
