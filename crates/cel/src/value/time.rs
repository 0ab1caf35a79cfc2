//! Durations and timestamps: ranges, arithmetic, parsing and formatting.
//!
//! Ranges follow cel-go: durations span ±10,000 years (±315,576,000,000 s) and
//! timestamps the years 0001 to 9999 UTC. All arithmetic is done on `i128`
//! nanoseconds, which cannot overflow for values in range, and the result is then
//! range-checked.

use std::fmt;

use super::ValueError;

const NANOS_PER_SECOND: i128 = 1_000_000_000;
/// ±10,000 years of 365.25 days, in seconds.
pub const MAX_DURATION_SECONDS: i64 = 315_576_000_000;
/// 0001-01-01T00:00:00Z.
pub const MIN_TIMESTAMP_SECONDS: i64 = -62_135_596_800;
/// 9999-12-31T23:59:59Z.
pub const MAX_TIMESTAMP_SECONDS: i64 = 253_402_300_799;

/// A CEL duration, normalised to a nanosecond count in range.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Duration {
    nanos: i128,
}

/// A CEL timestamp: nanoseconds since the Unix epoch, in range.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp {
    nanos: i128,
}

impl Duration {
    pub fn from_nanos(nanos: i128) -> Result<Self, ValueError> {
        let max = i128::from(MAX_DURATION_SECONDS) * NANOS_PER_SECOND;
        if (-max..=max).contains(&nanos) {
            Ok(Self { nanos })
        } else {
            Err(ValueError::DurationOverflow)
        }
    }

    pub fn new(seconds: i64, nanos: i32) -> Result<Self, ValueError> {
        Self::from_nanos(i128::from(seconds) * NANOS_PER_SECOND + i128::from(nanos))
    }

    pub fn total_nanos(self) -> i128 {
        self.nanos
    }

    /// Whole seconds, truncated toward zero.
    pub fn seconds(self) -> i64 {
        // In range by construction: |seconds| <= MAX_DURATION_SECONDS.
        i64::try_from(self.nanos / NANOS_PER_SECOND).unwrap_or(0)
    }

    pub fn checked_add(self, other: Self) -> Result<Self, ValueError> {
        Self::from_nanos(self.nanos + other.nanos)
    }

    pub fn checked_sub(self, other: Self) -> Result<Self, ValueError> {
        Self::from_nanos(self.nanos - other.nanos)
    }

    pub fn checked_neg(self) -> Result<Self, ValueError> {
        Self::from_nanos(-self.nanos)
    }

    /// Parses a Go duration string: an optional sign and a sequence of decimal numbers
    /// with units `ns`, `us` (or `µs`), `ms`, `s`, `m`, `h`, such as `-1h30m` or `1.5s`.
    pub fn parse(input: &str) -> Result<Self, ValueError> {
        let err = |reason: &str| ValueError::parse("duration", input, reason);
        let (negative, mut rest) = match input.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, input.strip_prefix('+').unwrap_or(input)),
        };
        if rest == "0" {
            return Ok(Self { nanos: 0 });
        }
        if rest.is_empty() {
            return Err(err("empty duration"));
        }
        let mut total: i128 = 0;
        while !rest.is_empty() {
            let int_end = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
            let (int_part, after) = rest.split_at(int_end);
            let (frac_part, after) = match after.strip_prefix('.') {
                Some(f) => {
                    let end = f.find(|c: char| !c.is_ascii_digit()).unwrap_or(f.len());
                    f.split_at(end)
                }
                None => ("", after),
            };
            if int_part.is_empty() && frac_part.is_empty() {
                return Err(err("expected a number"));
            }
            let unit_end =
                after.find(|c: char| c.is_ascii_digit() || c == '.').unwrap_or(after.len());
            let (unit, after) = after.split_at(unit_end);
            let scale: i128 = match unit {
                "ns" => 1,
                "us" | "µs" | "μs" => 1_000,
                "ms" => 1_000_000,
                "s" => NANOS_PER_SECOND,
                "m" => 60 * NANOS_PER_SECOND,
                "h" => 3_600 * NANOS_PER_SECOND,
                "" => return Err(err("missing unit")),
                _ => return Err(err("unknown unit")),
            };
            total = total
                .checked_add(scaled(int_part, frac_part, scale).ok_or_else(|| err("overflow"))?)
                .ok_or_else(|| err("overflow"))?;
            rest = after;
        }
        Self::from_nanos(if negative { -total } else { total })
    }
}

/// `int.frac * scale`, truncating fractions below a nanosecond; `None` on overflow.
fn scaled(int_part: &str, frac_part: &str, scale: i128) -> Option<i128> {
    let mut value: i128 = 0;
    for d in int_part.bytes() {
        value = value.checked_mul(10)?.checked_add(i128::from(d - b'0'))?;
        // Anything above this is far outside the duration range already.
        if value > i128::from(u64::MAX) {
            return None;
        }
    }
    let mut nanos = value.checked_mul(scale)?;
    let mut unit = scale;
    for d in frac_part.bytes() {
        unit /= 10;
        if unit == 0 {
            break;
        }
        nanos += i128::from(d - b'0') * unit;
    }
    Some(nanos)
}

/// Formats as cel-go's `string(duration)`: seconds with the fraction trimmed, e.g. `1.5s`.
impl fmt::Display for Duration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.nanos < 0 { "-" } else { "" };
        let abs = self.nanos.unsigned_abs();
        let secs = abs / 1_000_000_000;
        let frac = abs % 1_000_000_000;
        if frac == 0 {
            write!(f, "{sign}{secs}s")
        } else {
            let digits = format!("{frac:09}");
            write!(f, "{sign}{secs}.{}s", digits.trim_end_matches('0'))
        }
    }
}

impl Timestamp {
    pub fn from_nanos(nanos: i128) -> Result<Self, ValueError> {
        let min = i128::from(MIN_TIMESTAMP_SECONDS) * NANOS_PER_SECOND;
        let max = (i128::from(MAX_TIMESTAMP_SECONDS) + 1) * NANOS_PER_SECOND;
        if (min..max).contains(&nanos) {
            Ok(Self { nanos })
        } else {
            Err(ValueError::TimestampOverflow)
        }
    }

    pub fn from_unix_seconds(seconds: i64) -> Result<Self, ValueError> {
        Self::from_nanos(i128::from(seconds) * NANOS_PER_SECOND)
    }

    /// Seconds since the epoch, rounded toward negative infinity.
    pub fn unix_seconds(self) -> i64 {
        // In range by construction.
        i64::try_from(self.nanos.div_euclid(NANOS_PER_SECOND)).unwrap_or(0)
    }

    pub fn total_nanos(self) -> i128 {
        self.nanos
    }

    pub fn checked_add(self, d: Duration) -> Result<Self, ValueError> {
        Self::from_nanos(self.nanos + d.total_nanos())
    }

    pub fn checked_sub(self, d: Duration) -> Result<Self, ValueError> {
        Self::from_nanos(self.nanos - d.total_nanos())
    }

    /// `self - earlier`. The difference must fit a signed 64-bit count of nanoseconds
    /// (about ±292 years), as in cel-go, where it is a Go `time.Duration`.
    pub fn since(self, earlier: Self) -> Result<Duration, ValueError> {
        let nanos = self.nanos - earlier.nanos;
        if i64::try_from(nanos).is_err() {
            return Err(ValueError::DurationOverflow);
        }
        Duration::from_nanos(nanos)
    }

    /// Parses an RFC 3339 timestamp such as `2009-02-13T23:31:30.5Z` or
    /// `2009-02-13T15:31:30-08:00`.
    pub fn parse(input: &str) -> Result<Self, ValueError> {
        let err = |reason: &str| ValueError::parse("timestamp", input, reason);
        let b = input.as_bytes();
        let num = |from: usize, len: usize| -> Result<i64, ValueError> {
            let part = b.get(from..from + len).ok_or_else(|| err("too short"))?;
            if !part.iter().all(u8::is_ascii_digit) {
                return Err(err("expected digits"));
            }
            Ok(part.iter().fold(0, |acc, d| acc * 10 + i64::from(d - b'0')))
        };
        let sep = |at: usize, allowed: &[u8]| -> Result<(), ValueError> {
            match b.get(at) {
                Some(c) if allowed.contains(c) => Ok(()),
                _ => Err(err("malformed date-time")),
            }
        };
        let year = num(0, 4)?;
        sep(4, b"-")?;
        let month = num(5, 2)?;
        sep(7, b"-")?;
        let day = num(8, 2)?;
        sep(10, b"Tt")?;
        let hour = num(11, 2)?;
        sep(13, b":")?;
        let minute = num(14, 2)?;
        sep(16, b":")?;
        let second = num(17, 2)?;
        let mut pos = 19;
        let mut frac_nanos: i128 = 0;
        if b.get(pos) == Some(&b'.') {
            pos += 1;
            let start = pos;
            let mut unit = NANOS_PER_SECOND;
            while let Some(d) = b.get(pos).filter(|d| d.is_ascii_digit()) {
                unit /= 10;
                frac_nanos += i128::from(d - b'0') * unit;
                pos += 1;
            }
            if pos == start || pos - start > 9 {
                return Err(err("fraction must have 1 to 9 digits"));
            }
        }
        let offset_seconds = match b.get(pos) {
            Some(b'Z' | b'z') if pos + 1 == b.len() => 0,
            Some(sign @ (b'+' | b'-')) if pos + 6 == b.len() => {
                sep(pos + 3, b":")?;
                let (h, m) = (num(pos + 1, 2)?, num(pos + 4, 2)?);
                if h > 23 || m > 59 {
                    return Err(err("offset out of range"));
                }
                let offset = h * 3600 + m * 60;
                if *sign == b'-' { -offset } else { offset }
            }
            _ => return Err(err("expected Z or a ±hh:mm offset at the end")),
        };
        if !(1..=12).contains(&month)
            || day < 1
            || day > days_in_month(year, month)
            || hour > 23
            || minute > 59
            || second > 59
        {
            return Err(err("date or time field out of range"));
        }
        let seconds =
            days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second
                - offset_seconds;
        Self::from_nanos(i128::from(seconds) * NANOS_PER_SECOND + frac_nanos)
    }
}

/// RFC 3339 in UTC with the fraction trimmed, as cel-go's `string(timestamp)`.
impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let secs = self.unix_seconds();
        let frac = self.nanos.rem_euclid(NANOS_PER_SECOND);
        let (y, mo, d) = civil_from_days(secs.div_euclid(86_400));
        let tod = secs.rem_euclid(86_400);
        write!(
            f,
            "{y:04}-{mo:02}-{d:02}T{:02}:{:02}:{:02}",
            tod / 3600,
            tod % 3600 / 60,
            tod % 60
        )?;
        if frac != 0 {
            let digits = format!("{frac:09}");
            write!(f, ".{}", digits.trim_end_matches('0'))?;
        }
        f.write_str("Z")
    }
}

fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (the well-known era-based
/// civil-calendar algorithm: 400-year eras of 146,097 days, years starting in March).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The inverse of [`days_from_civil`].
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}
