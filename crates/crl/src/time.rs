//! Time values: CRL `thisUpdate`/`nextUpdate` decoding and the caller-supplied `now`.
//! The library never reads a clock; callers pass `now` so verdicts are reproducible.

use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Seconds since the Unix epoch (UTC). Signed so that pre-1970 `UTCTime` values (1950–1969)
/// are representable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(transparent)]
pub struct Timestamp(pub i64);

impl Timestamp {
    /// From seconds since the Unix epoch.
    pub const fn from_unix(secs: i64) -> Self {
        Timestamp(secs)
    }

    /// Seconds since the Unix epoch.
    pub const fn unix(self) -> i64 {
        self.0
    }

    /// Converts a `SystemTime` (sub-second precision is dropped, as in X.509 times).
    pub fn from_system_time(t: SystemTime) -> Self {
        match t.duration_since(UNIX_EPOCH) {
            Ok(d) => Timestamp(i64::try_from(d.as_secs()).unwrap_or(i64::MAX)),
            Err(e) => Timestamp(-i64::try_from(e.duration().as_secs()).unwrap_or(i64::MAX)),
        }
    }

    /// Adds a duration, saturating.
    pub fn saturating_add(self, d: Duration) -> Self {
        Timestamp(self.0.saturating_add(i64::try_from(d.as_secs()).unwrap_or(i64::MAX)))
    }
}

impl fmt::Display for Timestamp {
    /// RFC 3339 in UTC, e.g. `2026-11-25T01:55:00Z`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let days = self.0.div_euclid(86_400);
        let secs = self.0.rem_euclid(86_400);
        let (y, m, d) = civil_from_days(days);
        write!(
            f,
            "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
            secs / 3600,
            (secs / 60) % 60,
            secs % 60
        )
    }
}

/// Days since 1970-01-01 for a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

fn digits(s: &[u8]) -> Option<i64> {
    s.iter().try_fold(0i64, |acc, b| b.is_ascii_digit().then(|| acc * 10 + i64::from(b - b'0')))
}

/// Decodes a DER `UTCTime` (`YYMMDDHHMMSSZ`, RFC 5280: years 50–99 are 19xx) or
/// `GeneralizedTime` (`YYYYMMDDHHMMSSZ`). Other forms (fractions, offsets) are rejected, as
/// RFC 5280 requires.
pub(crate) fn decode_time(tag: u8, content: &[u8]) -> Option<Timestamp> {
    let (year, rest) = match tag {
        crate::der::UTC_TIME if content.len() == 13 => {
            let yy = digits(content.get(..2)?)?;
            (if yy >= 50 { 1900 + yy } else { 2000 + yy }, content.get(2..)?)
        }
        crate::der::GENERALIZED_TIME if content.len() == 15 => {
            (digits(content.get(..4)?)?, content.get(4..)?)
        }
        _ => return None,
    };
    if rest.get(10) != Some(&b'Z') {
        return None;
    }
    let month = digits(rest.get(0..2)?)?;
    let day = digits(rest.get(2..4)?)?;
    let hour = digits(rest.get(4..6)?)?;
    let minute = digits(rest.get(6..8)?)?;
    let second = digits(rest.get(8..10)?)?;
    if !(1..=12).contains(&month)
        || !(1..=31).contains(&day)
        || hour > 23
        || minute > 59
        || second > 59
    {
        return None;
    }
    let days = days_from_civil(year, month, day);
    Some(Timestamp(days * 86_400 + hour * 3600 + minute * 60 + second))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_both_forms() {
        assert_eq!(decode_time(0x17, b"700101000000Z"), Some(Timestamp(0)));
        assert_eq!(decode_time(0x17, b"491231235959Z"), Some(Timestamp(2_524_607_999)));
        assert_eq!(
            decode_time(0x18, b"20220628000000Z").map(|t| t.to_string()).as_deref(),
            Some("2022-06-28T00:00:00Z")
        );
        assert_eq!(decode_time(0x17, b"500101000000Z").map(|t| t.0 < 0), Some(true));
        assert_eq!(decode_time(0x17, b"7001010000Z"), None);
        assert_eq!(decode_time(0x18, b"20221328000000Z"), None);
    }
}
