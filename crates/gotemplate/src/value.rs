//! Conversions between JSON and template values.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::Value;

/// JSON → template value. Integers that fit `i64` become `Int`, other integers `Uint`, other
/// numbers `Float`; objects become maps (Go iterates them in key order anyway).
pub fn to_value(json: &serde_json::Value) -> Value {
    match json {
        serde_json::Value::Null => Value::Nil,
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                Value::Int(i)
            } else if let Some(u) = n.as_u64() {
                Value::Uint(u)
            } else {
                Value::Float(n.as_f64().unwrap_or(0.0))
            }
        }
        serde_json::Value::String(s) => Value::String(Arc::from(s.as_str())),
        serde_json::Value::Array(items) => Value::List(items.iter().map(to_value).collect()),
        serde_json::Value::Object(map) => {
            let entries: BTreeMap<Arc<str>, Value> =
                map.iter().map(|(k, v)| (Arc::from(k.as_str()), to_value(v))).collect();
            Value::Map(Arc::new(entries))
        }
    }
}

/// Template value → JSON. Functions become `null` (JSON cannot carry them); non-finite floats
/// become `null` as `encoding/json` would refuse them.
pub fn from_value(value: &Value) -> serde_json::Value {
    match value {
        Value::Nil | Value::Function(_) => serde_json::Value::Null,
        Value::Bool(b) => serde_json::Value::Bool(*b),
        Value::Int(i) => serde_json::Value::from(*i),
        Value::Uint(u) => serde_json::Value::from(*u),
        Value::Float(f) => serde_json::Number::from_f64(*f)
            .map_or(serde_json::Value::Null, serde_json::Value::Number),
        Value::String(s) => serde_json::Value::String(s.to_string()),
        Value::List(items) => serde_json::Value::Array(items.iter().map(from_value).collect()),
        Value::Map(map) => serde_json::Value::Object(
            map.iter().map(|(k, v)| (k.to_string(), from_value(v))).collect(),
        ),
    }
}

/// Go's name of a value's type in error texts (`string`, `int`, `float64`, `bool`,
/// `[]interface {}`, `map[string]interface {}`, `<nil>`).
///
/// A `Uint` up to 255 is a byte (`uint8`), which only `index` of a string makes: data
/// integers become `Uint` only above `i64::MAX` ([`to_value`]).
pub fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Nil => "<nil>",
        Value::Bool(_) => "bool",
        Value::Int(_) => "int",
        Value::Uint(u) if *u <= u64::from(u8::MAX) => "uint8",
        Value::Uint(_) => "uint64",
        Value::Float(_) => "float64",
        Value::String(_) => "string",
        Value::List(_) => "[]interface {}",
        Value::Map(_) => "map[string]interface {}",
        Value::Function(_) => "func",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_round_trips_through_template_values() {
        let json = serde_json::json!({
            "b": [1, -2, 18446744073709551615u64, 1.5, "s", null, true],
            "a": {"x": {}}
        });
        assert_eq!(from_value(&to_value(&json)), json);
    }

    #[test]
    fn type_names_are_gos() {
        assert_eq!(type_name(&to_value(&serde_json::json!("x"))), "string");
        assert_eq!(type_name(&to_value(&serde_json::json!({}))), "map[string]interface {}");
        assert_eq!(type_name(&Value::Nil), "<nil>");
        assert_eq!(type_name(&Value::Uint(97)), "uint8");
        assert_eq!(type_name(&Value::Uint(u64::MAX)), "uint64");
    }
}
