//! Runs the cel-spec conformance cases that are a single conversion of a literal or a
//! single comparison of two literals, which need no parser or evaluator.

use serde_json::Value as Json;

use super::*;
use crate::check::Type;

const CASES: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/conformance/cel-spec/cases.json");

/// Converts the typed JSON encoding of cases.json (see its README) into a value.
/// `None` for encodings this model cannot hold (such as unknown type names).
pub(crate) fn from_conformance_json(json: &Json) -> Option<Value> {
    let (kind, v) = json.as_object()?.iter().next()?;
    Some(match kind.as_str() {
        "null" => Value::Null,
        "bool" => Value::Bool(v.as_bool()?),
        "int" => Value::Int(v.as_str()?.parse().ok()?),
        "uint" => Value::Uint(v.as_str()?.parse().ok()?),
        "double" => Value::Double(match v {
            Json::String(s) => s.parse().ok()?,
            n => n.as_f64()?,
        }),
        "string" => Value::string(v.as_str()?),
        "bytes" => Value::bytes(
            &v.as_array()?
                .iter()
                .map(|b| b.as_u64().and_then(|b| u8::try_from(b).ok()))
                .collect::<Option<Vec<u8>>>()?,
        ),
        "list" => {
            Value::list(v.as_array()?.iter().map(from_conformance_json).collect::<Option<_>>()?)
        }
        "map" => {
            let entries = v
                .as_array()?
                .iter()
                .map(|kv| {
                    Some((from_conformance_json(kv.get(0)?)?, from_conformance_json(kv.get(1)?)?))
                })
                .collect::<Option<Vec<_>>>()?;
            Value::Map(MapValue::from_entries(entries).ok()?)
        }
        "type" => Value::Type(match v.as_str()? {
            "bool" => Type::Bool,
            "int" => Type::Int,
            "uint" => Type::Uint,
            "double" => Type::Double,
            "string" => Type::String,
            "bytes" => Type::Bytes,
            "null_type" => Type::Null,
            _ => return None,
        }),
        _ => return None,
    })
}

/// A literal as the conformance expressions write them, restricted to the forms
/// that need no escape processing.
fn literal(text: &str) -> Option<Value> {
    let t = text.trim();
    if let Some(inner) = t.strip_prefix('\'').and_then(|r| r.strip_suffix('\'')) {
        return (!inner.contains(['\\', '\''])).then(|| Value::string(inner));
    }
    match t {
        "true" => return Some(Value::Bool(true)),
        "false" => return Some(Value::Bool(false)),
        "null" => return Some(Value::Null),
        _ => {}
    }
    if let Some(u) = t.strip_suffix('u') {
        return u.parse().ok().map(Value::Uint);
    }
    if t.contains(['.', 'e']) {
        return t.parse().ok().map(Value::Double);
    }
    t.parse().ok().map(Value::Int)
}

fn conversion(expr: &str) -> Option<Result<Value, ValueError>> {
    let (name, rest) = expr.split_once('(')?;
    let arg = literal(rest.strip_suffix(')')?)?;
    let f: fn(&Value) -> Result<Value, ValueError> = match name {
        "int" => to_int,
        "uint" => to_uint,
        "double" => to_double,
        "string" => to_string,
        "bytes" => to_bytes,
        "bool" => to_bool,
        "duration" => to_duration,
        "timestamp" => to_timestamp,
        _ => return None,
    };
    Some(f(&arg))
}

fn comparison(expr: &str) -> Option<Result<Value, ValueError>> {
    for op in ["==", "!=", "<=", ">=", "<", ">"] {
        let Some((l, r)) = expr.split_once(op) else { continue };
        let (a, b) = (literal(l)?, literal(r)?);
        let ord = || compare(&a, &b);
        let result = match op {
            "==" => Ok(a == b),
            "!=" => Ok(a != b),
            "<" => ord().map(|o| o.is_some_and(|o| o.is_lt())),
            "<=" => ord().map(|o| o.is_some_and(|o| o.is_le())),
            ">" => ord().map(|o| o.is_some_and(|o| o.is_gt())),
            _ => ord().map(|o| o.is_some_and(|o| o.is_ge())),
        };
        return Some(result.map(Value::Bool));
    }
    None
}

fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        // Exact: the workspace enables serde_json's `float_roundtrip`, so expected doubles
        // are read exactly (1.38e-23 stays 1.38e-23).
        (Value::Double(x), Value::Double(y)) => x == y || (x.is_nan() && y.is_nan()),
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::Uint(x), Value::Uint(y)) => x == y,
        _ => std::mem::discriminant(a) == std::mem::discriminant(b) && a == b,
    }
}

#[test]
fn literal_conversion_and_comparison_cases_of_cel_spec_pass() {
    let text = std::fs::read_to_string(CASES).unwrap_or_else(|e| panic!("reading {CASES}: {e}"));
    let cases: Vec<Json> =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("parsing {CASES}: {e}"));
    let (mut ran, mut failures) = (0, Vec::new());
    for case in &cases {
        let file = case["file"].as_str().unwrap_or_default();
        let expr = case["expr"].as_str().unwrap_or_default();
        let got = match file {
            "conversions" => conversion(expr),
            "comparisons" => comparison(expr),
            _ => None,
        };
        let Some(got) = got else { continue };
        let expect = &case["expect"];
        let ok = if let Some(want) = expect.get("value") {
            let Some(want) = from_conformance_json(want) else { continue };
            got.as_ref().is_ok_and(|g| same(g, &want))
        } else if expect.get("error").is_some() {
            got.is_err()
        } else {
            continue;
        };
        ran += 1;
        if !ok {
            failures.push(format!("{file}/{}: {expr} -> {got:?}, want {expect}", case["name"]));
        }
    }
    assert!(failures.is_empty(), "{} of {ran} failed:\n{}", failures.len(), failures.join("\n"));
    // Guards against the filter silently selecting nothing.
    assert!(ran >= 60, "only {ran} cases selected");
}
