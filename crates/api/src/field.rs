//! Kubernetes `field.Error` / `field.ErrorList` / aggregate rendering, exactly as
//! `k8s.io/apimachinery/pkg/util/validation/field` does (see approver-policy spec §10).
//!
//! Users script against these texts, so every byte matters: Go `%q` for plain strings,
//! `%v` for bools and sized ints, JSON (with `<`, `>`, `&` escaped) for everything else.

use std::fmt;

/// A field path such as `spec.allowed.otherNames[1.2.3].validations[0]`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Path(String);

impl Path {
    /// A root path (`spec`, `metadata`, `status`).
    pub fn new(root: &str) -> Self {
        Path(root.to_owned())
    }
    /// `self.name`.
    pub fn child(&self, name: &str) -> Self {
        Path(format!("{}.{}", self.0, name))
    }
    /// `self[i]`.
    pub fn index(&self, i: usize) -> Self {
        Path(format!("{}[{}]", self.0, i))
    }
    /// `self[key]` (list-map key form, no quoting).
    pub fn key(&self, key: &str) -> Self {
        Path(format!("{}[{}]", self.0, key))
    }
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A bad value, tagged with the Go type it had upstream, which decides its rendering.
#[derive(Clone, Debug, PartialEq)]
pub enum BadValue {
    /// Go `string`: rendered with `%q`.
    Str(String),
    /// Go `bool`: `%v`.
    Bool(bool),
    /// Go `int64`/`int32`: `%v`.
    Int(i64),
    /// Any other Go type (plain `int`, slices, maps, named string types): JSON.
    Json(serde_json::Value),
}

/// `field.ErrorType`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorType {
    Invalid,
    Required,
    NotSupported,
    Forbidden,
    Internal,
    Duplicate,
    NotFound,
    TooLong,
    TooMany,
}

/// One `field.Error`.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldError {
    pub kind: ErrorType,
    pub path: Path,
    /// `None` where Go shows no value (Required, Forbidden, Internal).
    pub value: Option<BadValue>,
    pub detail: String,
}

impl FieldError {
    pub fn invalid(path: Path, value: BadValue, detail: impl Into<String>) -> Self {
        FieldError { kind: ErrorType::Invalid, path, value: Some(value), detail: detail.into() }
    }
    pub fn required(path: Path, detail: impl Into<String>) -> Self {
        FieldError { kind: ErrorType::Required, path, value: None, detail: detail.into() }
    }
    pub fn forbidden(path: Path, detail: impl Into<String>) -> Self {
        FieldError { kind: ErrorType::Forbidden, path, value: None, detail: detail.into() }
    }
    pub fn internal(path: Path, err: impl fmt::Display) -> Self {
        FieldError { kind: ErrorType::Internal, path, value: None, detail: err.to_string() }
    }
    /// `field.NotSupported(path, value, validValues)`: detail lists each valid value Go-quoted.
    pub fn not_supported(path: Path, value: BadValue, valid: &[&str]) -> Self {
        let _ = (path, value, valid);
        todo!("api crate owner")
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, _f: &mut fmt::Formatter<'_>) -> fmt::Result {
        todo!("api crate owner: `<path>: <type string>[: <value>][: <detail>]`")
    }
}

/// Renders an error list as `ErrorList.ToAggregate().Error()`; `None` when empty.
pub fn aggregate(errors: &[FieldError]) -> Option<String> {
    aggregate_texts(errors.iter().map(|e| e.to_string()))
}

/// Aggregates already-rendered texts (nested aggregates flattened by the caller):
/// repeated texts dropped, one text as-is, several as `[a, b]`.
pub fn aggregate_texts(texts: impl IntoIterator<Item = String>) -> Option<String> {
    let _ = texts.into_iter();
    todo!("api crate owner")
}
