//! The parts of Go's `time` package the decisions depend on: `Time.Sub` (saturating at the
//! `int64` nanosecond range), `Time.Add`, `Time.Truncate(time.Second)` and the three layouts
//! upstream's messages use. Times are UTC: cert-manager's containers have no local zone, so
//! the `Local` times client-go decodes print as UTC.

use certgate_gofmt::GoDuration;
use chrono::{DateTime, Datelike, TimeDelta, Timelike, Utc};

const NANOS_PER_SECOND: i128 = 1_000_000_000;

fn unix_nanos(t: DateTime<Utc>) -> i128 {
    i128::from(t.timestamp()) * NANOS_PER_SECOND + i128::from(t.timestamp_subsec_nanos())
}

/// `t.Sub(u)`: the nanoseconds from `u` to `t`, saturating at the `time.Duration` range
/// (about 292 years) as Go does.
pub fn sub(t: DateTime<Utc>, u: DateTime<Utc>) -> GoDuration {
    let nanos = unix_nanos(t) - unix_nanos(u);
    GoDuration(i64::try_from(nanos).unwrap_or(if nanos < 0 { i64::MIN } else { i64::MAX }))
}

/// `t.Add(d)`. Go's times reach further than chrono's (±262 000 years); a sum beyond chrono's
/// range saturates at its ends, which no X.509 or Kubernetes time comes near.
pub fn add(t: DateTime<Utc>, d: GoDuration) -> DateTime<Utc> {
    t.checked_add_signed(TimeDelta::nanoseconds(d.0)).unwrap_or(if d.0 < 0 {
        DateTime::<Utc>::MIN_UTC
    } else {
        DateTime::<Utc>::MAX_UTC
    })
}

/// `t.Truncate(time.Second)`: rounded down to the whole second (Go's zero time is a whole
/// number of seconds from the Unix epoch, so this is the floor of the Unix time).
pub fn truncate_to_second(t: DateTime<Utc>) -> DateTime<Utc> {
    DateTime::from_timestamp(t.timestamp(), 0).unwrap_or(t)
}

/// Go's `2006` year: at least four digits, a sign only when negative.
fn year(t: DateTime<Utc>) -> String {
    let y = t.year();
    let sign = if y < 0 { "-" } else { "" };
    format!("{sign}{:04}", y.unsigned_abs())
}

/// `t.String()` of a UTC time: `2006-01-02 15:04:05.999999999 +0000 UTC`, the fraction
/// without trailing zeros and left out when zero.
pub fn go_string(t: DateTime<Utc>) -> String {
    let nanos = t.nanosecond() % 1_000_000_000;
    let fraction = if nanos == 0 {
        String::new()
    } else {
        format!(".{nanos:09}").trim_end_matches('0').to_owned()
    };
    format!("{}-{}{fraction} +0000 UTC", year(t), t.format("%m-%d %H:%M:%S"))
}

/// `t.Format(time.RFC3339)` of a UTC time: `2006-01-02T15:04:05Z` (no fraction).
pub fn rfc3339(t: DateTime<Utc>) -> String {
    format!("{}-{}Z", year(t), t.format("%m-%dT%H:%M:%S"))
}

/// `t.Format(time.RFC1123)` of a UTC time: `Mon, 02 Jan 2006 15:04:05 UTC`.
pub fn rfc1123(t: DateTime<Utc>) -> String {
    format!("{} {} {} UTC", t.format("%a, %d %b"), year(t), t.format("%H:%M:%S"))
}

#[cfg(test)]
mod tests;
