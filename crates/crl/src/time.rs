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
    /// RFC 3339 in UTC, e.g. `2026-11-25T01:55:00Z` (`@<seconds>` beyond chrono's range of
    /// ±262,000 years, which X.509 times never reach).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match chrono::DateTime::from_timestamp(self.0, 0) {
            Some(t) => write!(f, "{}", t.format("%Y-%m-%dT%H:%M:%SZ")),
            None => write!(f, "@{}", self.0),
        }
    }
}

fn digits(s: &[u8]) -> Option<i64> {
    s.iter().try_fold(0i64, |acc, b| b.is_ascii_digit().then(|| acc * 10 + i64::from(b - b'0')))
}

/// Decodes a DER `UTCTime` (`YYMMDDHHMMSSZ`, RFC 5280: years 50–99 are 19xx) or
/// `GeneralizedTime` (`YYYYMMDDHHMMSSZ`). Other forms (fractions, offsets) are rejected, as
/// RFC 5280 requires.
pub(crate) fn decode_time(tag: u8, content: &[u8]) -> Option<Timestamp> {
    let (year, rest) = match tag {
        certgate_pki::der::UTC_TIME if content.len() == 13 => {
            let yy = digits(content.get(..2)?)?;
            (if yy >= 50 { 1900 + yy } else { 2000 + yy }, content.get(2..)?)
        }
        certgate_pki::der::GENERALIZED_TIME if content.len() == 15 => {
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
    // chrono checks the calendar (no February 30th); seconds stop at 59 as RFC 5280 has no
    // leap seconds.
    let date = chrono::NaiveDate::from_ymd_opt(
        i32::try_from(year).ok()?,
        u32::try_from(month).ok()?,
        u32::try_from(day).ok()?,
    )?;
    let time = chrono::NaiveTime::from_hms_opt(
        u32::try_from(hour).ok()?,
        u32::try_from(minute).ok()?,
        u32::try_from(second).ok()?,
    )?;
    Some(Timestamp(date.and_time(time).and_utc().timestamp()))
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
        assert_eq!(decode_time(0x18, b"20230230000000Z"), None);
        assert_eq!(decode_time(0x17, b"700101000060Z"), None);
    }
}
