//! `size`, membership (`in`) and indexing (`_[_]`) of strings, bytes, lists and maps.

use crate::eval::{FnResult, Functions, Impl};
use crate::value::{TWO_POW_63, Value, ValueError, format_double};

/// Longest key text an error message repeats.
const MAX_KEY_CHARS: usize = 64;

const SIZE_OVERLOADS: [&str; 8] = [
    "size_bytes",
    "size_list",
    "size_map",
    "size_string",
    "bytes_size",
    "list_size",
    "map_size",
    "string_size",
];

pub(super) fn register(functions: &mut Functions) {
    for id in SIZE_OVERLOADS {
        functions.add(id, Impl::Unary(size));
    }
    functions.add("in_list", Impl::Binary(in_list));
    functions.add("in_map", Impl::Binary(in_map));
    functions.add("index_list", Impl::Binary(index));
    functions.add("index_map", Impl::Binary(index));
}

/// `size(v)`: code points of a string, bytes of a bytes value, elements of a list or
/// entries of a map.
fn size(v: &Value) -> FnResult {
    let len = match v {
        Value::String(s) => s.chars().count(),
        Value::Bytes(b) => b.len(),
        Value::List(l) => l.len(),
        Value::Map(m) => m.len(),
        _ => return Err(ValueError::no_overload("size", &[v])),
    };
    // A length always fits: no allocation holds more than `isize::MAX` elements.
    Ok(Value::Int(i64::try_from(len).unwrap_or(i64::MAX)))
}

/// `x in list`: whether an element equals `x` under CEL's heterogeneous equality, so
/// `3.0 in [1, 2, 3]` holds.
fn in_list(element: &Value, list: &Value) -> FnResult {
    match list {
        Value::List(items) => Ok(Value::Bool(items.iter().any(|item| item == element))),
        _ => Err(ValueError::no_overload("@in", &[element, list])),
    }
}

/// `k in map`: whether the map has key `k`; numeric keys are found across int, uint
/// and integral doubles, as in lookups.
fn in_map(key: &Value, map: &Value) -> FnResult {
    match map {
        Value::Map(m) => Ok(Value::Bool(m.get(key).is_some())),
        _ => Err(ValueError::no_overload("@in", &[key, map])),
    }
}

/// `container[index]` of a list or a map.
fn index(container: &Value, index: &Value) -> FnResult {
    match container {
        Value::List(items) => {
            let position = list_position(container, index)?;
            usize::try_from(position)
                .ok()
                .and_then(|p| items.get(p))
                .cloned()
                .ok_or_else(|| ValueError::Message(format!("index out of bounds: {position}")))
        }
        Value::Map(m) => m
            .get(index)
            .cloned()
            .ok_or_else(|| ValueError::Message(format!("no such key: {}", key_text(index)))),
        _ => Err(ValueError::no_overload("_[_]", &[container, index])),
    }
}

/// The position a list index stands for: an int, a uint, or (reached through `dyn`)
/// a double with an integral value, as cel-go accepts.
fn list_position(list: &Value, index: &Value) -> Result<i64, ValueError> {
    let out_of_bounds = |text: String| ValueError::Message(format!("index out of bounds: {text}"));
    match index {
        Value::Int(i) => Ok(*i),
        Value::Uint(u) => i64::try_from(*u).map_err(|_| out_of_bounds(u.to_string())),
        Value::Double(d) if d.fract() != 0.0 || !d.is_finite() => Err(ValueError::Message(
            format!("unsupported index value {} in list", format_double(*d)),
        )),
        Value::Double(d) if d.abs() < TWO_POW_63 => {
            // Integral and within the int range, so the conversion is exact.
            #[allow(clippy::cast_possible_truncation)]
            Ok(*d as i64)
        }
        Value::Double(d) => Err(out_of_bounds(format_double(*d))),
        _ => Err(ValueError::no_overload("_[_]", &[list, index])),
    }
}

/// A missing key as cel-go prints it: strings bare (cut to a bounded length, since
/// keys may come from requests), numbers in CEL notation, other kinds by type name.
fn key_text(key: &Value) -> String {
    match key {
        Value::String(s) => s.chars().take(MAX_KEY_CHARS).collect(),
        Value::Int(i) => i.to_string(),
        Value::Uint(u) => u.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Double(d) => format_double(*d),
        other => other.type_of().to_string(),
    }
}
