//! Arithmetic operators with CEL's overflow rules.
//!
//! CEL has no implicit numeric conversions in arithmetic: `1 + 1u` is `no such
//! overload`. Integer overflow is an error rather than wrapping, doubles follow IEEE
//! (division by zero gives an infinity), and time arithmetic is range-checked.

use std::sync::Arc;

use super::{Value, ValueError};

/// Longest string, bytes or list a concatenation may produce; the cost limit normally
/// stops runaway concatenation first, this bounds memory whatever the budget.
pub const MAX_CONCAT_LEN: usize = 64 * 1024 * 1024;

/// `a + b`.
pub fn add(a: &Value, b: &Value) -> Result<Value, ValueError> {
    Ok(match (a, b) {
        (Value::Int(x), Value::Int(y)) => {
            Value::Int(x.checked_add(*y).ok_or(ValueError::IntOverflow)?)
        }
        (Value::Uint(x), Value::Uint(y)) => {
            Value::Uint(x.checked_add(*y).ok_or(ValueError::UintOverflow)?)
        }
        (Value::Double(x), Value::Double(y)) => Value::Double(x + y),
        (Value::String(x), Value::String(y)) => {
            check_len(x.len(), y.len())?;
            Value::String(Arc::from([x.as_ref(), y.as_ref()].concat()))
        }
        (Value::Bytes(x), Value::Bytes(y)) => {
            check_len(x.len(), y.len())?;
            Value::Bytes(Arc::from([x.as_ref(), y.as_ref()].concat()))
        }
        (Value::List(x), Value::List(y)) => {
            check_len(x.len(), y.len())?;
            Value::List(x.iter().chain(y.iter()).cloned().collect())
        }
        (Value::Duration(x), Value::Duration(y)) => Value::Duration(x.checked_add(*y)?),
        (Value::Timestamp(t), Value::Duration(d)) | (Value::Duration(d), Value::Timestamp(t)) => {
            Value::Timestamp(t.checked_add(*d)?)
        }
        _ => return Err(ValueError::no_overload("_+_", &[a, b])),
    })
}

fn check_len(a: usize, b: usize) -> Result<(), ValueError> {
    if a.saturating_add(b) > MAX_CONCAT_LEN {
        return Err(ValueError::TooLarge { limit: MAX_CONCAT_LEN });
    }
    Ok(())
}

/// `a - b`.
pub fn sub(a: &Value, b: &Value) -> Result<Value, ValueError> {
    Ok(match (a, b) {
        (Value::Int(x), Value::Int(y)) => {
            Value::Int(x.checked_sub(*y).ok_or(ValueError::IntOverflow)?)
        }
        (Value::Uint(x), Value::Uint(y)) => {
            Value::Uint(x.checked_sub(*y).ok_or(ValueError::UintOverflow)?)
        }
        (Value::Double(x), Value::Double(y)) => Value::Double(x - y),
        (Value::Duration(x), Value::Duration(y)) => Value::Duration(x.checked_sub(*y)?),
        (Value::Timestamp(t), Value::Duration(d)) => Value::Timestamp(t.checked_sub(*d)?),
        (Value::Timestamp(x), Value::Timestamp(y)) => Value::Duration(x.since(*y)?),
        _ => return Err(ValueError::no_overload("_-_", &[a, b])),
    })
}

/// `a * b`.
pub fn mul(a: &Value, b: &Value) -> Result<Value, ValueError> {
    Ok(match (a, b) {
        (Value::Int(x), Value::Int(y)) => {
            Value::Int(x.checked_mul(*y).ok_or(ValueError::IntOverflow)?)
        }
        (Value::Uint(x), Value::Uint(y)) => {
            Value::Uint(x.checked_mul(*y).ok_or(ValueError::UintOverflow)?)
        }
        (Value::Double(x), Value::Double(y)) => Value::Double(x * y),
        _ => return Err(ValueError::no_overload("_*_", &[a, b])),
    })
}

/// `a / b`; integer division truncates toward zero.
pub fn div(a: &Value, b: &Value) -> Result<Value, ValueError> {
    Ok(match (a, b) {
        (Value::Int(_), Value::Int(0)) | (Value::Uint(_), Value::Uint(0)) => {
            return Err(ValueError::DivisionByZero);
        }
        // `i64::MIN / -1` is the one overflowing quotient.
        (Value::Int(x), Value::Int(y)) => {
            Value::Int(x.checked_div(*y).ok_or(ValueError::IntOverflow)?)
        }
        (Value::Uint(x), Value::Uint(y)) => Value::Uint(x / y),
        (Value::Double(x), Value::Double(y)) => Value::Double(x / y),
        _ => return Err(ValueError::no_overload("_/_", &[a, b])),
    })
}

/// `a % b`; the result has the sign of `a`, as in Go.
pub fn rem(a: &Value, b: &Value) -> Result<Value, ValueError> {
    Ok(match (a, b) {
        (Value::Int(_), Value::Int(0)) | (Value::Uint(_), Value::Uint(0)) => {
            return Err(ValueError::ModulusByZero);
        }
        (Value::Int(x), Value::Int(y)) => {
            Value::Int(x.checked_rem(*y).ok_or(ValueError::IntOverflow)?)
        }
        (Value::Uint(x), Value::Uint(y)) => Value::Uint(x % y),
        _ => return Err(ValueError::no_overload("_%_", &[a, b])),
    })
}

/// `-a`.
pub fn neg(a: &Value) -> Result<Value, ValueError> {
    Ok(match a {
        Value::Int(x) => Value::Int(x.checked_neg().ok_or(ValueError::IntOverflow)?),
        Value::Double(x) => Value::Double(-x),
        Value::Duration(d) => Value::Duration(d.checked_neg()?),
        _ => return Err(ValueError::no_overload("-_", &[a])),
    })
}
