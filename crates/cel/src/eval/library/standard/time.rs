//! Timestamp and duration accessors: `getFullYear`, `getMonth`, ..., `getMilliseconds`.
//!
//! Timestamp accessors read the calendar fields in UTC or in the time zone given as
//! their argument: an IANA name (`America/Los_Angeles`) or a fixed offset
//! (`+05:30`, `-08:00`, `02:00`). As in cel-go, a zone containing `:` is an offset,
//! anything else a name. Month, day of year and day of month count from zero, except
//! `getDate`; day of week counts from Sunday = 0.

use chrono::{DateTime, Datelike, NaiveDateTime, TimeDelta, Timelike};
use chrono_tz::Tz;

use crate::eval::{FnResult, Functions, Impl};
use crate::value::{Timestamp, Value, ValueError};

const NANOS_PER_SECOND: i128 = 1_000_000_000;
const NANOS_PER_MILLI: i128 = 1_000_000;

/// Longest zone text an error message repeats.
const MAX_ZONE_CHARS: usize = 64;

#[derive(Clone, Copy)]
enum Field {
    Year,
    Month,
    DayOfYear,
    DayOfMonth,
    Date,
    DayOfWeek,
    Hours,
    Minutes,
    Seconds,
    Milliseconds,
}

pub(super) fn register(functions: &mut Functions) {
    // Closures rather than a loop: an implementation is a plain function pointer,
    // so each field needs its own non-capturing closure.
    let accessors: [(&str, &str, Impl, Impl); 10] = [
        (
            "timestamp_to_year",
            "timestamp_to_year_with_tz",
            Impl::Unary(|t| timestamp_field(t, None, Field::Year)),
            Impl::Binary(|t, z| timestamp_field(t, Some(z), Field::Year)),
        ),
        (
            "timestamp_to_month",
            "timestamp_to_month_with_tz",
            Impl::Unary(|t| timestamp_field(t, None, Field::Month)),
            Impl::Binary(|t, z| timestamp_field(t, Some(z), Field::Month)),
        ),
        (
            "timestamp_to_day_of_year",
            "timestamp_to_day_of_year_with_tz",
            Impl::Unary(|t| timestamp_field(t, None, Field::DayOfYear)),
            Impl::Binary(|t, z| timestamp_field(t, Some(z), Field::DayOfYear)),
        ),
        (
            "timestamp_to_day_of_month",
            "timestamp_to_day_of_month_with_tz",
            Impl::Unary(|t| timestamp_field(t, None, Field::DayOfMonth)),
            Impl::Binary(|t, z| timestamp_field(t, Some(z), Field::DayOfMonth)),
        ),
        (
            "timestamp_to_day_of_month_1_based",
            "timestamp_to_day_of_month_1_based_with_tz",
            Impl::Unary(|t| timestamp_field(t, None, Field::Date)),
            Impl::Binary(|t, z| timestamp_field(t, Some(z), Field::Date)),
        ),
        (
            "timestamp_to_day_of_week",
            "timestamp_to_day_of_week_with_tz",
            Impl::Unary(|t| timestamp_field(t, None, Field::DayOfWeek)),
            Impl::Binary(|t, z| timestamp_field(t, Some(z), Field::DayOfWeek)),
        ),
        (
            "timestamp_to_hours",
            "timestamp_to_hours_with_tz",
            Impl::Unary(|t| timestamp_field(t, None, Field::Hours)),
            Impl::Binary(|t, z| timestamp_field(t, Some(z), Field::Hours)),
        ),
        (
            "timestamp_to_minutes",
            "timestamp_to_minutes_with_tz",
            Impl::Unary(|t| timestamp_field(t, None, Field::Minutes)),
            Impl::Binary(|t, z| timestamp_field(t, Some(z), Field::Minutes)),
        ),
        (
            "timestamp_to_seconds",
            // cel-go spells this id without "with".
            "timestamp_to_seconds_tz",
            Impl::Unary(|t| timestamp_field(t, None, Field::Seconds)),
            Impl::Binary(|t, z| timestamp_field(t, Some(z), Field::Seconds)),
        ),
        (
            "timestamp_to_milliseconds",
            "timestamp_to_milliseconds_with_tz",
            Impl::Unary(|t| timestamp_field(t, None, Field::Milliseconds)),
            Impl::Binary(|t, z| timestamp_field(t, Some(z), Field::Milliseconds)),
        ),
    ];
    for (plain, with_zone, plain_impl, zone_impl) in accessors {
        functions.add(plain, plain_impl);
        functions.add(with_zone, zone_impl);
    }
    functions.add("duration_to_hours", Impl::Unary(|d| duration_total(d, 3_600, "getHours")));
    functions.add("duration_to_minutes", Impl::Unary(|d| duration_total(d, 60, "getMinutes")));
    functions.add("duration_to_seconds", Impl::Unary(|d| duration_total(d, 1, "getSeconds")));
    functions.add("duration_to_milliseconds", Impl::Unary(duration_milliseconds));
}

/// The function name of `field`, for `no such overload` errors.
fn function_name(field: Field) -> &'static str {
    match field {
        Field::Year => "getFullYear",
        Field::Month => "getMonth",
        Field::DayOfYear => "getDayOfYear",
        Field::DayOfMonth => "getDayOfMonth",
        Field::Date => "getDate",
        Field::DayOfWeek => "getDayOfWeek",
        Field::Hours => "getHours",
        Field::Minutes => "getMinutes",
        Field::Seconds => "getSeconds",
        Field::Milliseconds => "getMilliseconds",
    }
}

fn timestamp_field(ts: &Value, zone: Option<&Value>, field: Field) -> FnResult {
    let no_overload = || {
        let mut args = vec![ts];
        args.extend(zone);
        ValueError::no_overload(function_name(field), &args)
    };
    let Value::Timestamp(ts) = ts else {
        return Err(no_overload());
    };
    let local = match zone {
        None => utc(*ts)?,
        Some(Value::String(zone)) => in_zone(*ts, zone)?,
        Some(_) => return Err(no_overload()),
    };
    Ok(Value::Int(read(&local, field)))
}

fn read(local: &NaiveDateTime, field: Field) -> i64 {
    let n = match field {
        Field::Year => return i64::from(local.year()),
        Field::Month => local.month0(),
        Field::DayOfYear => local.ordinal0(),
        Field::DayOfMonth => local.day0(),
        Field::Date => local.day(),
        Field::DayOfWeek => local.weekday().num_days_from_sunday(),
        Field::Hours => local.hour(),
        Field::Minutes => local.minute(),
        Field::Seconds => local.second(),
        Field::Milliseconds => local.nanosecond() / 1_000_000,
    };
    i64::from(n)
}

/// The timestamp's date and time of day in UTC.
fn utc(ts: Timestamp) -> Result<NaiveDateTime, ValueError> {
    let nanos = ts.total_nanos();
    let seconds = i64::try_from(nanos.div_euclid(NANOS_PER_SECOND)).ok();
    let subsec = u32::try_from(nanos.rem_euclid(NANOS_PER_SECOND)).ok();
    seconds
        .zip(subsec)
        .and_then(|(s, n)| DateTime::from_timestamp(s, n))
        .map(|dt| dt.naive_utc())
        // Timestamps are within years 1 to 9999, which chrono represents.
        .ok_or(ValueError::TimestampOverflow)
}

/// The timestamp's date and time of day in `zone`.
fn in_zone(ts: Timestamp, zone: &str) -> Result<NaiveDateTime, ValueError> {
    let utc = utc(ts)?;
    if zone.contains(':') {
        let offset =
            TimeDelta::try_seconds(parse_offset(zone)?).ok_or_else(|| invalid_offset(zone))?;
        return utc.checked_add_signed(offset).ok_or(ValueError::TimestampOverflow);
    }
    // Go's time.LoadLocation reads the empty name as UTC.
    if zone.is_empty() {
        return Ok(utc);
    }
    let tz: Tz = zone.parse().map_err(|_| {
        let name: String = zone.chars().take(MAX_ZONE_CHARS).collect();
        ValueError::Message(format!("unknown time zone {name}"))
    })?;
    Ok(utc.and_utc().with_timezone(&tz).naive_local())
}

/// Seconds east of UTC of an offset `[+|-]HH:MM`; the sign applies to the whole
/// offset, so `-00:30` is half an hour west.
fn parse_offset(zone: &str) -> Result<i64, ValueError> {
    let (sign, rest) = match zone.as_bytes().first() {
        Some(b'-') => (-1, zone.get(1..).unwrap_or("")),
        Some(b'+') => (1, zone.get(1..).unwrap_or("")),
        _ => (1, zone),
    };
    let (hours, minutes) = rest.split_once(':').ok_or_else(|| invalid_offset(zone))?;
    let number = |part: &str, max: i64| {
        if part.is_empty() || part.len() > 2 || !part.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        part.parse::<i64>().ok().filter(|n| *n <= max)
    };
    let hours = number(hours, 23).ok_or_else(|| invalid_offset(zone))?;
    let minutes = number(minutes, 59).ok_or_else(|| invalid_offset(zone))?;
    Ok(sign * (hours * 3_600 + minutes * 60))
}

fn invalid_offset(zone: &str) -> ValueError {
    let zone: String = zone.chars().take(MAX_ZONE_CHARS).collect();
    ValueError::Message(format!(
        "invalid time zone offset '{zone}': expected [+|-]HH:MM with hours 0-23 and minutes 0-59"
    ))
}

/// A duration in whole `unit_seconds`, truncated toward zero.
fn duration_total(d: &Value, unit_seconds: i128, function: &str) -> FnResult {
    let Value::Duration(d) = d else {
        return Err(ValueError::no_overload(function, &[d]));
    };
    let total = d.total_nanos() / (unit_seconds * NANOS_PER_SECOND);
    // Durations span at most ±10,000 years, so any count in seconds or coarser fits.
    Ok(Value::Int(i64::try_from(total).map_err(|_| ValueError::DurationOverflow)?))
}

/// The millisecond component of a duration (`1.5s` gives 500), not its total in
/// milliseconds: cel-spec's conformance data fixes this (deprecated) behaviour.
fn duration_milliseconds(d: &Value) -> FnResult {
    let Value::Duration(d) = d else {
        return Err(ValueError::no_overload("getMilliseconds", &[d]));
    };
    let millis = d.total_nanos() % NANOS_PER_SECOND / NANOS_PER_MILLI;
    Ok(Value::Int(i64::try_from(millis).map_err(|_| ValueError::DurationOverflow)?))
}
