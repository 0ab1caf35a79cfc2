//! Go's `%v` rendering of a `float64`, which upstream messages use for schema bounds
//! (`should be greater than or equal to 1`, `should be a multiple of 0.5`).

/// `fmt.Sprintf("%v", f)`: the shortest digits that round-trip, in exponent form when the
/// decimal exponent is below -4 or at least 6 (`1e+06`, `1.5e-05`), plain otherwise.
pub(crate) fn go_float(f: f64) -> String {
    if f.is_nan() {
        return "NaN".to_owned();
    }
    if f.is_infinite() {
        return if f > 0.0 { "+Inf" } else { "-Inf" }.to_owned();
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0" } else { "0" }.to_owned();
    }
    // Rust's `{:e}` gives the same shortest round-trip digits Go uses: `-1.2345e6`.
    let scientific = format!("{f:e}");
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((scientific.as_str(), "0"));
    let exponent: i64 = exponent.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", mantissa),
    };
    if !(-4..6).contains(&exponent) {
        let exp_sign = if exponent < 0 { '-' } else { '+' };
        return format!("{sign}{mantissa}e{exp_sign}{:02}", exponent.unsigned_abs());
    }
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    // Position of the decimal point within `digits`.
    let point = exponent + 1;
    let body = if point <= 0 {
        format!("0.{}{digits}", "0".repeat(point.unsigned_abs() as usize))
    } else {
        let point = point.unsigned_abs() as usize;
        if point >= digits.len() {
            format!("{digits}{}", "0".repeat(point - digits.len()))
        } else {
            format!("{}.{}", &digits[..point], &digits[point..])
        }
    };
    format!("{sign}{body}")
}

#[cfg(test)]
mod tests {
    use super::go_float;

    #[test]
    fn matches_go_percent_v() {
        for (value, go) in [
            (1.0, "1"),
            (-3.0, "-3"),
            (0.5, "0.5"),
            (100000.0, "100000"),
            (123456.0, "123456"),
            (1e6, "1e+06"),
            (1234567.0, "1.234567e+06"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (-1.5e-7, "-1.5e-07"),
            (65535.0, "65535"),
            (2.5e21, "2.5e+21"),
        ] {
            assert_eq!(go_float(value), go, "{value}");
        }
    }
}
