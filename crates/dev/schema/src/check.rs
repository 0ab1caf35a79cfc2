//! Validation of a (pruned, defaulted) value against a [`Node`], reproducing the checks,
//! their order and their messages of the API server's OpenAPI validator (kube-openapi),
//! converted to field errors as apiextensions-apiserver does.

use serde_json::{Map, Number, Value};

use certgate_api::field::{BadValue, ErrorType, FieldError, Path};
use certgate_api::gofmt;

use crate::format;
use crate::gofloat::go_float;
use crate::junctor;
use crate::node::{Additional, Node, Type, is_type_meta_or_metadata};

/// Validates the root object (its `apiVersion`, `kind` and `metadata` excepted).
pub(crate) fn root(node: &Node, value: &Value) -> Vec<FieldError> {
    let mut errors = Vec::new();
    check(node, value, "", &mut errors);
    errors
}

/// The field path of an upstream validation name: the name itself, `<nil>` for the root
/// (apiextensions passes a nil base path).
pub(crate) fn field_path(name: &str) -> Path {
    Path::new(if name.is_empty() { "<nil>" } else { name })
}

/// A property's validation name: `parent.key`, or `key` at the root.
fn child_name(name: &str, key: &str) -> String {
    if name.is_empty() { key.to_owned() } else { format!("{name}.{key}") }
}

/// The value as upstream prints it in `Invalid value: ...`.
pub(crate) fn bad_value(value: &Value) -> BadValue {
    match value {
        Value::String(s) => BadValue::Str(s.clone()),
        Value::Bool(b) => BadValue::Bool(*b),
        Value::Number(n) => n.as_i64().map_or_else(|| BadValue::Json(value.clone()), BadValue::Int),
        other => BadValue::Json(other.clone()),
    }
}

fn invalid(name: &str, value: BadValue, detail: String) -> FieldError {
    FieldError::invalid(field_path(name), value, detail)
}

/// Validates `value` at validation name `name` (dotted, `[i]` for items, empty at root).
pub(crate) fn check(node: &Node, value: &Value, name: &str, errors: &mut Vec<FieldError>) {
    if value.is_null() {
        if let Some(error) = type_error(node, value, name) {
            errors.push(error);
        }
        if !node.nullable {
            enumeration(node, value, name, errors);
        }
        return;
    }
    errors.extend(type_error(node, value, name));
    junctor::check(node, value, name, errors);
    match value {
        Value::String(s) => {
            errors.extend(string(node, s, name));
            errors.extend(string_format(node, s, name));
        }
        Value::Number(n) => number(node, n, name, errors),
        Value::Array(items) => array(node, items, name, errors),
        _ => {}
    }
    enumeration(node, value, name, errors);
    if let Value::Object(map) = value {
        object(node, map, name, errors);
    }
}

/// The JSON type upstream infers for data, and the Go numeric format it would carry.
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

fn type_names(node: &Node) -> Vec<&'static str> {
    if node.int_or_string {
        return vec!["integer", "string"];
    }
    match node.ty {
        Some(Type::Object) => vec!["object"],
        Some(Type::Array) => vec!["array"],
        Some(Type::String) => vec!["string"],
        Some(Type::Integer) => vec!["integer"],
        Some(Type::Number) => vec!["number"],
        Some(Type::Boolean) => vec!["boolean"],
        None => Vec::new(),
    }
}

/// A JSON number upstream treats as an integer: integral and within ±2^53.
fn is_json_integer(f: f64) -> bool {
    const LIMIT: f64 = 9_007_199_254_740_992.0;
    f.is_finite() && f.fract() == 0.0 && f.abs() <= LIMIT
}

fn must_be_of_type(name: &str, expected: &str, found: &str) -> FieldError {
    let detail = format!("{name} in body must be of type {expected}: {}", gofmt::quote(found));
    FieldError {
        kind: ErrorType::Invalid,
        path: field_path(name),
        value: Some(BadValue::Str(found.to_owned())),
        detail,
    }
}

fn type_error(node: &Node, value: &Value, name: &str) -> Option<FieldError> {
    let types = type_names(node);
    if types.is_empty() && node.format.is_none() {
        return None;
    }
    let joined = types.join(",");
    if value.is_null() {
        return (!types.is_empty() && !node.nullable)
            .then(|| must_be_of_type(name, &joined, "null"));
    }
    let (found, found_format) = data_type(value);
    let float_int = found == "number"
        && types.contains(&"integer")
        && value.as_f64().is_some_and(is_json_integer);
    let int_float = found == "integer" && types.contains(&"number");
    let compatible = types.contains(&found) || float_int || int_float;
    let stringy = matches!(value, Value::String(_) | Value::Array(_));
    if let Some(format) = node.format.as_deref().filter(|_| !stringy)
        && !(compatible || format == found_format)
    {
        return Some(must_be_of_type(name, format, found_format));
    }
    if stringy && node.format.is_some() && !types.contains(&"number") && !types.contains(&"integer")
    {
        return None;
    }
    (!compatible).then(|| must_be_of_type(name, &joined, found))
}

/// maxLength, minLength, pattern: upstream stops at the first failure.
fn string(node: &Node, s: &str, name: &str) -> Option<FieldError> {
    let length = s.chars().count() as u64;
    if let Some(max) = node.max_length.filter(|max| length > *max) {
        let unit = if max == 1 { "byte" } else { "bytes" };
        let detail = format!("may not be more than {max} {unit}");
        return Some(FieldError {
            kind: ErrorType::TooLong,
            path: field_path(name),
            value: Some(BadValue::Str(s.to_owned())),
            detail,
        });
    }
    if let Some(min) = node.min_length.filter(|min| length < *min) {
        return Some(invalid(
            name,
            BadValue::Str(s.to_owned()),
            format!("{name} in body should be at least {min} chars long"),
        ));
    }
    let pattern = node.pattern.as_ref().filter(|p| !p.regex.is_match(s))?;
    Some(invalid(
        name,
        BadValue::Str(s.to_owned()),
        format!("{name} in body should match '{}'", pattern.source),
    ))
}

fn string_format(node: &Node, s: &str, name: &str) -> Option<FieldError> {
    let format = node.format.as_deref()?;
    if format::check(format, s)? {
        return None;
    }
    let detail = format!("{name} in body must be of type {format}: {}", gofmt::quote(s));
    Some(FieldError {
        kind: ErrorType::Invalid,
        path: field_path(name),
        value: Some(BadValue::Str(s.to_owned())),
        detail,
    })
}

/// multipleOf, minimum, maximum. Integers are compared with the bound truncated to an
/// integer and print it as one, as upstream's native-type checks do.
fn number(node: &Node, n: &Number, name: &str, errors: &mut Vec<FieldError>) {
    let value = bad_value(&Value::Number(n.clone()));
    let integer = n.as_i64();
    let data = n.as_f64().unwrap_or_default();
    let bound = |b: f64| match integer {
        Some(_) => format!("{}", b as i64),
        None => go_float(b),
    };
    if let Some(factor) = node.multiple_of {
        let multiple = match integer {
            Some(i) if factor >= 1.0 => i.checked_rem(factor as i64).is_none_or(|rest| rest == 0),
            _ => is_json_integer(if factor < 1.0 { 1.0 / factor * data } else { data / factor }),
        };
        if !multiple {
            errors.push(invalid(
                name,
                value.clone(),
                format!("{name} in body should be a multiple of {}", bound(factor)),
            ));
        }
    }
    if let Some(min) = node.minimum {
        let below = match integer {
            Some(i) => (i < min as i64) || (node.exclusive_minimum && i == min as i64),
            None => data < min || (node.exclusive_minimum && data == min),
        };
        if below {
            let relation =
                if node.exclusive_minimum { "greater than" } else { "greater than or equal to" };
            errors.push(invalid(
                name,
                value.clone(),
                format!("{name} in body should be {relation} {}", bound(min)),
            ));
        }
    }
    if let Some(max) = node.maximum {
        let above = match integer {
            Some(i) => (i > max as i64) || (node.exclusive_maximum && i == max as i64),
            None => data > max || (node.exclusive_maximum && data == max),
        };
        if above {
            let relation =
                if node.exclusive_maximum { "less than" } else { "less than or equal to" };
            errors.push(invalid(
                name,
                value,
                format!("{name} in body should be {relation} {}", bound(max)),
            ));
        }
    }
}

/// Items first, then minItems and maxItems.
fn array(node: &Node, items: &[Value], name: &str, errors: &mut Vec<FieldError>) {
    if let Some(item) = &node.items {
        for (i, value) in items.iter().enumerate() {
            check(item, value, &format!("{name}[{i}]"), errors);
        }
    }
    let size = items.len() as u64;
    if let Some(min) = node.min_items.filter(|min| size < *min) {
        errors.push(invalid(
            name,
            BadValue::Int(size as i64),
            format!("{name} in body should have at least {min} items"),
        ));
    }
    if let Some(max) = node.max_items.filter(|max| size > *max) {
        errors.push(too_many(name, size, max));
    }
}

fn too_many(name: &str, actual: u64, max: u64) -> FieldError {
    let unit = if max == 1 { "item" } else { "items" };
    FieldError {
        kind: ErrorType::TooMany,
        path: field_path(name),
        value: Some(BadValue::Int(actual as i64)),
        detail: format!("must have at most {max} {unit}"),
    }
}

fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

fn enumeration(node: &Node, value: &Value, name: &str, errors: &mut Vec<FieldError>) {
    if node.enumeration.is_empty() || node.enumeration.iter().any(|allowed| same(allowed, value)) {
        return;
    }
    let supported: Vec<String> = node
        .enumeration
        .iter()
        .map(|allowed| match allowed {
            Value::String(s) => s.clone(),
            other => gofmt::json(other),
        })
        .collect();
    let supported: Vec<&str> = supported.iter().map(String::as_str).collect();
    errors.push(FieldError::not_supported(field_path(name), bad_value(value), &supported));
}

/// min/maxProperties (each ending the object's validation), additional properties,
/// properties, then required. The root's (empty name) `apiVersion`, `kind` and `metadata`
/// are the API server's own business, not the schema's.
fn object(node: &Node, map: &Map<String, Value>, name: &str, errors: &mut Vec<FieldError>) {
    let is_root = name.is_empty();
    let keys = map.len() as u64;
    if let Some(min) = node.min_properties.filter(|min| keys < *min) {
        errors.push(invalid(
            name,
            BadValue::Int(keys as i64),
            format!("{name} in body should have at least {min} properties"),
        ));
        return;
    }
    if let Some(max) = node.max_properties.filter(|max| keys > *max) {
        errors.push(too_many(name, keys, max));
        return;
    }
    if let Additional::Schema(additional) = &node.additional {
        for (key, value) in map {
            let type_meta = is_root && is_type_meta_or_metadata(key);
            if !type_meta && !node.properties.contains_key(key) {
                check(additional, value, &child_name(name, key), errors);
            }
        }
    }
    for (key, property) in &node.properties {
        if is_root && is_type_meta_or_metadata(key) {
            continue;
        }
        if let Some(value) = map.get(key) {
            check(property, value, &child_name(name, key), errors);
        }
    }
    for key in &node.required {
        if !map.contains_key(key) {
            errors.push(FieldError::required(field_path(&child_name(name, key)), ""));
        }
    }
}
