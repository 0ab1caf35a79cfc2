//! The schema keywords, in the order the API server's OpenAPI validator applies them (type,
//! format, enum, then an object's map values, properties and required fields), with its
//! messages converted to field errors as apiextensions-apiserver converts them.

use base64::Engine as _;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    JSONSchemaProps, JSONSchemaPropsOrArray, JSONSchemaPropsOrBool,
};
use serde_json::{Map, Value};

use crate::field::{BadValue, ErrorType, FieldError, Path};
use crate::gofmt;

/// The root's fields the API server validates itself.
pub(super) fn is_type_meta_or_metadata(key: &str) -> bool {
    matches!(key, "apiVersion" | "kind" | "metadata")
}

pub(super) fn items(schema: &JSONSchemaProps) -> Option<&JSONSchemaProps> {
    match &schema.items {
        Some(JSONSchemaPropsOrArray::Schema(items)) => Some(items),
        _ => None,
    }
}

pub(super) fn additional(schema: &JSONSchemaProps) -> Option<&JSONSchemaProps> {
    match &schema.additional_properties {
        Some(JSONSchemaPropsOrBool::Schema(values)) => Some(values),
        _ => None,
    }
}

/// The path of a validation name: `<nil>` for the root, as upstream passes a nil base path.
fn path(name: &str) -> Path {
    Path::new(if name.is_empty() { "<nil>" } else { name })
}

fn child_name(name: &str, key: &str) -> String {
    if name.is_empty() { key.to_owned() } else { format!("{name}.{key}") }
}

/// The value as upstream holds it after decoding (string, bool, int64, float64, or a map or
/// slice), which decides how the error prints it.
pub(crate) fn bad_value(value: &Value) -> BadValue {
    match value {
        Value::String(s) => BadValue::Str(s.clone()),
        Value::Bool(b) => BadValue::Bool(*b),
        Value::Number(n) => match n.as_i64() {
            Some(i) => BadValue::Int(i),
            None => BadValue::float(n.as_f64().unwrap_or_default()),
        },
        other => BadValue::Json(other.clone()),
    }
}

/// Validates `value` at validation name `name` (dotted, `[i]` for items, empty at the root).
pub(super) fn value(
    schema: &JSONSchemaProps,
    value: &Value,
    name: &str,
    out: &mut Vec<FieldError>,
) {
    out.extend(type_error(schema, value, name));
    if let Value::String(s) = value {
        out.extend(format_error(schema, s, name));
    }
    enumeration(schema, value, name, out);
    match value {
        Value::Array(list) => {
            if let Some(item) = items(schema) {
                for (i, v) in list.iter().enumerate() {
                    self::value(item, v, &format!("{name}[{i}]"), out);
                }
            }
        }
        Value::Object(map) => object(schema, map, name, out),
        _ => {}
    }
}

/// The JSON type upstream infers for a value, and the Go numeric format it carries.
fn data_type(value: &Value) -> (&'static str, &'static str) {
    match value {
        Value::Null => ("null", ""),
        Value::Bool(_) => ("boolean", ""),
        Value::Number(n) if n.is_f64() => ("number", "float64"),
        Value::Number(_) => ("integer", "int64"),
        Value::String(_) => ("string", ""),
        Value::Array(_) => ("array", ""),
        Value::Object(_) => ("object", ""),
    }
}

fn must_be_of_type(name: &str, expected: &str, found: &str) -> FieldError {
    FieldError {
        kind: ErrorType::Invalid,
        path: path(name),
        value: Some(BadValue::Str(found.to_owned())),
        detail: format!("{name} in body must be of type {expected}: {}", gofmt::quote(found)),
    }
}

/// A JSON number upstream treats as an integer: integral and within ±2^53.
fn is_json_integer(f: f64) -> bool {
    const LIMIT: f64 = 9_007_199_254_740_992.0;
    f.is_finite() && f.fract() == 0.0 && f.abs() <= LIMIT
}

fn type_error(schema: &JSONSchemaProps, value: &Value, name: &str) -> Option<FieldError> {
    let expected = schema.type_.as_deref().filter(|t| !t.is_empty())?;
    let (found, found_format) = data_type(value);
    if value.is_null() {
        return (schema.nullable != Some(true)).then(|| must_be_of_type(name, expected, "null"));
    }
    let compatible = expected == found
        || (expected == "integer"
            && found == "number"
            && value.as_f64().is_some_and(is_json_integer))
        || (expected == "number" && found == "integer");
    let stringy = matches!(value, Value::String(_) | Value::Array(_));
    if let Some(format) = schema.format.as_deref().filter(|_| !stringy)
        && !(compatible || format == found_format)
    {
        return Some(must_be_of_type(name, format, found_format));
    }
    if stringy && schema.format.is_some() && expected != "number" && expected != "integer" {
        return None;
    }
    (!compatible).then(|| must_be_of_type(name, expected, found))
}

/// The string formats the API server checks on these CRDs; others are accepted.
fn format_error(schema: &JSONSchemaProps, s: &str, name: &str) -> Option<FieldError> {
    let format = schema.format.as_deref()?;
    let valid = match format {
        // Go's StdEncoding: padding required, line breaks skipped.
        "byte" => {
            let compact: String = s.chars().filter(|c| !matches!(c, '\r' | '\n')).collect();
            base64::engine::general_purpose::STANDARD.decode(compact).is_ok()
        }
        "date-time" | "datetime" => chrono::DateTime::parse_from_rfc3339(s).is_ok(),
        _ => return None,
    };
    (!valid).then(|| FieldError {
        kind: ErrorType::Invalid,
        path: path(name),
        value: Some(BadValue::Str(s.to_owned())),
        detail: format!("{name} in body must be of type {format}: {}", gofmt::quote(s)),
    })
}

fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

fn enumeration(schema: &JSONSchemaProps, value: &Value, name: &str, out: &mut Vec<FieldError>) {
    let allowed = schema.enum_.as_deref().unwrap_or_default();
    if allowed.is_empty() || allowed.iter().any(|a| same(&a.0, value)) {
        return;
    }
    let supported: Vec<String> = allowed
        .iter()
        .map(|a| match &a.0 {
            Value::String(s) => s.clone(),
            other => gofmt::json(other),
        })
        .collect();
    let supported: Vec<&str> = supported.iter().map(String::as_str).collect();
    out.push(FieldError::not_supported(path(name), bad_value(value), &supported));
}

/// Map values, then declared properties, then required fields.
fn object(
    schema: &JSONSchemaProps,
    map: &Map<String, Value>,
    name: &str,
    out: &mut Vec<FieldError>,
) {
    let root = name.is_empty();
    let properties = schema.properties.as_ref();
    if let Some(values) = additional(schema) {
        for (key, v) in map {
            let declared = properties.is_some_and(|p| p.contains_key(key));
            if !(declared || (root && is_type_meta_or_metadata(key))) {
                value(values, v, &child_name(name, key), out);
            }
        }
    }
    for (key, property) in properties.into_iter().flatten() {
        if root && is_type_meta_or_metadata(key) {
            continue;
        }
        if let Some(v) = map.get(key) {
            value(property, v, &child_name(name, key), out);
        }
    }
    for key in schema.required.as_deref().unwrap_or_default() {
        if !map.contains_key(key) {
            out.push(FieldError::required(path(&child_name(name, key)), ""));
        }
    }
}
