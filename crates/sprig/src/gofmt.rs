//! Go's `fmt` and `strconv` behaviour that sprig results depend on: `%v` printing, shortest
//! float formatting, `strconv.ParseInt` with base 0, `strconv.Quote`.

use certgate_gotemplate::Value;
use unicode_general_category::{GeneralCategory, get_general_category};

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

/// Shortest decimal digits and decimal-point position of `f` (finite, non-negative):
/// `digits` × 10^(dp − len(digits)).
fn shortest_digits(f: f64) -> (String, i32) {
    // Rust's `{:e}` prints the shortest round-tripping digits, as Go's 'g' with precision −1.
    let e = format!("{f:e}");
    let (mant, exp) = e.split_once('e').unwrap_or((e.as_str(), "0"));
    let digits: String = mant.chars().filter(char::is_ascii_digit).collect();
    let exp: i32 = exp.parse().unwrap_or(0);
    (digits, exp + 1)
}

/// `strconv.FormatFloat(f, 'g', -1, 64)`, which `%v` uses for float64.
pub fn format_float_g(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "+Inf".into() } else { "-Inf".into() };
    }
    let neg = f.is_sign_negative();
    let (digits, dp) = if f == 0.0 { ("0".to_string(), 1) } else { shortest_digits(f.abs()) };
    let exp = dp - 1;
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    // Go switches to exponent form when the exponent is < -4 or >= 6 (shortest mode).
    if !(-4..6).contains(&exp) {
        let (first, rest) = digits.split_at(1);
        out.push_str(first);
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        let a = exp.unsigned_abs();
        if a < 10 {
            out.push('0');
        }
        out.push_str(&a.to_string());
    } else {
        out.push_str(&fixed(&digits, dp));
    }
    out
}

/// Digits placed around the decimal point, without exponent (`%f` with shortest digits).
fn fixed(digits: &str, dp: i32) -> String {
    let mut out = String::new();
    if dp <= 0 {
        out.push_str("0.");
        for _ in 0..(-dp) {
            out.push('0');
        }
        out.push_str(digits);
    } else {
        let dp = dp as usize;
        if digits.len() <= dp {
            out.push_str(digits);
            for _ in digits.len()..dp {
                out.push('0');
            }
        } else {
            out.push_str(&digits[..dp]);
            out.push('.');
            out.push_str(&digits[dp..]);
        }
    }
    out
}

/// `strconv.FormatFloat(f, 'f', -1, 64)`.
pub fn format_float_f(f: f64) -> String {
    if !f.is_finite() {
        return format_float_g(f);
    }
    let neg = f.is_sign_negative() && f != 0.0;
    let (digits, dp) = if f == 0.0 { ("0".to_string(), 1) } else { shortest_digits(f.abs()) };
    let body = fixed(&digits, dp);
    if neg { format!("-{body}") } else { body }
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

/// `strconv.ParseFloat(s, 64)`; hex floats are not accepted.
pub fn parse_float(s: &str) -> Option<f64> {
    let t = s.to_ascii_lowercase();
    let body = t.trim_start_matches(['+', '-']);
    match body {
        "inf" | "infinity" | "nan" => return t.parse().ok(),
        _ => {}
    }
    if body.is_empty()
        || !body.chars().all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | '+' | '-' | '_'))
    {
        return None;
    }
    let cleaned: String = t.chars().filter(|c| *c != '_').collect();
    cleaned.parse().ok()
}

/// `unicode.IsPrint`: letters, marks, numbers, punctuation, symbols and the ASCII space.
pub fn is_print(c: char) -> bool {
    use GeneralCategory::*;
    if c == ' ' {
        return true;
    }
    !matches!(
        get_general_category(c),
        Control
            | Format
            | Surrogate
            | PrivateUse
            | Unassigned
            | SpaceSeparator
            | LineSeparator
            | ParagraphSeparator
    )
}

/// `strconv.Quote` (what `%q` prints for a string).
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            c if is_print(c) => out.push(c),
            c if (c as u32) < 0x80 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push_str(&format!("\\U{:08x}", c as u32)),
        }
    }
    out.push('"');
    out
}

/// Go's `unicode.IsSpace`.
pub fn is_space(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{85}' | '\u{a0}')
        || (c as u32 > 0xff && c.is_whitespace())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_like_go() {
        for (f, want) in [
            (1.0, "1"),
            (1.5, "1.5"),
            (1_000_000.0, "1e+06"),
            (123_456.0, "123456"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (-2.5, "-2.5"),
            (1.234_567e7, "1.234567e+07"),
        ] {
            assert_eq!(format_float_g(f), want, "{f}");
        }
        assert_eq!(format_float_f(1e21), "1000000000000000000000");
        assert_eq!(format_float_f(0.000_000_1), "0.0000001");
    }

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
    fn quote_escapes() {
        assert_eq!(quote("a\"b\n\u{1}é"), "\"a\\\"b\\n\\x01é\"");
    }
}
