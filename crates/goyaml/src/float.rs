//! Go's float formatting, as yaml.v3 and encoding/json apply it.
//!
//! yaml.v3 (`encode.go`, `floatv`) writes a float64 with `strconv.FormatFloat(f, 'g', -1, 64)`
//! and then spells the special values the YAML way. Go's shortest `'g'` switches to exponent
//! form when the decimal exponent is below -4 or at least 6 (the "precision 6" rule for
//! shortest output), and always prints at least two exponent digits (`1e+06`).

/// Shortest decimal digits of a finite, non-zero `f` and its exponent `e`, meaning
/// `0.d1d2… × 10^(e+1)`, i.e. `d1.d2… × 10^e`.
fn shortest_digits(f: f64) -> (String, i32) {
    // Rust's `{:e}` prints the shortest round-tripping digits, like Go's `-1` precision.
    let text = format!("{:e}", f.abs());
    let (mantissa, exponent) = text.split_once('e').unwrap_or((text.as_str(), "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    (digits, exponent.parse().unwrap_or(0))
}

/// Go `%e` layout of shortest digits: `d[.ddd]e±XX`.
fn exponent_form(digits: &str, exp: i32, negative: bool) -> String {
    let mut out = String::new();
    if negative {
        out.push('-');
    }
    out.push_str(&digits[..1]);
    if digits.len() > 1 {
        out.push('.');
        out.push_str(&digits[1..]);
    }
    out.push('e');
    out.push(if exp < 0 { '-' } else { '+' });
    let magnitude = exp.unsigned_abs();
    if magnitude < 10 {
        out.push('0');
    }
    out.push_str(&magnitude.to_string());
    out
}

/// Go `%f` layout of shortest digits (no trailing zeros beyond the digits).
fn fixed_form(digits: &str, exp: i32, negative: bool) -> String {
    let mut out = String::new();
    if negative {
        out.push('-');
    }
    let point = exp + 1; // digits before the decimal point
    if point <= 0 {
        out.push_str("0.");
        for _ in 0..(-point) {
            out.push('0');
        }
        out.push_str(digits);
    } else {
        let point = point as usize;
        if digits.len() <= point {
            out.push_str(digits);
            for _ in digits.len()..point {
                out.push('0');
            }
        } else {
            out.push_str(&digits[..point]);
            out.push('.');
            out.push_str(&digits[point..]);
        }
    }
    out
}

/// `strconv.FormatFloat(f, 'g', -1, 64)`.
pub fn format_go_g(f: f64) -> String {
    if f.is_nan() {
        return "NaN".to_owned();
    }
    if f.is_infinite() {
        return if f > 0.0 { "+Inf" } else { "-Inf" }.to_owned();
    }
    let negative = f.is_sign_negative();
    if f == 0.0 {
        return if negative { "-0" } else { "0" }.to_owned();
    }
    let (digits, exp) = shortest_digits(f);
    if !(-4..6).contains(&exp) {
        exponent_form(&digits, exp, negative)
    } else {
        fixed_form(&digits, exp, negative)
    }
}

/// A float64 as yaml.v3 emits it (`.inf`, `-.inf`, `.nan` for the special values).
pub fn format_yaml_float(f: f64) -> String {
    match format_go_g(f).as_str() {
        "+Inf" => ".inf".to_owned(),
        "-Inf" => "-.inf".to_owned(),
        "NaN" => ".nan".to_owned(),
        other => other.to_owned(),
    }
}

/// A finite float64 as Go's `encoding/json` writes it: `'f'` layout unless the magnitude is
/// below 1e-6 or at least 1e21, then `'e'` with a one-digit negative exponent cleaned up
/// (`1e-07`, not `1e-007`; Go trims `e-07` to `e-7`).
///
/// `serde_json` prints floats differently (`1e21` vs Go's `1e+21`, `1.0` vs `1`); callers
/// that must reproduce Go's bytes can use this.
pub fn format_go_json_float(f: f64) -> String {
    let negative = f.is_sign_negative();
    if f == 0.0 {
        return if negative { "-0" } else { "0" }.to_owned();
    }
    let abs = f.abs();
    let (digits, exp) = shortest_digits(f);
    if !(1e-6..1e21).contains(&abs) {
        let mut text = exponent_form(&digits, exp, negative);
        // Go: "clean up e-09 to e-9".
        let bytes = text.as_bytes();
        let n = bytes.len();
        if n >= 4 && &bytes[n - 4..n - 1] == b"e-0" {
            text.remove(n - 2);
        }
        text
    } else {
        fixed_form(&digits, exp, negative)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_g_examples() {
        // Expected texts are Go's documented FormatFloat behaviour.
        assert_eq!(format_go_g(1.0), "1");
        assert_eq!(format_go_g(1.5), "1.5");
        assert_eq!(format_go_g(123456.0), "123456");
        assert_eq!(format_go_g(1234567.0), "1.234567e+06");
        assert_eq!(format_go_g(1e6), "1e+06");
        assert_eq!(format_go_g(1e21), "1e+21");
        assert_eq!(format_go_g(0.0001), "0.0001");
        assert_eq!(format_go_g(0.00001), "1e-05");
        assert_eq!(format_go_g(-2.5e-300), "-2.5e-300");
        assert_eq!(format_go_g(1.2345678901234568e17), "1.2345678901234568e+17");
    }

    #[test]
    fn go_json_examples() {
        assert_eq!(format_go_json_float(1.0), "1");
        assert_eq!(format_go_json_float(1e20), "100000000000000000000");
        assert_eq!(format_go_json_float(1e21), "1e+21");
        assert_eq!(format_go_json_float(1e-7), "1e-7");
        assert_eq!(format_go_json_float(0.5), "0.5");
    }
}
