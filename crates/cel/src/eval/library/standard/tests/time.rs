//! Timestamp and duration accessors.

use super::{call, duration, error, s, timestamp};
use crate::value::Value;

const FRIDAY_13: &str = "2009-02-13T23:31:30Z";

#[test]
fn timestamp_accessors_in_utc() {
    let cases = [
        ("timestamp_to_year", 2009),
        ("timestamp_to_month", 1),
        ("timestamp_to_day_of_year", 43),
        ("timestamp_to_day_of_month", 12),
        ("timestamp_to_day_of_month_1_based", 13),
        ("timestamp_to_day_of_week", 5),
        ("timestamp_to_hours", 23),
        ("timestamp_to_minutes", 31),
        ("timestamp_to_seconds", 30),
        ("timestamp_to_milliseconds", 0),
    ];
    for (id, expected) in cases {
        assert_eq!(call(id, &[timestamp(FRIDAY_13)]), Ok(Value::Int(expected)), "{id}");
    }
    assert_eq!(
        call("timestamp_to_milliseconds", &[timestamp("2009-02-13T23:31:20.123456789Z")]),
        Ok(Value::Int(123))
    );
}

#[test]
fn timestamp_accessors_in_named_and_fixed_zones() {
    let cases = [
        ("timestamp_to_day_of_month_1_based_with_tz", FRIDAY_13, "Australia/Sydney", 14),
        ("timestamp_to_day_of_month_with_tz", FRIDAY_13, "US/Central", 12),
        ("timestamp_to_day_of_month_with_tz", FRIDAY_13, "+11:00", 13),
        ("timestamp_to_day_of_month_with_tz", "2009-02-13T02:00:00Z", "-02:30", 11),
        ("timestamp_to_day_of_month_with_tz", "2009-02-13T02:00:00Z", "America/St_Johns", 11),
        ("timestamp_to_day_of_week_with_tz", FRIDAY_13, "UTC", 5),
        ("timestamp_to_day_of_year_with_tz", FRIDAY_13, "US/Central", 43),
        ("timestamp_to_year_with_tz", FRIDAY_13, "-09:30", 2009),
        ("timestamp_to_hours_with_tz", FRIDAY_13, "02:00", 1),
        ("timestamp_to_minutes_with_tz", FRIDAY_13, "Asia/Kathmandu", 16),
        ("timestamp_to_month_with_tz", FRIDAY_13, "UTC", 1),
        ("timestamp_to_seconds_tz", FRIDAY_13, "-00:00", 30),
        ("timestamp_to_minutes_with_tz", FRIDAY_13, "-00:30", 1),
        ("timestamp_to_milliseconds_with_tz", "2009-02-13T23:31:20.5Z", "+05:30", 500),
        ("timestamp_to_year_with_tz", "0001-01-01T00:00:00Z", "-01:00", 0),
        ("timestamp_to_hours_with_tz", FRIDAY_13, "", 23),
    ];
    for (id, ts, zone, expected) in cases {
        assert_eq!(
            call(id, &[timestamp(ts), s(zone)]),
            Ok(Value::Int(expected)),
            "{id}({ts}, {zone:?})"
        );
    }
}

#[test]
fn bad_zones_are_errors() {
    let ts = || timestamp(FRIDAY_13);
    assert_eq!(
        error("timestamp_to_hours_with_tz", &[ts(), s("Mars/Olympus_Mons")]),
        "unknown time zone Mars/Olympus_Mons"
    );
    let expected = "expected [+|-]HH:MM with hours 0-23 and minutes 0-59";
    for zone in ["+24:00", "05:60", "+5:", "a:b", "+05:30:00", "--01:00"] {
        assert_eq!(
            error("timestamp_to_hours_with_tz", &[ts(), s(zone)]),
            format!("invalid time zone offset '{zone}': {expected}"),
            "{zone}"
        );
    }
    assert_eq!(
        error("timestamp_to_hours_with_tz", &[ts(), Value::Int(1)]),
        "no such overload: getHours(google.protobuf.Timestamp, int)"
    );
    assert_eq!(error("timestamp_to_year", &[s("2009")]), "no such overload: getFullYear(string)");
}

#[test]
fn duration_accessors_are_totals_except_milliseconds() {
    assert_eq!(call("duration_to_hours", &[duration("10000s")]), Ok(Value::Int(2)));
    assert_eq!(call("duration_to_minutes", &[duration("3730s")]), Ok(Value::Int(62)));
    assert_eq!(call("duration_to_seconds", &[duration("3730s")]), Ok(Value::Int(3730)));
    assert_eq!(
        call("duration_to_milliseconds", &[duration("123.321456789s")]),
        Ok(Value::Int(321))
    );
    assert_eq!(call("duration_to_milliseconds", &[duration("-1.5s")]), Ok(Value::Int(-500)));
    assert_eq!(call("duration_to_seconds", &[duration("-1.5s")]), Ok(Value::Int(-1)));
    assert_eq!(call("duration_to_hours", &[duration("-90m")]), Ok(Value::Int(-1)));
    assert_eq!(error("duration_to_minutes", &[Value::Int(1)]), "no such overload: getMinutes(int)");
}
