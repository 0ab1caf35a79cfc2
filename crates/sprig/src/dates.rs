//! Date functions. A Go `time.Time` travels through templates as the text Go prints for it
//! (`2006-01-02 15:04:05.999999999 -0700 MST`); date functions read that text back. The
//! process's local zone is taken to be UTC (certgate runs in containers without TZ).

use certgate_gotemplate::{FuncError, FuncMap, Value};
use chrono::{DateTime, Datelike, FixedOffset, NaiveDate, Offset, TimeZone, Timelike, Utc};

use crate::args::{Arity, call_err, reg, s};
use crate::convert::to_int64;
use crate::golayout::{self, Parts};

/// Layout of Go's `Time.String()` (without the monotonic clock reading).
pub const TIME_STRING: &str = "2006-01-02 15:04:05.999999999 -0700 MST";

/// An instant with the zone it is shown in.
#[derive(Clone, Debug)]
pub struct GoTime {
    pub at: DateTime<FixedOffset>,
    pub zone: String,
}

impl GoTime {
    pub fn now() -> GoTime {
        GoTime::in_zone(Utc::now(), "UTC")
            .unwrap_or_else(|| GoTime { at: Utc::now().fixed_offset(), zone: "UTC".into() })
    }

    pub fn from_unix(secs: i64) -> GoTime {
        let at = Utc.timestamp_opt(secs, 0).single().unwrap_or_default();
        GoTime { at: at.fixed_offset(), zone: "UTC".into() }
    }

    /// The same instant shown in an IANA zone (`""`/`UTC` → UTC, `Local` → UTC); `None` if the
    /// zone is unknown.
    pub fn in_zone(at: DateTime<Utc>, zone: &str) -> Option<GoTime> {
        if zone.is_empty() || zone == "UTC" || zone == "Local" {
            return Some(GoTime { at: at.fixed_offset(), zone: "UTC".into() });
        }
        let tz: chrono_tz::Tz = zone.parse().ok()?;
        let local = at.with_timezone(&tz);
        let off = local.offset();
        let fixed = off.fix();
        use chrono_tz::OffsetName;
        let abbr = off.abbreviation().unwrap_or("").to_string();
        Some(GoTime { at: at.with_timezone(&fixed), zone: abbr })
    }

    pub fn utc(&self) -> DateTime<Utc> {
        self.at.with_timezone(&Utc)
    }

    pub fn format(&self, layout: &str) -> String {
        let a = &self.at;
        let parts = Parts {
            year: i64::from(a.year()),
            month: a.month(),
            day: a.day(),
            yday: a.ordinal(),
            weekday: a.weekday().num_days_from_sunday(),
            hour: a.hour(),
            minute: a.minute(),
            second: a.second(),
            nanos: a.nanosecond().min(999_999_999),
            offset: a.offset().local_minus_utc(),
            zone: self.zone.clone(),
        };
        golayout::format(&parts, layout)
    }

    /// `Time.String()`.
    pub fn to_value(&self) -> Value {
        s(self.format(TIME_STRING))
    }

    /// Go's `time.ParseInLocation(layout, value, Local)`.
    pub fn parse(layout: &str, value: &str) -> Result<GoTime, String> {
        let p = golayout::parse(layout, value)?;
        let date = match p.yday {
            Some(yd) => NaiveDate::from_yo_opt(p.year as i32, yd),
            None => NaiveDate::from_ymd_opt(p.year as i32, p.month, p.day),
        }
        .ok_or_else(|| {
            format!("parsing time {}: day out of range", certgate_gofmt::quote(value))
        })?;
        let naive =
            date.and_hms_nano_opt(p.hour, p.minute, p.second, p.nanos).ok_or_else(|| {
                format!("parsing time {}: hour out of range", certgate_gofmt::quote(value))
            })?;
        let offset = p.offset.unwrap_or(0);
        let fixed = FixedOffset::east_opt(offset).unwrap_or(Utc.fix());
        let at = fixed
            .from_local_datetime(&naive)
            .single()
            .unwrap_or_else(|| Utc.fix().from_utc_datetime(&naive));
        // A numeric offset other than UTC's has no zone name (Go prints the offset).
        let zone = match (&p.zone, p.offset) {
            (Some(z), _) => z.clone(),
            (None, None) | (None, Some(0)) => "UTC".into(),
            (None, Some(_)) => String::new(),
        };
        Ok(GoTime { at, zone })
    }

    /// A template value that is a time (its `String()` text).
    pub fn from_value(v: &Value) -> Option<GoTime> {
        match v {
            Value::String(text) => GoTime::parse(TIME_STRING, text).ok(),
            _ => None,
        }
    }

    pub fn zero() -> GoTime {
        let naive = NaiveDate::from_ymd_opt(1, 1, 1)
            .and_then(|d| d.and_hms_opt(0, 0, 0))
            .unwrap_or_default();
        GoTime { at: Utc.fix().from_utc_datetime(&naive), zone: "UTC".into() }
    }
}

/// sprig's date argument: a time, or Unix seconds; anything else means now.
fn date_arg(v: &Value) -> GoTime {
    match v {
        Value::Int(n) => GoTime::from_unix(*n),
        Value::Uint(n) => GoTime::from_unix(i64::try_from(*n).unwrap_or(i64::MAX)),
        other => GoTime::from_value(other).unwrap_or_else(GoTime::now),
    }
}

fn format_date(v: &Value, layout: &str, zone: &str) -> String {
    let t = date_arg(v);
    let shown = GoTime::in_zone(t.utc(), zone)
        .unwrap_or_else(|| GoTime { at: t.utc().fixed_offset(), zone: "UTC".into() });
    shown.format(layout)
}

/// A `time.Time` parameter: only time values convert.
fn time_param(v: &Value) -> Result<GoTime, FuncError> {
    GoTime::from_value(v).ok_or_else(|| crate::args::wrong_type("time.Time", v))
}

const NANOS_PER_SEC: i128 = 1_000_000_000;

/// Go's `Duration.String()` for a count of nanoseconds.
pub fn duration_string(d: i64) -> String {
    if d == 0 {
        return "0s".into();
    }
    let neg = d < 0;
    let u = (d as i128).unsigned_abs();
    let mut out = String::new();
    if u < NANOS_PER_SEC as u128 {
        let (unit, scale) = if u < 1_000 {
            ("ns", 1u128)
        } else if u < 1_000_000 {
            ("µs", 1_000)
        } else {
            ("ms", 1_000_000)
        };
        out.push_str(&frac(u, scale));
        out.push_str(unit);
    } else {
        let secs = u / NANOS_PER_SEC as u128;
        let nanos = u % NANOS_PER_SEC as u128;
        let (h, m, sec) = (secs / 3600, (secs / 60) % 60, secs % 60);
        if h > 0 {
            out.push_str(&format!("{h}h"));
        }
        if h > 0 || m > 0 {
            out.push_str(&format!("{m}m"));
        }
        out.push_str(&frac(sec * NANOS_PER_SEC as u128 + nanos, NANOS_PER_SEC as u128));
        out.push('s');
    }
    if neg { format!("-{out}") } else { out }
}

fn frac(v: u128, scale: u128) -> String {
    let whole = v / scale;
    let rest = v % scale;
    if rest == 0 {
        return whole.to_string();
    }
    let width = scale.to_string().len() - 1;
    let digits = format!("{rest:0width$}");
    format!("{whole}.{}", digits.trim_end_matches('0'))
}

/// Go's `time.ParseDuration`, in nanoseconds.
pub fn parse_duration(text: &str) -> Result<i64, String> {
    let bad = || format!("time: invalid duration {}", certgate_gofmt::quote(text));
    let (neg, mut rest) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    if rest == "0" {
        return Ok(0);
    }
    if rest.is_empty() {
        return Err(bad());
    }
    let mut total: i128 = 0;
    while !rest.is_empty() {
        let int_len = rest.bytes().take_while(u8::is_ascii_digit).count();
        let int_part = &rest[..int_len];
        rest = &rest[int_len..];
        let mut frac_part = "";
        if let Some(r) = rest.strip_prefix('.') {
            let n = r.bytes().take_while(u8::is_ascii_digit).count();
            frac_part = &r[..n];
            rest = &r[n..];
            if int_len == 0 && n == 0 {
                return Err(bad());
            }
        } else if int_len == 0 {
            return Err(bad());
        }
        let unit_len = rest.find(|c: char| c == '.' || c.is_ascii_digit()).unwrap_or(rest.len());
        let unit = &rest[..unit_len];
        rest = &rest[unit_len..];
        let scale: i128 = match unit {
            "" => {
                return Err(format!(
                    "time: missing unit in duration {}",
                    certgate_gofmt::quote(text)
                ));
            }
            "ns" => 1,
            "us" | "µs" | "μs" => 1_000,
            "ms" => 1_000_000,
            "s" => NANOS_PER_SEC,
            "m" => 60 * NANOS_PER_SEC,
            "h" => 3600 * NANOS_PER_SEC,
            other => {
                return Err(format!(
                    "time: unknown unit {} in duration {}",
                    certgate_gofmt::quote(other),
                    certgate_gofmt::quote(text)
                ));
            }
        };
        let whole: i128 =
            if int_part.is_empty() { 0 } else { int_part.parse().map_err(|_| bad())? };
        let mut v = whole.checked_mul(scale).ok_or_else(bad)?;
        if !frac_part.is_empty() {
            let digits: String = frac_part.chars().take(30).collect();
            let num: i128 = digits.parse().map_err(|_| bad())?;
            let den = 10i128.checked_pow(digits.len() as u32).ok_or_else(bad)?;
            v += num * scale / den;
        }
        total = total.checked_add(v).ok_or_else(bad)?;
        if total > i64::MAX as i128 + i128::from(neg) {
            return Err(bad());
        }
    }
    let total = if neg { -total } else { total };
    i64::try_from(total).map_err(|_| bad())
}

fn since_nanos(t: &GoTime) -> i64 {
    let d = Utc::now().signed_duration_since(t.utc());
    d.num_nanoseconds().unwrap_or(if d.num_seconds() > 0 { i64::MAX } else { i64::MIN })
}

/// `Duration.Round(time.Second)`: halves away from zero.
fn round_to_second(d: i64) -> i64 {
    let n = NANOS_PER_SEC as i64;
    let r = d % n;
    if d < 0 {
        let r = -r;
        if r + r < n { d + r } else { d.saturating_sub(n - r) }
    } else if r + r < n {
        d - r
    } else {
        d.saturating_add(n - r)
    }
}

fn duration_round(d: i64) -> String {
    let u = d.unsigned_abs();
    const SEC: u64 = 1_000_000_000;
    let units: [(u64, &str); 6] = [
        (SEC * 3600 * 24 * 365, "y"),
        (SEC * 3600 * 24 * 30, "mo"),
        (SEC * 3600 * 24, "d"),
        (SEC * 3600, "h"),
        (SEC * 60, "m"),
        (SEC, "s"),
    ];
    for (size, name) in units {
        if u > size {
            return format!("{}{name}", u / size);
        }
    }
    "0s".into()
}

pub fn register(m: &mut FuncMap) {
    reg(m, "now", Arity::Exact(0), |_| Ok(GoTime::now().to_value()));
    reg(m, "date", Arity::Exact(2), |a| Ok(s(format_date(a.any(1), a.str(0)?, "Local"))));
    for name in ["dateInZone", "date_in_zone"] {
        reg(m, name, Arity::Exact(3), |a| {
            let layout = a.str(0)?;
            Ok(s(format_date(a.any(1), layout, a.str(2)?)))
        });
    }
    reg(m, "htmlDate", Arity::Exact(1), |a| Ok(s(format_date(a.any(0), "2006-01-02", "Local"))));
    reg(m, "htmlDateInZone", Arity::Exact(2), |a| {
        Ok(s(format_date(a.any(0), "2006-01-02", a.str(1)?)))
    });
    for (name, must) in [
        ("dateModify", false),
        ("date_modify", false),
        ("mustDateModify", true),
        ("must_date_modify", true),
    ] {
        reg(m, name, Arity::Exact(2), move |a| {
            let spec = a.str(0)?;
            let t = time_param(a.any(1))?;
            match parse_duration(spec) {
                Ok(d) => {
                    let at =
                        t.at.checked_add_signed(chrono::Duration::nanoseconds(d)).unwrap_or(t.at);
                    Ok(GoTime { at, zone: t.zone }.to_value())
                }
                Err(e) if must => Err(call_err(e)),
                Err(_) => Ok(t.to_value()),
            }
        });
    }
    reg(m, "toDate", Arity::Exact(2), |a| {
        let layout = a.str(0)?;
        Ok(GoTime::parse(layout, a.str(1)?).unwrap_or_else(|_| GoTime::zero()).to_value())
    });
    reg(m, "mustToDate", Arity::Exact(2), |a| {
        let layout = a.str(0)?;
        GoTime::parse(layout, a.str(1)?).map(|t| t.to_value()).map_err(call_err)
    });
    reg(m, "unixEpoch", Arity::Exact(1), |a| {
        Ok(s(time_param(a.any(0))?.utc().timestamp().to_string()))
    });
    reg(m, "ago", Arity::Exact(1), |a| {
        let t = date_arg(a.any(0));
        Ok(s(duration_string(round_to_second(since_nanos(&t)))))
    });
    reg(m, "duration", Arity::Exact(1), |a| {
        let secs = match a.any(0) {
            Value::String(text) => crate::gofmt::parse_int(text, false).unwrap_or(0),
            other => to_int64(other),
        };
        Ok(s(duration_string(secs.wrapping_mul(1_000_000_000))))
    });
    reg(m, "durationRound", Arity::Exact(1), |a| {
        let d = match a.any(0) {
            Value::String(text) => match parse_duration(text) {
                Ok(d) => d,
                Err(_) => GoTime::from_value(a.any(0)).map_or(0, |t| since_nanos(&t)),
            },
            Value::Int(n) => *n,
            _ => 0,
        };
        Ok(s(duration_round(d)))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_print_like_go() {
        for (ns, want) in [
            (0, "0s"),
            (1, "1ns"),
            (1_500, "1.5µs"),
            (2_000_000, "2ms"),
            (95_000_000_000, "1m35s"),
            (3_600_000_000_000, "1h0m0s"),
            (-1_500_000_000, "-1.5s"),
        ] {
            assert_eq!(duration_string(ns), want);
        }
    }

    #[test]
    fn parse_durations() {
        assert_eq!(parse_duration("1h30m"), Ok(5_400_000_000_000));
        assert_eq!(parse_duration("-1.5h"), Ok(-5_400_000_000_000));
        assert_eq!(parse_duration("x"), Err("time: invalid duration \"x\"".into()));
        assert_eq!(parse_duration("1"), Err("time: missing unit in duration \"1\"".into()));
        assert_eq!(parse_duration("1d"), Err("time: unknown unit \"d\" in duration \"1d\"".into()));
    }
}
