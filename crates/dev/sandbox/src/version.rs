//! `/version`: what the sandbox reports as its Kubernetes version.

use serde_json::{Value, json};

/// The Kubernetes API version the sandbox imitates (the oldest certgate supports).
pub const MAJOR: &str = "1";
pub const MINOR: &str = "33";
pub const GIT_VERSION: &str = "v1.33.0-certgate-sandbox";

pub fn document() -> Value {
    json!({
        "major": MAJOR,
        "minor": MINOR,
        "gitVersion": GIT_VERSION,
        "gitCommit": "",
        "gitTreeState": "clean",
        "buildDate": "1970-01-01T00:00:00Z",
        "goVersion": "n/a (Rust)",
        "compiler": "rustc",
        "platform": "linux/amd64",
    })
}
