//! Implementations of cel-go's optional-value library declared by
//! [`crate::check::add_optionals`] (`x.?f` itself, `select_optional_field`, is the
//! interpreter's).
//!
//! `or` and `orValue` are plain eager functions here: both arguments arrive evaluated.
//! Skipping the evaluation of the alternative when the receiver has a value is the
//! interpreter's business.

#[cfg(test)]
mod tests;

use crate::eval::{Functions, Impl};
use crate::value::{MIN_TIMESTAMP_SECONDS, MapKey, Value, ValueError};

pub(super) fn register(functions: &mut Functions) {
    functions.add("optional_of", Impl::Unary(|v| Ok(some(v.clone()))));
    functions.add("optional_ofNonZeroValue", Impl::Unary(of_non_zero_value));
    functions.add("optional_none", Impl::Nullary(|| Ok(Value::Optional(None))));
    functions.add("optional_unwrap", Impl::Unary(unwrap));
    functions.add("optional_hasValue", Impl::Unary(has_value));
    functions.add("optional_value", Impl::Unary(value));
    functions.add("optional_or_optional", Impl::Binary(or));
    functions.add("optional_orValue_value", Impl::Binary(or_value));
    functions.add("list_optindex_optional_int", Impl::Binary(opt_index));
    functions.add("optional_list_optindex_optional_int", Impl::Binary(opt_index));
    functions.add("map_optindex_optional_value", Impl::Binary(opt_index));
    functions.add("optional_map_optindex_optional_value", Impl::Binary(opt_index));
    functions.add("optional_list_index_int", Impl::Binary(opt_index));
    functions.add("optional_map_index_value", Impl::Binary(opt_index));
}

fn some(v: Value) -> Value {
    Value::Optional(Some(Box::new(v)))
}

/// `optional.ofNonZeroValue(v)`: `optional.none()` for the zero value of `v`'s type.
fn of_non_zero_value(v: &Value) -> Result<Value, ValueError> {
    Ok(if is_zero(v) { Value::Optional(None) } else { some(v.clone()) })
}

/// Whether `v` is its type's zero value, as cel-go's `IsZeroValue`: `null`, `false`,
/// `0`, `0u`, `0.0` (either sign), empty strings, bytes, lists and maps, a zero
/// duration, and an object with no field set. The zero timestamp is Go's zero
/// `time.Time`, `0001-01-01T00:00:00Z` (cel-go asks `time.Time.IsZero`), not the Unix
/// epoch. Optionals, types and library values have no zero value: cel-go wraps them.
fn is_zero(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Int(i) => *i == 0,
        Value::Uint(u) => *u == 0,
        Value::Double(d) => *d == 0.0,
        Value::String(s) => s.is_empty(),
        Value::Bytes(b) => b.is_empty(),
        Value::List(items) => items.is_empty(),
        Value::Map(map) => map.is_empty(),
        Value::Duration(d) => d.total_nanos() == 0,
        Value::Timestamp(t) => t.total_nanos() == i128::from(MIN_TIMESTAMP_SECONDS) * 1_000_000_000,
        Value::Object(object) => object.fields().next().is_none(),
        Value::Optional(_) | Value::Type(_) | Value::Opaque(_) => false,
    }
}

/// `optional.unwrap(list)`: the values of the list's non-empty optionals, in order.
fn unwrap(list: &Value) -> Result<Value, ValueError> {
    let Value::List(items) = list else {
        return Err(ValueError::no_overload("optional.unwrap", &[list]));
    };
    let mut values = Vec::with_capacity(items.len());
    for item in items.iter() {
        match item {
            Value::Optional(Some(v)) => values.push(v.as_ref().clone()),
            Value::Optional(None) => {}
            _ => return Err(ValueError::no_overload("optional.unwrap", &[list])),
        }
    }
    Ok(Value::list(values))
}

fn has_value(opt: &Value) -> Result<Value, ValueError> {
    match opt {
        Value::Optional(inner) => Ok(Value::Bool(inner.is_some())),
        _ => Err(ValueError::no_overload("hasValue", &[opt])),
    }
}

/// `opt.value()`: an error for `optional.none()`, with cel-go's text.
fn value(opt: &Value) -> Result<Value, ValueError> {
    match opt {
        Value::Optional(Some(v)) => Ok(v.as_ref().clone()),
        Value::Optional(None) => Err(ValueError::Message("optional.none() dereference".to_owned())),
        _ => Err(ValueError::no_overload("value", &[opt])),
    }
}

/// `opt.or(other)`: `opt` when it has a value, else `other`.
fn or(opt: &Value, other: &Value) -> Result<Value, ValueError> {
    match (opt, other) {
        (Value::Optional(Some(_)), Value::Optional(_)) => Ok(opt.clone()),
        (Value::Optional(None), Value::Optional(_)) => Ok(other.clone()),
        _ => Err(ValueError::no_overload("or", &[opt, other])),
    }
}

/// `opt.orValue(default)`: the value of `opt`, else `default`.
fn or_value(opt: &Value, default: &Value) -> Result<Value, ValueError> {
    match opt {
        Value::Optional(Some(v)) => Ok(v.as_ref().clone()),
        Value::Optional(None) => Ok(default.clone()),
        _ => Err(ValueError::no_overload("orValue", &[opt, default])),
    }
}

/// `container[?key]`, and `container[key]` on an optional container: the element as an
/// optional, `optional.none()` when the container is `optional.none()` or has no such
/// index or key.
fn opt_index(container: &Value, key: &Value) -> Result<Value, ValueError> {
    let target = match container {
        Value::Optional(None) => return Ok(Value::Optional(None)),
        Value::Optional(Some(inner)) => inner.as_ref(),
        other => other,
    };
    let found = match target {
        Value::List(items) => {
            let index = list_index(key).ok_or_else(|| no_index(container, key))?;
            index.and_then(|i| items.get(i))
        }
        Value::Map(map) => {
            // Kinds that can never be keys are errors, as when indexing a map directly;
            // a double without an integral value simply finds nothing.
            if !matches!(key, Value::Double(_)) {
                MapKey::from_value(key)?;
            }
            map.get(key)
        }
        _ => return Err(no_index(container, key)),
    };
    Ok(Value::Optional(found.map(|v| Box::new(v.clone()))))
}

/// The position an index value names: `None` for a kind that cannot index a list,
/// `Some(None)` for a number that is not a position (negative, fractional, too big).
fn list_index(key: &Value) -> Option<Option<usize>> {
    match key {
        Value::Int(i) => Some(usize::try_from(*i).ok()),
        Value::Uint(u) => Some(usize::try_from(*u).ok()),
        Value::Double(_) => Some(match MapKey::for_lookup(key) {
            Some(MapKey::Int(i)) => usize::try_from(i).ok(),
            _ => None,
        }),
        _ => None,
    }
}

fn no_index(container: &Value, key: &Value) -> ValueError {
    ValueError::no_overload("_[?_]", &[container, key])
}
