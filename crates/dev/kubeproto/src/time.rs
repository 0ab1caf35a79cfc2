//! `metav1.Time` and `metav1.MicroTime` as Kubernetes writes them in JSON: RFC 3339 in UTC,
//! to the second for Time (`2006-01-02T15:04:05Z`) and to the microsecond for MicroTime
//! (`2006-01-02T15:04:05.000000Z`), and null for Go's zero time.

use chrono::{DateTime, Datelike, Utc};
use serde_json::Value;

/// Seconds from the Unix epoch of Go's zero `time.Time`, 0001-01-01T00:00:00Z.
const GO_ZERO_SECONDS: i64 = -62_135_596_800;

const NANOS_PER_SECOND: i64 = 1_000_000_000;

/// The time cannot be written as an RFC 3339 date (outside years 0000-9999).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct OutOfRange;

/// A Time. Go's `Time.Unmarshal` drops the nanoseconds (its JSON has none either).
pub(crate) fn time(seconds: i64) -> Result<Value, OutOfRange> {
    if seconds == GO_ZERO_SECONDS {
        return Ok(Value::Null);
    }
    let date = utc(seconds, 0)?;
    Ok(Value::String(date.format("%Y-%m-%dT%H:%M:%SZ").to_string()))
}

/// A MicroTime: nanos are normalised as Go's `time.Unix` does, then cut to microseconds.
pub(crate) fn micro_time(seconds: i64, nanos: i32) -> Result<Value, OutOfRange> {
    let nanos = i64::from(nanos);
    let seconds = seconds.checked_add(nanos.div_euclid(NANOS_PER_SECOND)).ok_or(OutOfRange)?;
    let nanos = u32::try_from(nanos.rem_euclid(NANOS_PER_SECOND)).map_err(|_| OutOfRange)?;
    if seconds == GO_ZERO_SECONDS && nanos == 0 {
        return Ok(Value::Null);
    }
    let date = utc(seconds, nanos)?;
    let micros = nanos / 1_000;
    Ok(Value::String(format!("{}.{micros:06}Z", date.format("%Y-%m-%dT%H:%M:%S"))))
}

fn utc(seconds: i64, nanos: u32) -> Result<DateTime<Utc>, OutOfRange> {
    let date = DateTime::from_timestamp(seconds, nanos).ok_or(OutOfRange)?;
    if (0..=9999).contains(&date.year()) { Ok(date) } else { Err(OutOfRange) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn times_are_rfc3339_seconds_in_utc() {
        assert_eq!(time(0), Ok(json!("1970-01-01T00:00:00Z")));
        assert_eq!(time(1_700_000_000), Ok(json!("2023-11-14T22:13:20Z")));
        assert_eq!(time(-1), Ok(json!("1969-12-31T23:59:59Z")));
    }

    #[test]
    fn the_zero_time_is_null() {
        assert_eq!(time(GO_ZERO_SECONDS), Ok(Value::Null));
        assert_eq!(micro_time(GO_ZERO_SECONDS, 0), Ok(Value::Null));
        // One nanosecond later is no longer zero.
        assert_eq!(micro_time(GO_ZERO_SECONDS, 1), Ok(json!("0001-01-01T00:00:00.000000Z")));
    }

    #[test]
    fn micro_times_have_six_fractional_digits_cut_not_rounded() {
        assert_eq!(
            micro_time(1_700_000_000, 123_456_789),
            Ok(json!("2023-11-14T22:13:20.123456Z"))
        );
        assert_eq!(micro_time(1_700_000_000, 0), Ok(json!("2023-11-14T22:13:20.000000Z")));
        assert_eq!(micro_time(1_700_000_000, 999), Ok(json!("2023-11-14T22:13:20.000000Z")));
    }

    #[test]
    fn micro_time_nanos_outside_a_second_carry_like_go() {
        assert_eq!(micro_time(10, -1), Ok(json!("1970-01-01T00:00:09.999999Z")));
        assert_eq!(micro_time(10, 1_500_000_000), Ok(json!("1970-01-01T00:00:11.500000Z")));
    }

    #[test]
    fn years_outside_0000_to_9999_are_refused() {
        assert_eq!(time(253_402_300_799), Ok(json!("9999-12-31T23:59:59Z")));
        assert_eq!(time(253_402_300_800), Err(OutOfRange));
        assert_eq!(time(-62_167_219_200), Ok(json!("0000-01-01T00:00:00Z")));
        assert_eq!(time(-62_167_219_201), Err(OutOfRange));
        assert_eq!(time(i64::MAX), Err(OutOfRange));
        assert_eq!(micro_time(i64::MAX, 1_000_000_000), Err(OutOfRange));
        assert_eq!(micro_time(i64::MIN, -1), Err(OutOfRange));
    }
}
