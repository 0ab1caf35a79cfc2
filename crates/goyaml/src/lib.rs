//! YAML exactly as Go's `gopkg.in/yaml.v3` writes and reads it, for JSON values.
//!
//! go-template-utils (`pkg/templates/templates.go`) converts a policy template with
//! `JSONToYAML` — `yaml.Unmarshal` of the JSON text into `interface{}`, then a yaml.v3
//! `Encoder` with `SetIndent(2)` — runs Go templates over that text, and reads the result back
//! with `yamlToJSON` — `yaml.Unmarshal` into `interface{}`, then `json.Marshal`. This crate
//! reproduces both directions:
//!
//! - [`to_yaml`] writes the text the encoder writes (key order, indentation, quoting, number
//!   formatting), because template line numbers and regular expressions depend on it;
//! - [`from_yaml`] applies yaml.v3's scalar resolution and decoding rules, then the checks
//!   `json.Marshal` would fail on, and returns the JSON value.
//!
//! Inputs to [`from_yaml`] are untrusted: size, nesting depth and alias expansion are
//! bounded, and no input panics.

#![forbid(unsafe_code)]

mod decode;
mod emit;
pub mod float;
mod libyaml;
mod resolve;
mod sort;
mod timestamp;

/// Largest YAML text [`from_yaml`] accepts, in bytes. Kubernetes objects are far smaller
/// (etcd stores at most ~1.5 MiB); the cap keeps hostile input from costing unbounded time.
pub const MAX_INPUT_BYTES: usize = 8 * 1024 * 1024;

/// Deepest nesting of collections [`from_yaml`] accepts, counted after alias expansion.
/// yaml.v3 itself allows 10000 levels; recursion this deep in Rust would risk the stack, and
/// JSON values from `serde_json` cannot be deeper than 128 anyway.
pub const MAX_DEPTH: usize = 200;

/// A YAML document that could not be read, with yaml.v3's (or `encoding/json`'s) text,
/// e.g. `yaml: line 3: could not find expected ':'`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct YamlError(pub String);

/// `yaml.v3` `Encoder` with `SetIndent(2)` of a JSON value (map keys sorted the yaml.v3 way),
/// as go-template-utils' `JSONToYAML` produces it. Ends with a newline.
pub fn to_yaml(value: &serde_json::Value) -> String {
    emit::emit(value, 2)
}

/// Like [`to_yaml`] with another indent; yaml.v3 uses 2 for values outside `2..=9`.
pub fn to_yaml_with_indent(value: &serde_json::Value, indent: usize) -> String {
    emit::emit(value, indent)
}

/// `yaml.Unmarshal` into `interface{}` followed by `json.Marshal`, as a JSON value.
///
/// Only the first document is read. Empty input gives `null`. Timestamps become RFC 3339
/// strings (Go `time.Time`), floats with an integral value below 2^64 become JSON integers
/// (Go's `json.Marshal` prints them without a fraction), and maps with non-string keys, NaN
/// and infinities fail the way `json.Marshal` does.
pub fn from_yaml(text: &str) -> Result<serde_json::Value, YamlError> {
    decode::decode(text)
}
