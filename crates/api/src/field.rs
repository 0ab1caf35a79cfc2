//! Kubernetes `field.Error` / `field.ErrorList` / aggregate rendering, exactly as
//! `k8s.io/apimachinery/pkg/util/validation/field` does (see approver-policy spec §10).
//!
//! Users script against these texts, so every byte matters: Go `%q` for plain strings,
//! `%v` for bools and sized ints, JSON (with `<`, `>`, `&` escaped) for everything else in
//! the apimachinery cert-manager builds with; kube-apiserver 1.33 prints other values with
//! `%#v` instead ([`BadValue::GoSyntax`], [`BadValue::Null`]).

use std::collections::HashSet;
use std::fmt;

use crate::gofmt;

/// A field path such as `spec.allowed.otherNames[1.2.3].validations[0]`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Path(String);

impl Path {
    /// A root path (`spec`, `metadata`, `status`). An empty name renders as `[]`, as Go's
    /// `field.NewPath("")` does (it treats a nameless element as an empty subscript).
    pub fn new(root: &str) -> Self {
        if root.is_empty() { Path("[]".to_owned()) } else { Path(root.to_owned()) }
    }
    /// `self.name`; `self[]` for an empty name, as Go renders it.
    pub fn child(&self, name: &str) -> Self {
        if name.is_empty() { self.joined("[", "", "]") } else { self.joined(".", name, "") }
    }
    /// `self[i]`.
    pub fn index(&self, i: usize) -> Self {
        Path(format!("{}[{}]", self.0, i))
    }
    /// `self[key]` (list-map key form, no quoting).
    pub fn key(&self, key: &str) -> Self {
        self.joined("[", key, "]")
    }
    /// Validation builds a path for every field it visits, error or not: plain string
    /// pushes into one allocation cost a fraction of `format!`'s.
    fn joined(&self, open: &str, part: &str, close: &str) -> Self {
        let mut path = String::with_capacity(self.0.len() + open.len() + part.len() + close.len());
        path.push_str(&self.0);
        path.push_str(open);
        path.push_str(part);
        path.push_str(close);
        Path(path)
    }
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl BadValue {
    /// A Go `float64`, which apimachinery prints with `%v` (`1e+06`, `0.5`), unlike the JSON
    /// it uses for untyped numbers inside maps and slices.
    pub fn float(f: f64) -> Self {
        BadValue::GoSyntax(gofmt::format_float_g(f))
    }
}

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A bad value, tagged with the Go type it had upstream, which decides its rendering.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BadValue {
    /// Go `string`: rendered with `%q`.
    Str(String),
    /// Go `bool`: `%v`.
    Bool(bool),
    /// Go `int64`/`int32`: `%v`.
    Int(i64),
    /// Any other Go type (plain `int`, slices, maps, named string types): JSON.
    Json(serde_json::Value),
    /// A nil pointer or interface where apimachinery 1.33 prints other values with `%#v`:
    /// it substitutes the string `"null"` and quotes it (JSON-era versions print `null`,
    /// which is `Json(Value::Null)`).
    Null,
    /// Any other value where apimachinery 1.33 prints it with `%#v`, already in that syntax
    /// (`[]string{"a", "b"}`): the caller knows the Go type, this module does not.
    GoSyntax(String),
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
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldError {
    pub kind: ErrorType,
    pub path: Path,
    /// `None` where Go shows no value. Never shown for Required, Forbidden, Internal and
    /// TooLong, whatever it holds.
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
        let detail = if valid.is_empty() {
            String::new()
        } else {
            let quoted: Vec<String> = valid.iter().map(|v| gofmt::quote(v)).collect();
            format!("supported values: {}", quoted.join(", "))
        };
        FieldError { kind: ErrorType::NotSupported, path, value: Some(value), detail }
    }
    /// `field.Duplicate(path, value)`: no detail.
    pub fn duplicate(path: Path, value: BadValue) -> Self {
        FieldError { kind: ErrorType::Duplicate, path, value: Some(value), detail: String::new() }
    }
    /// `field.TooMany(path, actual, max)`: the count is the value shown.
    pub fn too_many(path: Path, actual: usize, max: usize) -> Self {
        let unit = if max == 1 { "item" } else { "items" };
        FieldError {
            kind: ErrorType::TooMany,
            path,
            // A list longer than i64::MAX cannot exist; saturating keeps this total.
            value: Some(BadValue::Int(i64::try_from(actual).unwrap_or(i64::MAX))),
            detail: format!("must have at most {max} {unit}"),
        }
    }

    /// `field.NotFound(path, value)`: no detail.
    pub fn not_found(path: Path, value: BadValue) -> Self {
        FieldError { kind: ErrorType::NotFound, path, value: Some(value), detail: String::new() }
    }
    /// `field.TooLong(path, value, max)`: the value is never shown; `None` is Go's negative
    /// maximum (no bound given).
    pub fn too_long(path: Path, max: Option<usize>) -> Self {
        let detail = match max {
            Some(1) => "may not be more than 1 byte".to_owned(),
            Some(max) => format!("may not be more than {max} bytes"),
            None => "value is too long".to_owned(),
        };
        FieldError { kind: ErrorType::TooLong, path, value: None, detail }
    }

    /// The same error with another detail text, for callers that word it their own way.
    pub fn with_detail(mut self, detail: impl Into<String>) -> Self {
        self.detail = detail.into();
        self
    }

    /// `ErrorBody()`: the message without the path, `<type>[: <value>][: <detail>]`. It is
    /// what a `details.causes[].message` of a 422 carries.
    pub fn body(&self) -> String {
        Body(self).to_string()
    }
}

/// [`FieldError::body`] as a `Display`, so that `Display` of the whole error writes it
/// without an intermediate string.
struct Body<'a>(&'a FieldError);

impl fmt::Display for Body<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let error = self.0;
        f.write_str(error.kind.as_str())?;
        if let Some(value) = error.value.as_ref().filter(|_| error.kind.shows_value()) {
            write!(f, ": {value}")?;
        }
        if !error.detail.is_empty() {
            write!(f, ": {}", error.detail)?;
        }
        Ok(())
    }
}

impl ErrorType {
    /// The text apimachinery prints for the type (`ErrorType.String()`).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorType::Invalid => "Invalid value",
            ErrorType::Required => "Required value",
            ErrorType::NotSupported => "Unsupported value",
            ErrorType::Forbidden => "Forbidden",
            ErrorType::Internal => "Internal error",
            ErrorType::Duplicate => "Duplicate value",
            ErrorType::NotFound => "Not found",
            ErrorType::TooLong => "Too long",
            ErrorType::TooMany => "Too many",
        }
    }

    /// The `metav1.CauseType` of the type (its Go string value), which a 422's
    /// `details.causes[].reason` carries.
    pub fn cause(self) -> &'static str {
        match self {
            ErrorType::Invalid => "FieldValueInvalid",
            ErrorType::Required => "FieldValueRequired",
            ErrorType::NotSupported => "FieldValueNotSupported",
            ErrorType::Forbidden => "FieldValueForbidden",
            ErrorType::Internal => "InternalError",
            ErrorType::Duplicate => "FieldValueDuplicate",
            ErrorType::NotFound => "FieldValueNotFound",
            ErrorType::TooLong => "FieldValueTooLong",
            ErrorType::TooMany => "FieldValueTooMany",
        }
    }

    /// Whether apimachinery prints the bad value for this type. `TooLong` hides it (the
    /// value is what was too long); `TooMany` shows the item count.
    fn shows_value(self) -> bool {
        !matches!(
            self,
            ErrorType::Required | ErrorType::Forbidden | ErrorType::Internal | ErrorType::TooLong
        )
    }
}

impl std::error::Error for FieldError {}

impl fmt::Display for ErrorType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Display for BadValue {
    /// The value as `field.Error` prints it: `%q` for strings, `%v` for bools and sized
    /// integers, JSON or `%#v` (by variant) for everything else.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BadValue::Str(s) => f.write_str(&gofmt::quote(s)),
            BadValue::Bool(b) => write!(f, "{b}"),
            BadValue::Int(i) => write!(f, "{i}"),
            BadValue::Json(v) => f.write_str(&gofmt::json(v)),
            BadValue::Null => f.write_str(&gofmt::quote("null")),
            BadValue::GoSyntax(s) => f.write_str(s),
        }
    }
}

impl fmt::Display for FieldError {
    /// `<path>: <body>`, as `field.Error.Error()`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, Body(self))
    }
}

/// Renders an error list as `ErrorList.ToAggregate().Error()`; `None` when empty.
pub fn aggregate(errors: &[FieldError]) -> Option<String> {
    aggregate_texts(errors.iter().map(|e| e.to_string()))
}

/// Aggregates already-rendered texts (nested aggregates flattened by the caller):
/// repeated texts dropped, one text as-is, several as `[a, b]`.
pub fn aggregate_texts(texts: impl IntoIterator<Item = String>) -> Option<String> {
    let mut seen = HashSet::new();
    let distinct: Vec<String> = texts.into_iter().filter(|t| seen.insert(t.clone())).collect();
    match distinct.as_slice() {
        [] => None,
        [only] => Some(only.clone()),
        _ => Some(format!("[{}]", distinct.join(", "))),
    }
}

#[cfg(test)]
mod apiserver_tests;
#[cfg(test)]
mod tests;
