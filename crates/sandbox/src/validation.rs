//! Custom resources pruned and validated against their CRD version's `openAPIV3Schema`:
//! unknown fields dropped (unless `x-kubernetes-preserve-unknown-fields`), then types,
//! required fields and enums checked, reported as the API server's 422 Invalid.

use serde_json::{Map, Value, json};

use certgate_api::field::{BadValue, FieldError, Path, aggregate};

use crate::resources::ResourceType;
use crate::status::ApiError;

/// Nesting deeper than this is not validated further (the API server limits depth too).
const MAX_DEPTH: usize = 64;

/// Prunes and validates `object`; a 422 Invalid error in the API server's format when it
/// breaks the schema.
pub fn validate(resource: &ResourceType, object: &mut Value) -> Result<(), ApiError> {
    let Some(schema) = &resource.schema else { return Ok(()) };
    let mut errors = Vec::new();
    if let (Some(root), Some(properties)) =
        (object.as_object_mut(), schema.get("properties").and_then(Value::as_object))
    {
        for (field, value) in root.iter_mut() {
            if matches!(field.as_str(), "apiVersion" | "kind" | "metadata") {
                continue;
            }
            if let Some(field_schema) = properties.get(field) {
                check(value, field_schema, &Path::new(field), 0, &mut errors);
            }
        }
        if !preserves_unknown(schema) {
            root.retain(|field, _| {
                matches!(field.as_str(), "apiVersion" | "kind" | "metadata")
                    || properties.contains_key(field)
            });
        }
        required(root, schema, None, &mut errors);
    }
    let Some(message) = aggregate(&errors) else { return Ok(()) };
    let name = object.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default();
    let causes: Vec<Value> = errors
        .iter()
        .map(|e| {
            // A cause carries the field apart from the message, as `field.Error.ErrorBody()`.
            let text = e.to_string();
            let body = text.strip_prefix(&format!("{}: ", e.path)).unwrap_or(&text).to_owned();
            json!({"reason": reason(e), "message": body, "field": e.path.as_str()})
        })
        .collect();
    Err(ApiError::new(
        422,
        "Invalid",
        format!("{} \"{name}\" is invalid: {message}", resource.qualified_kind()),
    )
    .with_details(
        json!({"name": name, "group": resource.group, "kind": resource.kind, "causes": causes}),
    ))
}

fn reason(error: &FieldError) -> &'static str {
    match error.kind {
        certgate_api::field::ErrorType::Required => "FieldValueRequired",
        certgate_api::field::ErrorType::NotSupported => "FieldValueNotSupported",
        _ => "FieldValueInvalid",
    }
}

fn preserves_unknown(schema: &Value) -> bool {
    schema.get("x-kubernetes-preserve-unknown-fields").and_then(Value::as_bool).unwrap_or(false)
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn bad_value(value: &Value) -> BadValue {
    match value {
        Value::String(s) => BadValue::Str(s.clone()),
        other => BadValue::Json(other.clone()),
    }
}

/// Required properties of the object `map`, reported under `path`.
fn required(
    map: &Map<String, Value>,
    schema: &Value,
    path: Option<&Path>,
    errors: &mut Vec<FieldError>,
) {
    for field in schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        if !map.contains_key(field) {
            let path = path.map_or_else(|| Path::new(field), |p| p.child(field));
            errors.push(FieldError::required(path, ""));
        }
    }
}

/// Validates (and prunes below) `value` at `path` against `schema`.
fn check(
    value: &mut Value,
    schema: &Value,
    path: &Path,
    depth: usize,
    errors: &mut Vec<FieldError>,
) {
    if depth > MAX_DEPTH {
        return;
    }
    if value.is_null() && schema.get("nullable").and_then(Value::as_bool).unwrap_or(false) {
        return;
    }
    let int_or_string =
        schema.get("x-kubernetes-int-or-string").and_then(Value::as_bool).unwrap_or(false);
    let expected = schema.get("type").and_then(Value::as_str).unwrap_or_default();
    let actual = type_name(value);
    let type_ok = match expected {
        "" => true,
        _ if int_or_string => matches!(actual, "integer" | "string"),
        "number" => matches!(actual, "number" | "integer"),
        other => other == actual,
    };
    if !type_ok {
        let wanted = if int_or_string { "integer,string" } else { expected };
        let detail = format!("{path} in body must be of type {wanted}: \"{actual}\"");
        errors.push(FieldError::invalid(path.clone(), BadValue::Str(actual.to_owned()), detail));
        return;
    }
    if let Some(allowed) = schema.get("enum").and_then(Value::as_array)
        && !allowed.contains(value)
    {
        let valid: Vec<String> = allowed
            .iter()
            .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
            .collect();
        let valid: Vec<&str> = valid.iter().map(String::as_str).collect();
        errors.push(FieldError::not_supported(path.clone(), bad_value(value), &valid));
    }
    match value {
        Value::Object(map) => {
            let properties = schema.get("properties").and_then(Value::as_object);
            let additional = schema.get("additionalProperties").filter(|a| a.is_object());
            for (field, item) in map.iter_mut() {
                if let Some(item_schema) = properties.and_then(|p| p.get(field)).or(additional) {
                    check(item, item_schema, &path.child(field), depth + 1, errors);
                }
            }
            if let Some(properties) = properties
                && additional.is_none()
                && !preserves_unknown(schema)
            {
                map.retain(|field, _| properties.contains_key(field));
            }
            required(map, schema, Some(path), errors);
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                for (i, item) in items.iter_mut().enumerate() {
                    check(item, item_schema, &path.index(i), depth + 1, errors);
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn widget() -> ResourceType {
        let mut resource = crate::resources::builtins().remove(0);
        resource.group = "example.com".into();
        resource.kind = "Widget".into();
        resource.schema = Some(json!({
            "type": "object",
            "properties": {"spec": {"type": "object", "required": ["size"], "properties": {
                "size": {"type": "integer"},
                "mode": {"type": "string", "enum": ["a", "b"]},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
            }}},
        }));
        resource
    }

    fn check_widget(object: Value) -> Result<Value, String> {
        let mut object = object;
        validate(&widget(), &mut object).map(|()| object).map_err(|e| e.message)
    }

    #[test]
    fn unknown_fields_are_pruned_except_where_preserved() {
        let object = check_widget(json!({"metadata": {"name": "w"}, "spec": {"size": 1, "x": 1, "labels": {"k": "v"}, "free": {"any": 1}}, "top": 1})).unwrap();
        assert_eq!(
            object,
            json!({"metadata": {"name": "w"}, "spec": {"size": 1, "labels": {"k": "v"}, "free": {"any": 1}}})
        );
    }

    #[test]
    fn type_required_and_enum_errors_read_like_the_api_servers() {
        assert_eq!(
            check_widget(json!({"metadata": {"name": "w"}, "spec": {"size": "big"}})).unwrap_err(),
            "Widget.example.com \"w\" is invalid: spec.size: Invalid value: \"string\": spec.size in body must be of type integer: \"string\""
        );
        assert_eq!(
            check_widget(json!({"metadata": {"name": "w"}, "spec": {}})).unwrap_err(),
            "Widget.example.com \"w\" is invalid: spec.size: Required value"
        );
        assert_eq!(
            check_widget(json!({"metadata": {"name": "w"}, "spec": {"size": 1, "mode": "c"}}))
                .unwrap_err(),
            "Widget.example.com \"w\" is invalid: spec.mode: Unsupported value: \"c\": supported values: \"a\", \"b\""
        );
    }
}
