//! Go's `time.Duration`: `time.ParseDuration` and `Duration.String()`.

use std::fmt::{self, Write as _};
use std::time::Duration;

/// A signed Go `time.Duration` (nanoseconds).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct GoDuration(pub i64);

/// A duration string Go's `time.ParseDuration` rejects; the text is Go's error text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DurationError {
    /// Malformed syntax or a value outside the `int64` nanosecond range.
    #[error("time: invalid duration {}", time_quote(.input))]
    Invalid { input: String },
    /// A number without a unit, e.g. `1`; units are `ns`, `us`, `µs`, `ms`, `s`, `m`, `h`.
    #[error("time: missing unit in duration {}", time_quote(.input))]
    MissingUnit { input: String },
    /// A unit Go does not know, e.g. `d` in `1d`.
    #[error("time: unknown unit {} in duration {}", time_quote(.unit), time_quote(.input))]
    UnknownUnit { unit: String, input: String },
}

const NANOS_PER_SECOND: u64 = 1_000_000_000;
/// `1 << 63`: the magnitude of `i64::MIN`, the largest a negative duration can reach.
const MAX_MAGNITUDE: u64 = 1 << 63;

fn unit_nanos(unit: &[u8]) -> Option<u64> {
    Some(match unit {
        b"ns" => 1,
        // `us`, MICRO SIGN + s, GREEK SMALL LETTER MU + s.
        b"us" | b"\xc2\xb5s" | b"\xce\xbcs" => 1_000,
        b"ms" => 1_000_000,
        b"s" => NANOS_PER_SECOND,
        b"m" => 60 * NANOS_PER_SECOND,
        b"h" => 3_600 * NANOS_PER_SECOND,
        _ => return None,
    })
}

impl GoDuration {
    /// Parses Go's `time.ParseDuration` syntax (`1h30m`, `-1.5h`, `300ms`, `0`): an optional
    /// sign, then one or more decimal numbers (with optional fraction) each followed by a unit.
    pub fn parse(s: &str) -> Result<Self, DurationError> {
        let invalid = || DurationError::Invalid { input: s.to_owned() };
        let mut rest = s.as_bytes();
        let mut negative = false;
        if let [sign @ (b'-' | b'+'), tail @ ..] = rest {
            negative = *sign == b'-';
            rest = tail;
        }
        if rest == b"0" {
            return Ok(GoDuration(0));
        }
        if rest.is_empty() {
            return Err(invalid());
        }
        let mut total: u64 = 0;
        while !rest.is_empty() {
            if !matches!(rest.first(), Some(b'.' | b'0'..=b'9')) {
                return Err(invalid());
            }
            let (whole, after_whole) = leading_int(rest).ok_or_else(invalid)?;
            let had_whole = after_whole.len() != rest.len();
            rest = after_whole;

            let mut fraction = (0, 1.0);
            let mut had_fraction = false;
            if let [b'.', tail @ ..] = rest {
                let (digits, scale, after_fraction) = leading_fraction(tail);
                had_fraction = after_fraction.len() != tail.len();
                fraction = (digits, scale);
                rest = after_fraction;
            }
            if !had_whole && !had_fraction {
                return Err(invalid());
            }

            let unit_len =
                rest.iter().position(|c| *c == b'.' || c.is_ascii_digit()).unwrap_or(rest.len());
            if unit_len == 0 {
                return Err(DurationError::MissingUnit { input: s.to_owned() });
            }
            let (unit, after_unit) = rest.split_at(unit_len);
            rest = after_unit;
            let Some(unit_ns) = unit_nanos(unit) else {
                return Err(DurationError::UnknownUnit {
                    // The unit ends at an ASCII byte or at the end, so it is whole characters.
                    unit: String::from_utf8_lossy(unit).into_owned(),
                    input: s.to_owned(),
                });
            };

            if whole > MAX_MAGNITUDE / unit_ns {
                return Err(invalid());
            }
            let mut value = whole * unit_ns;
            let (digits, scale) = fraction;
            if digits > 0 {
                // Same float arithmetic as Go (exact to the nanosecond for every unit up to
                // hours); the product is at most 3.6e12, so the conversion cannot saturate.
                value += (digits as f64 * (unit_ns as f64 / scale)) as u64;
                if value > MAX_MAGNITUDE {
                    return Err(invalid());
                }
            }
            // Go adds without an overflow check here, so a sum of two terms of 2^63 wraps to
            // zero and is accepted; certgate rejects it like every other out-of-range value.
            total = total.checked_add(value).filter(|t| *t <= MAX_MAGNITUDE).ok_or_else(invalid)?;
        }
        if negative {
            // `total` may be exactly 2^63, which only fits as `i64::MIN`.
            return Ok(GoDuration(0i64.wrapping_sub_unsigned(total)));
        }
        i64::try_from(total).map(GoDuration).map_err(|_| invalid())
    }

    /// The duration as a `std::time::Duration`; `None` when negative.
    pub fn as_std(self) -> Option<Duration> {
        u64::try_from(self.0).ok().map(Duration::from_nanos)
    }
}

/// Consumes leading ASCII digits; `None` when the number exceeds 2^63.
fn leading_int(s: &[u8]) -> Option<(u64, &[u8])> {
    let digits = s.iter().take_while(|c| c.is_ascii_digit()).count();
    let (number, rest) = s.split_at(digits);
    let mut x: u64 = 0;
    for c in number {
        x = x.checked_mul(10)?.checked_add(u64::from(c - b'0'))?;
        if x > MAX_MAGNITUDE {
            return None;
        }
    }
    Some((x, rest))
}

/// Consumes the digits after a decimal point: `(digits, 10^kept, rest)`. Digits past the
/// precision of a `u64` are consumed but ignored, as Go does.
fn leading_fraction(s: &[u8]) -> (u64, f64, &[u8]) {
    let count = s.iter().take_while(|c| c.is_ascii_digit()).count();
    let (number, rest) = s.split_at(count);
    let mut x: u64 = 0;
    let mut scale = 1.0;
    for c in number {
        let next = x.checked_mul(10).and_then(|v| v.checked_add(u64::from(c - b'0')));
        match next {
            Some(v) if v <= MAX_MAGNITUDE => {
                x = v;
                scale *= 10.0;
            }
            _ => break,
        }
    }
    (x, scale, rest)
}

/// The quoting Go's `time` package uses in its errors (not `strconv.Quote`): quotes and
/// backslashes escaped, every byte of a control or non-ASCII character as `\xNN`.
fn time_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        if c.is_ascii() && c >= ' ' {
            if c == '"' || c == '\\' {
                out.push('\\');
            }
            out.push(c);
        } else {
            let mut buf = [0; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                let _ = write!(out, "\\x{b:02x}");
            }
        }
    }
    out.push('"');
    out
}

impl fmt::Display for GoDuration {
    /// Go's `time.Duration.String()`: `24h0m0s`, `1m0s`, `1.5s`, `0s`, `-1h0m0s`, and below
    /// one second `1.2ms`, `1.2µs`, `5ns`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut u = self.0.unsigned_abs();
        if self.0 < 0 {
            f.write_char('-')?;
        }
        if u == 0 {
            return f.write_str("0s");
        }
        if u < NANOS_PER_SECOND {
            let (precision, unit) = match u {
                0..1_000 => (0, "ns"),
                1_000..1_000_000 => (3, "µs"),
                _ => (6, "ms"),
            };
            let fraction = take_fraction(&mut u, precision);
            return write!(f, "{u}{fraction}{unit}");
        }
        let fraction = take_fraction(&mut u, 9);
        let (seconds, minutes, hours) = (u % 60, (u / 60) % 60, u / 3600);
        if hours > 0 {
            write!(f, "{hours}h{minutes}m")?;
        } else if minutes > 0 {
            write!(f, "{minutes}m")?;
        }
        write!(f, "{seconds}{fraction}s")
    }
}

/// Splits off the lowest `precision` decimal digits of `v` as `.ddd` without trailing zeros
/// (empty when they are all zero), leaving the integer part in `v`.
fn take_fraction(v: &mut u64, precision: u32) -> String {
    let divisor = 10u64.pow(precision);
    let digits = *v % divisor;
    *v /= divisor;
    if digits == 0 {
        return String::new();
    }
    let padded = format!(".{digits:0width$}", width = precision as usize);
    padded.trim_end_matches('0').to_owned()
}

#[cfg(test)]
mod tests;
