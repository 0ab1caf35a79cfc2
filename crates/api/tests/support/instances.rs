//! Objects built from a CRD's schema, for round trips through the types.

use serde_json::{Map, Value, json};

/// An instance that sets every property `schema` declares, down to `depth` 40 (valid where
/// that is cheap: the first enum value, the minimum, a date-time, base64), `name` being the
/// property's. An object kept as written (`x-kubernetes-preserve-unknown-fields`, no
/// properties) gets fields of every JSON type.
pub fn maximal(schema: &Value, name: &str, depth: usize) -> Value {
    if depth > 40 {
        return Value::Null;
    }
    if schema.get("x-kubernetes-int-or-string").is_some() {
        return json!("1");
    }
    if let Some(first) = schema.get("enum").and_then(|e| e.get(0)) {
        return first.clone();
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("object") => {
            let mut object = Map::new();
            if let Some(props) = schema.get("properties").and_then(Value::as_object) {
                for (name, sub) in props {
                    object.insert(name.clone(), maximal(sub, name, depth + 1));
                }
            } else if let Some(additional) =
                schema.get("additionalProperties").filter(|a| a.is_object())
            {
                object.insert("key".into(), maximal(additional, "key", depth + 1));
            } else if name == "metadata" {
                object.insert("name".into(), json!("n"));
                object.insert("namespace".into(), json!("ns"));
            } else if schema.get("x-kubernetes-preserve-unknown-fields").is_some() {
                object.insert("apiVersion".into(), json!("example.io/v1"));
                object.insert("kind".into(), json!("Anything"));
                object.insert("nested".into(), json!({"list": [1, "two", {"three": null}]}));
            }
            Value::Object(object)
        }
        Some("array") => json!([maximal(&schema["items"], name, depth + 1)]),
        // `minimum` reads back as a float from the typed schema.
        Some("integer") => {
            json!(schema.get("minimum").and_then(Value::as_f64).unwrap_or(1.0) as i64)
        }
        Some("boolean") => json!(true),
        Some("string") => match schema.get("format").and_then(Value::as_str) {
            Some("date-time") => json!("2026-01-02T03:04:05Z"),
            Some("byte") => json!("Y2VydGdhdGU="),
            _ => json!("x"),
        },
        _ => json!({}),
    }
}
