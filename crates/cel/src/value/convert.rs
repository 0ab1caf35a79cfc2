//! The type conversion functions of the CEL standard library: `int()`, `uint()`,
//! `double()`, `string()`, `bytes()`, `bool()`, `duration()`, `timestamp()`.
//! Each accepts its own type as the identity.

use std::sync::Arc;

use super::{Duration, TWO_POW_63, TWO_POW_64, Timestamp, Value, ValueError};

/// `int(v)`: from uint (range-checked), double (truncated toward zero; NaN, infinities
/// and values outside the int range are range errors), string (base 10) and timestamp
/// (Unix seconds).
pub fn to_int(v: &Value) -> Result<Value, ValueError> {
    Ok(Value::Int(match v {
        Value::Int(i) => *i,
        Value::Uint(u) => i64::try_from(*u).map_err(|_| range(u, "int"))?,
        Value::Double(d) => {
            // Both bounds are exclusive, as in cel-go: -2^63 itself is rejected.
            if !(d.is_finite() && *d > -TWO_POW_63 && *d < TWO_POW_63) {
                return Err(range(format_double(*d), "int"));
            }
            #[allow(clippy::cast_possible_truncation)]
            let i = *d as i64;
            i
        }
        Value::String(s) => {
            s.parse::<i64>().map_err(|e| ValueError::parse("int", s, e.to_string()))?
        }
        Value::Timestamp(t) => t.unix_seconds(),
        _ => return Err(ValueError::no_overload("int", &[v])),
    }))
}

/// `uint(v)`: from int (non-negative), double (truncated; range-checked), string.
pub fn to_uint(v: &Value) -> Result<Value, ValueError> {
    Ok(Value::Uint(match v {
        Value::Uint(u) => *u,
        Value::Int(i) => u64::try_from(*i).map_err(|_| range(i, "uint"))?,
        Value::Double(d) => {
            if !(d.is_finite() && *d >= 0.0 && *d < TWO_POW_64) {
                return Err(range(format_double(*d), "uint"));
            }
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let u = *d as u64;
            u
        }
        Value::String(s) => {
            s.parse::<u64>().map_err(|e| ValueError::parse("uint", s, e.to_string()))?
        }
        _ => return Err(ValueError::no_overload("uint", &[v])),
    }))
}

/// `double(v)`: from int and uint (nearest double), string (decimal or exponent
/// notation; `NaN`, `Inf` and `Infinity` in any case, as Go's `ParseFloat` accepts).
pub fn to_double(v: &Value) -> Result<Value, ValueError> {
    #[allow(clippy::cast_precision_loss)]
    Ok(Value::Double(match v {
        Value::Double(d) => *d,
        Value::Int(i) => *i as f64,
        Value::Uint(u) => *u as f64,
        Value::String(s) => {
            s.parse::<f64>().map_err(|e| ValueError::parse("double", s, e.to_string()))?
        }
        _ => return Err(ValueError::no_overload("double", &[v])),
    }))
}

/// `string(v)` of every scalar: doubles as Go's shortest `%g`, bytes as UTF-8
/// (an error when invalid), durations as seconds (`1.5s`), timestamps as RFC 3339.
pub fn to_string(v: &Value) -> Result<Value, ValueError> {
    let s = match v {
        Value::String(s) => return Ok(Value::String(s.clone())),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Uint(u) => u.to_string(),
        Value::Double(d) => format_double(*d),
        Value::Bytes(b) => std::str::from_utf8(b).map_err(|_| ValueError::InvalidUtf8)?.to_owned(),
        Value::Duration(d) => d.to_string(),
        Value::Timestamp(t) => t.to_string(),
        _ => return Err(ValueError::no_overload("string", &[v])),
    };
    Ok(Value::String(Arc::from(s)))
}

/// `bytes(v)`: the UTF-8 encoding of a string.
pub fn to_bytes(v: &Value) -> Result<Value, ValueError> {
    match v {
        Value::Bytes(b) => Ok(Value::Bytes(b.clone())),
        Value::String(s) => Ok(Value::Bytes(Arc::from(s.as_bytes()))),
        _ => Err(ValueError::no_overload("bytes", &[v])),
    }
}

/// `bool(v)`: the spellings Go's `strconv.ParseBool` accepts.
pub fn to_bool(v: &Value) -> Result<Value, ValueError> {
    match v {
        Value::Bool(b) => Ok(Value::Bool(*b)),
        Value::String(s) => match s.as_ref() {
            "1" | "t" | "T" | "true" | "TRUE" | "True" => Ok(Value::Bool(true)),
            "0" | "f" | "F" | "false" | "FALSE" | "False" => Ok(Value::Bool(false)),
            _ => Err(ValueError::parse(
                "bool",
                s,
                "expected one of 1, t, T, true, TRUE, True, 0, f, F, false, FALSE, False",
            )),
        },
        _ => Err(ValueError::no_overload("bool", &[v])),
    }
}

/// `duration(v)`: from a Go duration string such as `1h30m`.
pub fn to_duration(v: &Value) -> Result<Value, ValueError> {
    match v {
        Value::Duration(d) => Ok(Value::Duration(*d)),
        Value::String(s) => Ok(Value::Duration(Duration::parse(s)?)),
        _ => Err(ValueError::no_overload("duration", &[v])),
    }
}

/// `timestamp(v)`: from an RFC 3339 string or from Unix seconds.
pub fn to_timestamp(v: &Value) -> Result<Value, ValueError> {
    match v {
        Value::Timestamp(t) => Ok(Value::Timestamp(*t)),
        Value::String(s) => Ok(Value::Timestamp(Timestamp::parse(s)?)),
        Value::Int(i) => Ok(Value::Timestamp(Timestamp::from_unix_seconds(*i)?)),
        _ => Err(ValueError::no_overload("timestamp", &[v])),
    }
}

fn range(value: impl ToString, target: &'static str) -> ValueError {
    ValueError::Range { value: value.to_string(), target }
}

/// Formats a double as Go's `strconv.FormatFloat(d, 'g', -1, 64)`: the shortest
/// digits that round-trip, in exponent form (`1e+06`, `1.5e-05`) when the decimal
/// exponent is below -4 or at least 6 (Go's threshold for the shortest precision).
pub fn format_double(d: f64) -> String {
    if d.is_nan() {
        return "NaN".to_owned();
    }
    if d.is_infinite() {
        return if d > 0.0 { "+Inf" } else { "-Inf" }.to_owned();
    }
    if d == 0.0 {
        return if d.is_sign_negative() { "-0" } else { "0" }.to_owned();
    }
    // Rust's `{:e}` gives the shortest round-trip digits, e.g. `-1.2345e6`.
    let sci = format!("{d:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    if !(-4..6).contains(&exp) {
        let exp_sign = if exp < 0 { '-' } else { '+' };
        return format!("{sign}{mantissa}e{exp_sign}{:02}", exp.unsigned_abs());
    }
    let point = exp + 1;
    if point <= 0 {
        let zeros = "0".repeat(usize::try_from(-point).unwrap_or(0));
        format!("{sign}0.{zeros}{digits}")
    } else {
        let point = usize::try_from(point).unwrap_or(0);
        if point >= digits.len() {
            format!("{sign}{digits}{}", "0".repeat(point - digits.len()))
        } else {
            let (int, frac) = digits.split_at(point);
            format!("{sign}{int}.{frac}")
        }
    }
}
