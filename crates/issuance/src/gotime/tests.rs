use chrono::{DateTime, TimeZone, Utc};
use proptest::prelude::*;

use super::*;

fn at(y: i32, mo: u32, d: u32, h: u32, mi: u32, s: u32, nanos: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(y, mo, d, h, mi, s).unwrap() + TimeDelta::nanoseconds(nanos.into())
}

// Expected texts printed by Go 1.x's time package for the same instants.
#[test]
fn renders_like_go() {
    let t = at(2024, 2, 29, 13, 4, 5, 120_000_000);
    assert_eq!(go_string(t), "2024-02-29 13:04:05.12 +0000 UTC");
    assert_eq!(rfc3339(t), "2024-02-29T13:04:05Z");
    assert_eq!(rfc1123(t), "Thu, 29 Feb 2024 13:04:05 UTC");
    assert_eq!(go_string(at(2025, 1, 2, 3, 4, 5, 0)), "2025-01-02 03:04:05 +0000 UTC");
    assert_eq!(go_string(at(5, 1, 2, 3, 4, 5, 1)), "0005-01-02 03:04:05.000000001 +0000 UTC");
    assert_eq!(rfc1123(at(9, 12, 31, 23, 59, 59, 999)), "Thu, 31 Dec 0009 23:59:59 UTC");
}

#[test]
fn sub_saturates_like_go() {
    let (a, b) = (at(1700, 1, 1, 0, 0, 0, 0), at(2100, 1, 1, 0, 0, 0, 0));
    assert_eq!(sub(b, a), GoDuration(i64::MAX));
    assert_eq!(sub(a, b), GoDuration(i64::MIN));
    assert_eq!(
        sub(at(2024, 1, 1, 0, 0, 1, 5), at(2024, 1, 1, 0, 0, 0, 0)),
        GoDuration(1_000_000_005)
    );
}

#[test]
fn add_saturates_at_chronos_range() {
    assert_eq!(add(DateTime::<Utc>::MAX_UTC, GoDuration(1)), DateTime::<Utc>::MAX_UTC);
    assert_eq!(add(DateTime::<Utc>::MIN_UTC, GoDuration(-1)), DateTime::<Utc>::MIN_UTC);
}

#[test]
fn truncates_down_to_the_second() {
    assert_eq!(
        truncate_to_second(at(2024, 1, 1, 0, 0, 1, 999_999_999)),
        at(2024, 1, 1, 0, 0, 1, 0)
    );
    // Before the Unix epoch the floor still goes back in time.
    assert_eq!(
        truncate_to_second(at(1969, 12, 31, 23, 59, 59, 500)),
        at(1969, 12, 31, 23, 59, 59, 0)
    );
}

proptest! {
    #[test]
    fn sub_then_add_round_trips(a in -4_000_000_000i64..5_000_000_000, b in -4_000_000_000i64..5_000_000_000, na in 0u32..1_000_000_000, nb in 0u32..1_000_000_000) {
        let (t, u) = (DateTime::from_timestamp(a, na).unwrap(), DateTime::from_timestamp(b, nb).unwrap());
        let d = sub(t, u);
        prop_assert_eq!(add(u, d), t);
        prop_assert_eq!(sub(u, t), GoDuration(-d.0));
    }

    #[test]
    fn truncation_is_a_floor(secs in -4_000_000_000i64..8_000_000_000, nanos in 0u32..1_000_000_000) {
        let t = DateTime::from_timestamp(secs, nanos).unwrap();
        let floor = truncate_to_second(t);
        prop_assert_eq!(floor.timestamp(), secs);
        prop_assert_eq!(floor.timestamp_subsec_nanos(), 0);
        prop_assert!(floor <= t);
    }
}
