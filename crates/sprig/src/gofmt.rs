//! Go's `fmt` and `strconv` behaviour that sprig results depend on: `%v` printing,
//! `strconv.ParseInt` with base 0, `strconv.ParseFloat`, `unicode.IsSpace`. Float formatting
//! and `strconv.Quote` come from `certgate-gofmt`.

use certgate_gofmt::format_float_g;
use certgate_gotemplate::Value;

/// `fmt.Sprint(v)` / `%v` for template values.
pub fn sprint(v: &Value) -> String {
    let mut out = String::new();
    write_v(&mut out, v);
    out
}

fn write_v(out: &mut String, v: &Value) {
    match v {
        Value::Nil => out.push_str("<nil>"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(n) => out.push_str(&n.to_string()),
        Value::Uint(n) => out.push_str(&n.to_string()),
        Value::Float(f) => out.push_str(&format_float_g(*f)),
        Value::String(s) => out.push_str(s),
        Value::List(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                write_v(out, item);
            }
            out.push(']');
        }
        Value::Map(m) => {
            out.push_str("map[");
            for (i, (k, item)) in m.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                out.push_str(k);
                out.push(':');
                write_v(out, item);
            }
            out.push(']');
        }
        _ => out.push_str(&v.to_string()),
    }
}

/// `strconv.ParseInt(s, base, 64)` for base 0 (prefixes, underscores) or 10.
pub fn parse_int(s: &str, base0: bool) -> Option<i64> {
    let (neg, body) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let mag = parse_uint_body(body, base0)?;
    if neg {
        if mag <= (i64::MAX as u64) + 1 { Some((mag as i64).wrapping_neg()) } else { None }
    } else {
        i64::try_from(mag).ok()
    }
}

fn parse_uint_body(body: &str, base0: bool) -> Option<u64> {
    if body.is_empty() {
        return None;
    }
    let lower = body.to_ascii_lowercase();
    let (radix, digits, prefixed) = if !base0 {
        (10, lower.as_str(), false)
    } else if let Some(r) = lower.strip_prefix("0x") {
        (16, r, true)
    } else if let Some(r) = lower.strip_prefix("0b") {
        (2, r, true)
    } else if let Some(r) = lower.strip_prefix("0o") {
        (8, r, true)
    } else if lower.len() > 1 && lower.starts_with('0') {
        (8, &lower[1..], true)
    } else {
        (10, lower.as_str(), false)
    };
    if base0 && digits.contains('_') {
        // Go accepts underscores only between digits (a base prefix counts as a digit).
        let mut prev_digit = prefixed;
        for c in digits.chars() {
            if c == '_' {
                if !prev_digit {
                    return None;
                }
                prev_digit = false;
            } else {
                prev_digit = true;
            }
        }
        if !prev_digit {
            return None;
        }
    } else if digits.contains('_') {
        return None;
    }
    let cleaned: String = digits.chars().filter(|c| *c != '_').collect();
    if cleaned.is_empty() {
        return None;
    }
    u64::from_str_radix(&cleaned, radix).ok()
}

/// `strconv.ParseFloat(s, 64)` without an error: a number too large for f64 is Go's range
/// error (None), only the words `inf`/`infinity` give an infinity.
pub fn parse_float(s: &str) -> Option<f64> {
    parse_float_any(s).filter(|f| !f.is_infinite() || s.to_ascii_lowercase().contains("inf"))
}

fn parse_float_any(s: &str) -> Option<f64> {
    let t = s.to_ascii_lowercase();
    let body = t.trim_start_matches(['+', '-']);
    match body {
        "inf" | "infinity" | "nan" => return t.parse().ok(),
        _ => {}
    }
    if let Some(hex) = body.strip_prefix("0x") {
        let value = parse_hex_float(&hex.replace('_', ""))?;
        return Some(if t.starts_with('-') { -value } else { value });
    }
    if body.is_empty()
        || !body.chars().all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | '+' | '-' | '_'))
    {
        return None;
    }
    let cleaned: String = t.chars().filter(|c| *c != '_').collect();
    cleaned.parse().ok()
}

/// The digits of a Go hexadecimal float after `0x`: a mantissa with an optional point and a
/// binary exponent that cannot be left out (`1.8p1` is 3; `1F` alone is a syntax error).
fn parse_hex_float(body: &str) -> Option<f64> {
    let (mantissa, exponent) = body.split_once('p')?;
    let exponent: i32 = match exponent.strip_prefix('+') {
        Some(e) if !e.starts_with('-') => e.parse().ok()?,
        _ => exponent.parse().ok()?,
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    // 16 significant hex digits fill a u64; further digits only move the exponent
    // (integer part) or are dropped (fraction), far below f64's 53-bit precision.
    let (mut bits, mut digits, mut scale) = (0u64, 0u32, 0i64);
    for (i, c) in int.chars().chain(frac.chars()).enumerate() {
        let d = u64::from(c.to_digit(16)?);
        let fractional = i >= int.len();
        if bits == 0 && d == 0 {
            scale -= i64::from(fractional) * 4;
            continue;
        }
        if digits < 16 {
            bits = bits << 4 | d;
            digits += 1;
            scale -= i64::from(fractional) * 4;
        } else if !fractional {
            scale += 4;
        }
    }
    let exp = (i64::from(exponent) + scale).clamp(-2000, 2000) as i32;
    // Two steps so that neither power of two over- or underflows on its own.
    Some(bits as f64 * 2f64.powi(exp / 2) * 2f64.powi(exp - exp / 2))
}

/// Go's `unicode.IsSpace`, from Go's own tables.
pub use certgate_gofmt::unicode::is_space;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_int_base0() {
        assert_eq!(parse_int("0x10", true), Some(16));
        assert_eq!(parse_int("010", true), Some(8));
        assert_eq!(parse_int("1_000", true), Some(1000));
        assert_eq!(parse_int("_1", true), None);
        assert_eq!(parse_int("-9223372036854775808", true), Some(i64::MIN));
        assert_eq!(parse_int("010", false), Some(10));
        assert_eq!(parse_int("", true), None);
    }

    #[test]
    fn parse_float_hex() {
        assert_eq!(parse_float("0x1p-2"), Some(0.25));
        assert_eq!(parse_float("-0X1.8P1"), Some(-3.0));
        assert_eq!(parse_float("0x.8p0"), Some(0.5));
        assert_eq!(parse_float("0x10p+0"), Some(16.0));
        assert_eq!(parse_float("0x1F"), None);
        assert_eq!(parse_float("0xp1"), None);
        assert_eq!(parse_float("0x1p1024"), None);
        assert_eq!(parse_float("1e400"), None);
        assert_eq!(parse_float("-Inf"), Some(f64::NEG_INFINITY));
    }
}
