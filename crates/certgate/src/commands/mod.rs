//! One module per subcommand.

pub mod check;
pub mod connections;
pub mod controller;
pub mod crds;
pub mod crl;
pub mod decide;
pub mod dev;
pub mod explain;
pub mod live_review;
pub mod template;
pub mod webhook;
pub mod webhook_serving;

/// The current time as Kubernetes writes condition times (RFC 3339, UTC, whole seconds).
pub fn now_rfc3339() -> String {
    chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ").to_string()
}
