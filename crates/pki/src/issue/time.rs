//! Certificate validity times, encoded as Go's `encoding/asn1` marshals a `time.Time` in a
//! certificate: UTC, whole seconds (the fraction is dropped), UTCTime for the years 1950 to
//! 2049 and GeneralizedTime otherwise (RFC 5280, 4.1.2.5); years outside 0 to 9999 cannot
//! be written.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

const NANOS_PER_SECOND: i128 = 1_000_000_000;
const SECONDS_PER_DAY: i64 = 86_400;

/// Nanoseconds since the Unix epoch (negative before it).
pub(super) fn unix_nanos(at: SystemTime) -> i128 {
    match at.duration_since(UNIX_EPOCH) {
        Ok(after) => after.as_nanos() as i128,
        Err(before) => -(before.duration().as_nanos() as i128),
    }
}

/// `at` moved by `nanos` (Go's `Time.Add`); `None` if `SystemTime` cannot hold the result.
pub(super) fn add_nanos(at: SystemTime, nanos: i64) -> Option<SystemTime> {
    let magnitude = Duration::from_nanos(nanos.unsigned_abs());
    if nanos >= 0 { at.checked_add(magnitude) } else { at.checked_sub(magnitude) }
}

/// The DER UTCTime or GeneralizedTime of `at`; `None` when the year is outside 0 to 9999.
pub(super) fn encode(at: SystemTime) -> Option<Vec<u8>> {
    let seconds = i64::try_from(unix_nanos(at).div_euclid(NANOS_PER_SECOND)).ok()?;
    let (year, month, day) = civil_from_days(seconds.div_euclid(SECONDS_PER_DAY));
    let second_of_day = seconds.rem_euclid(SECONDS_PER_DAY);
    let (hour, minute, second) =
        (second_of_day / 3600, (second_of_day % 3600) / 60, second_of_day % 60);
    let clock = format!("{month:02}{day:02}{hour:02}{minute:02}{second:02}Z");
    let (tag, text) = match year {
        1950..=2049 => (0x17, format!("{:02}{clock}", year % 100)),
        0..=9999 => (0x18, format!("{year:04}{clock}")),
        _ => return None,
    };
    Some(crate::der::tlv(tag, text.as_bytes()))
}

/// (year, month, day) of the proleptic Gregorian calendar for a count of days since
/// 1970-01-01 (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * shifted_month + 2) / 5 + 1;
    let month = if shifted_month < 10 { shifted_month + 3 } else { shifted_month - 9 };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(seconds: i64, nanos: u32) -> SystemTime {
        let base = if seconds >= 0 {
            UNIX_EPOCH + Duration::from_secs(seconds.unsigned_abs())
        } else {
            UNIX_EPOCH - Duration::from_secs(seconds.unsigned_abs())
        };
        base + Duration::from_nanos(u64::from(nanos))
    }

    fn text(at: SystemTime) -> (u8, String) {
        let der = encode(at).unwrap();
        (der[0], String::from_utf8(der[2..].to_vec()).unwrap())
    }

    #[test]
    fn utc_time_inside_1950_to_2049() {
        assert_eq!(text(at(0, 0)), (0x17, "700101000000Z".into()));
        // 2024-02-29T23:59:59.999999999Z: the fraction is dropped, not rounded.
        assert_eq!(text(at(1_709_251_199, 999_999_999)), (0x17, "240229235959Z".into()));
        // 2049-12-31T23:59:59Z is the last UTCTime.
        assert_eq!(text(at(2_524_607_999, 0)), (0x17, "491231235959Z".into()));
        // 1950-01-01T00:00:00Z is the first.
        assert_eq!(text(at(-631_152_000, 0)), (0x17, "500101000000Z".into()));
    }

    #[test]
    fn generalized_time_outside() {
        assert_eq!(text(at(2_524_608_000, 0)), (0x18, "20500101000000Z".into()));
        assert_eq!(text(at(-631_152_001, 0)), (0x18, "19491231235959Z".into()));
        // 9999-12-31T23:59:59Z, the last time that can be written.
        assert_eq!(text(at(253_402_300_799, 0)), (0x18, "99991231235959Z".into()));
        assert_eq!(encode(at(253_402_300_800, 0)), None);
    }

    #[test]
    fn before_the_epoch_with_a_fraction_rounds_down() {
        // -0.5 s is 1969-12-31T23:59:59.5Z.
        let half_before = UNIX_EPOCH - Duration::from_millis(500);
        assert_eq!(text(half_before), (0x17, "691231235959Z".into()));
    }

    #[test]
    fn adding_signed_nanoseconds() {
        let start = at(100, 0);
        assert_eq!(add_nanos(start, 1_500_000_000), Some(at(101, 500_000_000)));
        assert_eq!(add_nanos(start, -1_000_000_000), Some(at(99, 0)));
        assert_eq!(unix_nanos(at(-1, 0)), -1_000_000_000);
    }
}
