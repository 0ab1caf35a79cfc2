//! What is compared of an answer: the status code, the media type, the `Warning` headers and
//! the body (watch events in order), with the values each server makes up for itself replaced
//! by placeholders: uids, timestamps, resourceVersions, continue tokens, the random suffix of
//! generated names and issued tokens. Everything else is kept.

use serde_json::{Map, Value, json};

use super::client::Response;

/// Bounds the walk (a body nested deeper is compared as it is below this depth).
const MAX_DEPTH: usize = 64;

/// `update_managers`: whether `managedFields` entries of `operation: Update` are compared;
/// when not, they are dropped on both sides (the sandbox records only appliers' managers, one
/// known difference that would otherwise show in every answer carrying an object; the steps
/// marked `update_managers: true` keep it in the count).
pub fn normalize(response: &Response, update_managers: bool) -> Value {
    let mut body = response.body.clone();
    walk(&mut body, 0, update_managers);
    let body = sorted(body, 0);
    // The media type only: parameters such as `charset=utf-8` are the HTTP layer's choice.
    let media = response.content_type.split(';').next().unwrap_or_default().trim();
    json!({
        "status": response.status,
        "contentType": media,
        "warnings": response.warnings,
        "body": body,
    })
}

fn walk(value: &mut Value, depth: usize, update_managers: bool) {
    if depth > MAX_DEPTH {
        return;
    }
    match value {
        Value::Array(items) => {
            items.iter_mut().for_each(|item| walk(item, depth + 1, update_managers))
        }
        Value::Object(map) => {
            if let Some(Value::Object(metadata)) = map.get_mut("metadata") {
                metadata_fields(metadata, update_managers);
            }
            if let Some(Value::Object(details)) = map.get_mut("details") {
                replace(details, "uid", "<uid>");
            }
            // TokenRequest: a fresh token and its expiry each time.
            if map.get("kind").and_then(Value::as_str) == Some("TokenRequest")
                && let Some(Value::Object(status)) = map.get_mut("status")
            {
                replace(status, "token", "<token>");
                replace(status, "expirationTimestamp", "<time>");
            }
            // Conditions' transition times (CRDs, and any object with conditions).
            replace(map, "lastTransitionTime", "<time>");
            map.values_mut().for_each(|item| walk(item, depth + 1, update_managers));
        }
        _ => {}
    }
}

/// The same value with every object's keys in order: JSON gives key order no meaning, and the
/// two servers order fields differently.
fn sorted(value: Value, depth: usize) -> Value {
    match value {
        Value::Object(map) if depth <= MAX_DEPTH => {
            let mut entries: Vec<(String, Value)> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(entries.into_iter().map(|(k, v)| (k, sorted(v, depth + 1))).collect())
        }
        Value::Array(items) if depth <= MAX_DEPTH => {
            Value::Array(items.into_iter().map(|item| sorted(item, depth + 1)).collect())
        }
        other => other,
    }
}

fn metadata_fields(metadata: &mut Map<String, Value>, update_managers: bool) {
    replace(metadata, "uid", "<uid>");
    replace(metadata, "creationTimestamp", "<time>");
    replace(metadata, "deletionTimestamp", "<time>");
    replace(metadata, "resourceVersion", "<rv>");
    replace(metadata, "continue", "<continue>");
    if let Some(Value::Array(fields)) = metadata.get_mut("managedFields") {
        if !update_managers {
            fields.retain(|entry| entry["operation"] != "Update");
        }
        for entry in fields.iter_mut().filter_map(Value::as_object_mut) {
            replace(entry, "time", "<time>");
        }
    }
    if metadata.get("managedFields").and_then(Value::as_array).is_some_and(Vec::is_empty) {
        metadata.remove("managedFields");
    }
    let prefix = metadata.get("generateName").and_then(Value::as_str).map(str::to_owned);
    if let (Some(prefix), Some(Value::String(name))) = (prefix, metadata.get_mut("name"))
        && name.starts_with(&prefix)
    {
        *name = format!("{prefix}<suffix>");
    }
}

/// Replaces `key`'s value when it has one (null and "" stay: whether there is a value is
/// compared).
fn replace(map: &mut Map<String, Value>, key: &str, placeholder: &str) {
    if let Some(value) = map.get_mut(key)
        && !value.is_null()
        && value.as_str() != Some("")
    {
        *value = Value::String(placeholder.to_owned());
    }
}

#[test]
fn made_up_values_are_replaced_and_everything_else_is_kept() {
    let response = Response {
        status: 201,
        content_type: "application/json; charset=utf-8".to_owned(),
        warnings: vec![],
        body: json!({"kind": "ConfigMap", "metadata": {
            "name": "gen-x7k2p", "generateName": "gen-", "uid": "1b2c", "resourceVersion": "42",
            "creationTimestamp": "2026-01-01T00:00:00Z", "labels": {"uid": "kept"},
            "managedFields": [
                {"manager": "curl", "operation": "Update", "time": "2026-01-01T00:00:00Z"},
                {"manager": "conf", "operation": "Apply", "time": "2026-01-01T00:00:00Z"}]}}),
    };
    let expected_metadata = json!({
        "creationTimestamp": "<time>", "generateName": "gen-", "labels": {"uid": "kept"},
        "managedFields": [{"manager": "conf", "operation": "Apply", "time": "<time>"}],
        "name": "gen-<suffix>", "resourceVersion": "<rv>", "uid": "<uid>"});
    let normalized = normalize(&response, false);
    assert_eq!(normalized["contentType"], "application/json");
    assert_eq!(normalized["body"]["metadata"], expected_metadata);
    // With update_managers, the Update entry stays.
    let kept = normalize(&response, true);
    assert_eq!(kept["body"]["metadata"]["managedFields"].as_array().map(Vec::len), Some(2));
}
