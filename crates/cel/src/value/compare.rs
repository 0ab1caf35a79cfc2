//! CEL equality and ordering.
//!
//! Equality is heterogeneous for numbers (`1 == 1u == 1.0`), IEEE for doubles (NaN
//! equals nothing), deep for lists and maps, and simply `false` between values of
//! different kinds. Ordering is defined within bool, string (by code point), bytes,
//! duration and timestamp, and across int, uint and double by numeric value; any other
//! pair is `no such overload`.

use std::cmp::Ordering;

use super::{TWO_POW_63, TWO_POW_64, Value, ValueError};

/// Deepest nesting of lists and maps that equality walks; deeper values compare
/// unequal rather than exhausting the stack. Values built by the evaluator are bounded
/// by the expression nesting limit, far below this.
pub const MAX_COMPARE_DEPTH: usize = 256;

impl PartialEq for Value {
    fn eq(&self, other: &Self) -> bool {
        equals(self, other, 0)
    }
}

fn equals(a: &Value, b: &Value, depth: usize) -> bool {
    if depth > MAX_COMPARE_DEPTH {
        return false;
    }
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Bytes(x), Value::Bytes(y)) => x == y,
        (Value::Duration(x), Value::Duration(y)) => x == y,
        (Value::Timestamp(x), Value::Timestamp(y)) => x == y,
        (Value::Type(x), Value::Type(y)) => x == y,
        (Value::List(x), Value::List(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| equals(p, q, depth + 1))
        }
        (Value::Map(x), Value::Map(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(&k.to_value()).is_some_and(|w| equals(v, w, depth + 1)))
        }
        (Value::Optional(x), Value::Optional(y)) => match (x, y) {
            (None, None) => true,
            (Some(p), Some(q)) => equals(p, q, depth + 1),
            _ => false,
        },
        (Value::Opaque(x), Value::Opaque(y)) => x.equals(y.as_ref()),
        (Value::Object(x), Value::Object(y)) => x == y,
        _ => numeric_cmp(a, b) == Some(Some(Ordering::Equal)),
    }
}

/// Compares two numbers of any numeric kinds by value. Outer `None`: not both numbers;
/// inner `None`: a NaN is involved.
fn numeric_cmp(a: &Value, b: &Value) -> Option<Option<Ordering>> {
    let ord = match (a, b) {
        (Value::Int(x), Value::Int(y)) => Some(x.cmp(y)),
        (Value::Uint(x), Value::Uint(y)) => Some(x.cmp(y)),
        (Value::Double(x), Value::Double(y)) => x.partial_cmp(y),
        (Value::Int(x), Value::Uint(y)) => Some(int_uint(*x, *y)),
        (Value::Uint(x), Value::Int(y)) => Some(int_uint(*y, *x).reverse()),
        (Value::Int(x), Value::Double(y)) => int_double(*x, *y),
        (Value::Double(x), Value::Int(y)) => int_double(*y, *x).map(Ordering::reverse),
        (Value::Uint(x), Value::Double(y)) => uint_double(*x, *y),
        (Value::Double(x), Value::Uint(y)) => uint_double(*y, *x).map(Ordering::reverse),
        _ => return None,
    };
    Some(ord)
}

fn int_uint(i: i64, u: u64) -> Ordering {
    u64::try_from(i).map_or(Ordering::Less, |i| i.cmp(&u))
}

/// As cel-go compares an int with a double: outside the int range by range, inside it
/// by converting the int to double, which rounds (so `9223372036854775807 <
/// 9223372036854775808.0` is false, as there).
fn int_double(i: i64, d: f64) -> Option<Ordering> {
    if d.is_nan() {
        return None;
    }
    if d > TWO_POW_63 {
        return Some(Ordering::Less);
    }
    if d < -TWO_POW_63 {
        return Some(Ordering::Greater);
    }
    #[allow(clippy::cast_precision_loss)] // The rounding is the reference behaviour.
    (i as f64).partial_cmp(&d)
}

fn uint_double(u: u64, d: f64) -> Option<Ordering> {
    if d.is_nan() {
        return None;
    }
    if d >= TWO_POW_64 {
        return Some(Ordering::Less);
    }
    if d < 0.0 {
        return Some(Ordering::Greater);
    }
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let t = d.trunc() as u64;
    Some(u.cmp(&t).then_with(|| 0.0_f64.partial_cmp(&d.fract()).unwrap_or(Ordering::Equal)))
}

/// CEL ordering for `<`, `<=`, `>`, `>=`. `Ok(None)` when a NaN is involved (every
/// comparison with NaN is `false`); an error for kinds that have no order.
pub fn compare(a: &Value, b: &Value) -> Result<Option<Ordering>, ValueError> {
    if let Some(ord) = numeric_cmp(a, b) {
        return Ok(ord);
    }
    let ord = match (a, b) {
        (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        // Rust's `str` order is byte order of UTF-8, which equals code point order.
        (Value::String(x), Value::String(y)) => x.cmp(y),
        (Value::Bytes(x), Value::Bytes(y)) => x.cmp(y),
        (Value::Duration(x), Value::Duration(y)) => x.cmp(y),
        (Value::Timestamp(x), Value::Timestamp(y)) => x.cmp(y),
        _ => return Err(ValueError::no_overload("_<_", &[a, b])),
    };
    Ok(Some(ord))
}
