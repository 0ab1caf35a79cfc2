//! Go's `strconv.FormatFloat` with shortest precision (`-1`) for `float64`, and the float
//! layout of `encoding/json`.

/// Shortest round-tripping decimal digits of a finite, non-zero `f` and the position of
/// its decimal point: `f` = `0.digits × 10^point`.
pub(crate) fn shortest_digits(f: f64) -> (String, i32) {
    // Rust's `{:e}` prints the shortest round-tripping digits, as Go's precision −1 does.
    let text = format!("{:e}", f.abs());
    let (mantissa, exponent) = text.split_once('e').unwrap_or((text.as_str(), "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let exponent: i32 = exponent.parse().unwrap_or(0);
    (digits, exponent + 1)
}

/// Digits and decimal-point position of a finite `f` (`"0"`, 1 for zeros).
fn digits_of(f: f64) -> (String, i32) {
    if f == 0.0 { ("0".to_owned(), 1) } else { shortest_digits(f) }
}

/// Go's `%e` layout of shortest digits: `d[.ddd]e±XX` (at least two exponent digits).
fn exponent_form(out: &mut String, digits: &str, point: i32) {
    let exp = point - 1;
    let (first, rest) = digits.split_at(1);
    out.push_str(first);
    if !rest.is_empty() {
        out.push('.');
        out.push_str(rest);
    }
    out.push('e');
    out.push(if exp < 0 { '-' } else { '+' });
    let magnitude = exp.unsigned_abs();
    if magnitude < 10 {
        out.push('0');
    }
    out.push_str(&magnitude.to_string());
}

/// Go's `%f` layout of shortest digits, without an exponent.
fn fixed_form(out: &mut String, digits: &str, point: i32) {
    if point <= 0 {
        out.push_str("0.");
        for _ in 0..(-point) {
            out.push('0');
        }
        out.push_str(digits);
    } else {
        let point = point.unsigned_abs() as usize;
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
}

/// `NaN`, `+Inf` or `-Inf`, as every Go float format spells them.
pub(crate) fn non_finite(f: f64) -> String {
    if f.is_nan() {
        "NaN".to_owned()
    } else if f > 0.0 {
        "+Inf".to_owned()
    } else {
        "-Inf".to_owned()
    }
}

/// `strconv.FormatFloat(f, 'g', -1, 64)`, which is also what `fmt`'s `%v` prints for a
/// `float64`: shortest round-trip digits, exponent form (`1e+06`, `1e-05`) when the decimal
/// exponent is below -4 or at least 6, `-0` for negative zero, `NaN`, `+Inf`, `-Inf`.
pub fn format_float_g(f: f64) -> String {
    if !f.is_finite() {
        return non_finite(f);
    }
    let (digits, point) = digits_of(f);
    let mut out = String::new();
    if f.is_sign_negative() {
        out.push('-');
    }
    if (-4..6).contains(&(point - 1)) {
        fixed_form(&mut out, &digits, point);
    } else {
        exponent_form(&mut out, &digits, point);
    }
    out
}

/// `strconv.FormatFloat(f, 'f', -1, 64)`: shortest round-trip digits, never an exponent
/// (`1e21` is `1000000000000000000000`), `-0` for negative zero, `NaN`, `+Inf`, `-Inf`.
pub fn format_float_f(f: f64) -> String {
    if !f.is_finite() {
        return non_finite(f);
    }
    let (digits, point) = digits_of(f);
    let mut out = String::new();
    if f.is_sign_negative() {
        out.push('-');
    }
    fixed_form(&mut out, &digits, point);
    out
}

/// A `float64` as Go's `encoding/json` encodes it: the `'f'` layout for magnitudes from 1e-6
/// up to 1e21, otherwise the `'e'` layout with a single-digit negative exponent trimmed
/// (`1e-7`, `1e+21`, `1.5e+300`); `-0` for negative zero. `None` for NaN and infinities,
/// which Go refuses with `json: unsupported value: NaN`.
pub fn json_float(f: f64) -> Option<String> {
    if !f.is_finite() {
        return None;
    }
    let abs = f.abs();
    if abs == 0.0 || (1e-6..1e21).contains(&abs) {
        return Some(format_float_f(f));
    }
    let (digits, point) = shortest_digits(f);
    let mut out = String::new();
    if f.is_sign_negative() {
        out.push('-');
    }
    exponent_form(&mut out, &digits, point);
    // Go: "clean up e-09 to e-9".
    let n = out.len();
    if out.as_bytes()[..n - 1].ends_with(b"e-0") {
        out.remove(n - 2);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::{format_float_f, format_float_g, json_float};

    #[test]
    fn g_matches_go_format_float() {
        for (f, want) in [
            (0.0, "0"),
            (-0.0, "-0"),
            (1.0, "1"),
            (1.5, "1.5"),
            (1_000_000.0, "1e+06"),
            (123_456.0, "123456"),
            (1_234_567.0, "1.234567e+06"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (-2.5, "-2.5"),
            (1.234_567e7, "1.234567e+07"),
            (1e21, "1e+21"),
            (-2.5e-300, "-2.5e-300"),
            (1.234_567_890_123_456_8e17, "1.2345678901234568e+17"),
            (0.1 + 0.2, "0.30000000000000004"),
            (f64::MAX, "1.7976931348623157e+308"),
            (5e-324, "5e-324"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "+Inf"),
            (f64::NEG_INFINITY, "-Inf"),
        ] {
            assert_eq!(format_float_g(f), want, "{f:e}");
        }
    }

    #[test]
    fn f_matches_go_format_float() {
        for (f, want) in [
            (0.0, "0"),
            (-0.0, "-0"),
            (1e21, "1000000000000000000000"),
            (0.000_000_1, "0.0000001"),
            (-1.25, "-1.25"),
            (123_456_789.0, "123456789"),
            (f64::NAN, "NaN"),
            (f64::NEG_INFINITY, "-Inf"),
        ] {
            assert_eq!(format_float_f(f), want, "{f:e}");
        }
    }

    #[test]
    fn json_matches_go_float_encoder() {
        for (f, want) in [
            (0.0, "0"),
            (-0.0, "-0"),
            (1.0, "1"),
            (0.5, "0.5"),
            (100.0, "100"),
            (1e20, "100000000000000000000"),
            (1e21, "1e+21"),
            (-1e21, "-1e+21"),
            (1.5e300, "1.5e+300"),
            (0.000_001, "0.000001"),
            (1e-7, "1e-7"),
            (-1.5e-7, "-1.5e-7"),
            (1e-10, "1e-10"),
            (5e-324, "5e-324"),
        ] {
            assert_eq!(json_float(f).as_deref(), Some(want), "{f:e}");
        }
        for f in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert_eq!(json_float(f), None);
        }
    }
}
