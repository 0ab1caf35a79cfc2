//! Type conversions: sprig's `strval`/`strslice` and spf13/cast's number rules, which every
//! number-taking sprig function applies to its `interface{}` arguments.

use certgate_gofmt::format_float_g;
use certgate_gotemplate::{FuncMap, Value, budget};

use crate::args::{Arity, reg, s, str_list};
use crate::gofmt::{parse_float, parse_int, sprint};

/// sprig's `toString`: strings unchanged, everything else as `%v` prints it.
pub fn strval(v: &Value) -> String {
    match v {
        Value::String(s) => s.to_string(),
        other => sprint(other),
    }
}

/// 2^63, the first float past `i64::MAX` (exactly representable).
const TWO_POW_63: f64 = 9_223_372_036_854_775_808.0;

/// `cast.ToInt64`: errors become 0. Floats truncate; strings parse with base 0 after a
/// trailing `.0…` is dropped; booleans are 1/0.
pub fn to_int64(v: &Value) -> i64 {
    match v {
        Value::Int(n) => *n,
        Value::Uint(n) => *n as i64,
        // Go's conversion on amd64 (the oracle's platform): out of range and NaN give the
        // "integer indefinite" value, i64::MIN, where Rust saturates.
        Value::Float(f) if (-TWO_POW_63..TWO_POW_63).contains(f) => *f as i64,
        Value::Float(_) => i64::MIN,
        Value::Bool(b) => i64::from(*b),
        Value::String(st) => parse_int(trim_zero_decimal(st), true).unwrap_or(0),
        _ => 0,
    }
}

/// cast drops a fractional part made only of zeros (`"12.00"` → `"12"`).
fn trim_zero_decimal(st: &str) -> &str {
    match st.split_once('.') {
        Some((int, frac)) if !int.is_empty() && frac.chars().all(|c| c == '0') => int,
        _ => st,
    }
}

/// `cast.ToFloat64`: errors become 0.
pub fn to_float64(v: &Value) -> f64 {
    match v {
        Value::Int(n) => *n as f64,
        Value::Uint(n) => *n as f64,
        Value::Float(f) => *f,
        Value::Bool(b) => f64::from(u8::from(*b)),
        Value::String(st) => parse_float(st).unwrap_or(0.0),
        _ => 0.0,
    }
}

/// sprig's `strslice`: a list's non-nil elements as strings; nil → empty; other → one string.
pub fn strslice(v: &Value) -> Vec<String> {
    match v {
        Value::List(items) => {
            items.iter().filter(|i| !matches!(i, Value::Nil)).map(strval).collect()
        }
        Value::Nil => Vec::new(),
        other => vec![strval(other)],
    }
}

/// sprig's `empty`: Go's zero value test.
pub fn is_empty(v: &Value) -> bool {
    match v {
        Value::Nil => true,
        Value::Bool(b) => !b,
        Value::Int(n) => *n == 0,
        Value::Uint(n) => *n == 0,
        Value::Float(f) => *f == 0.0,
        Value::String(st) => st.is_empty(),
        Value::List(l) => l.is_empty(),
        Value::Map(m) => m.is_empty(),
        _ => false,
    }
}

pub fn register(m: &mut FuncMap) {
    reg(m, "toString", Arity::Exact(1), |a| {
        budget::check_values(a.values, 1, 0)?;
        Ok(s(strval(a.any(0))))
    });
    reg(m, "toStrings", Arity::Exact(1), |a| {
        budget::check_values(a.values, 1, 0)?;
        Ok(str_list(strslice(a.any(0))))
    });
    // Go's strconv.Atoi with the error dropped.
    reg(m, "atoi", Arity::Exact(1), |a| Ok(Value::Int(atoi(a.str(0)?))));
    reg(m, "int64", Arity::Exact(1), |a| Ok(Value::Int(to_int64(a.any(0)))));
    // Go's int is 64 bits on the platforms certgate runs on.
    reg(m, "int", Arity::Exact(1), |a| Ok(Value::Int(to_int64(a.any(0)))));
    reg(m, "float64", Arity::Exact(1), |a| Ok(Value::Float(to_float64(a.any(0)))));
    reg(m, "toDecimal", Arity::Exact(1), |a| Ok(Value::Int(to_decimal(a.any(0)))));
}

/// `strconv.Atoi` with the error dropped: a syntax error is 0, a number out of range is the
/// nearest bound (Atoi returns it alongside its range error).
fn atoi(st: &str) -> i64 {
    if let Some(n) = parse_int(st, false) {
        return n;
    }
    let (neg, digits) = match st.as_bytes().first() {
        Some(b'-') => (true, &st[1..]),
        Some(b'+') => (false, &st[1..]),
        _ => (false, st),
    };
    match (digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()), neg) {
        (true, _) => 0,
        (false, true) => i64::MIN,
        (false, false) => i64::MAX,
    }
}

/// sprig's `toDecimal`: the value's text read as an octal number (`"0777"` → 511); 0 on error.
fn to_decimal(v: &Value) -> i64 {
    let text = match v {
        Value::Float(f) => format_float_g(*f),
        other => strval(other),
    };
    parse_int(&text, false).and_then(|_| i64::from_str_radix(&text, 8).ok()).unwrap_or(0)
}
