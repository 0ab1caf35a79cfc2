//! Plain timestamps as yaml.v3 recognises them (`resolve.go`, `parseTimestamp`): Go's
//! `time.Parse` with four layouts, tried in order:
//!
//! - `2006-1-2T15:4:5.999999999Z07:00` and the same with a lower-case `t`;
//! - `2006-1-2 15:4:5.999999999` (UTC);
//! - `2006-1-2` (UTC midnight).
//!
//! Decoded into `interface{}` they become `time.Time`, which `encoding/json` writes in
//! RFC 3339 with nanoseconds (`time.RFC3339Nano`).

/// A parsed timestamp, kept in its own fields so it can be re-printed the way Go does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timestamp {
    pub year: i32,
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
    pub second: u32,
    pub nanos: u32,
    /// Offset east of UTC in seconds.
    pub offset_seconds: i32,
}

impl Timestamp {
    /// `t.Format(time.RFC3339Nano)`: fraction without trailing zeros, `Z` for offset 0.
    pub fn rfc3339_nano(&self) -> String {
        let mut out = format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
            self.year, self.month, self.day, self.hour, self.minute, self.second
        );
        if self.nanos != 0 {
            let frac = format!("{:09}", self.nanos);
            out.push('.');
            out.push_str(frac.trim_end_matches('0'));
        }
        if self.offset_seconds == 0 {
            out.push('Z');
        } else {
            let sign = if self.offset_seconds < 0 { '-' } else { '+' };
            let abs = self.offset_seconds.unsigned_abs();
            out.push_str(&format!("{sign}{:02}:{:02}", abs / 3600, (abs % 3600) / 60));
        }
        out
    }
}

/// Go's `getnum(s, false)`: one or two digits, greedily.
fn num12(s: &[u8], i: &mut usize) -> Option<u32> {
    let d1 = *s.get(*i).filter(|b| b.is_ascii_digit())?;
    *i += 1;
    let mut v = u32::from(d1 - b'0');
    if let Some(&d2) = s.get(*i).filter(|b| b.is_ascii_digit()) {
        *i += 1;
        v = v * 10 + u32::from(d2 - b'0');
    }
    Some(v)
}

fn expect(s: &[u8], i: &mut usize, c: u8) -> Option<()> {
    (s.get(*i) == Some(&c)).then(|| *i += 1)
}

fn days_in_month(year: i32, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ => {
            let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
            if leap { 29 } else { 28 }
        }
    }
}

/// Date part `YYYY-M-D` (exactly four year digits, like Go's `2006`).
fn date(s: &[u8], i: &mut usize) -> Option<(i32, u32, u32)> {
    if s.len() < 4 || !s[..4].iter().all(u8::is_ascii_digit) {
        return None;
    }
    let year = std::str::from_utf8(&s[..4]).ok()?.parse().ok()?;
    *i = 4;
    expect(s, i, b'-')?;
    let month = num12(s, i)?;
    expect(s, i, b'-')?;
    let day = num12(s, i)?;
    if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
        return None;
    }
    Some((year, month, day))
}

/// `15:4:5` then optional `.digits` (any number; nanoseconds keep the first nine).
fn clock(s: &[u8], i: &mut usize) -> Option<(u32, u32, u32, u32)> {
    let hour = num12(s, i)?;
    expect(s, i, b':')?;
    let minute = num12(s, i)?;
    expect(s, i, b':')?;
    let second = num12(s, i)?;
    if hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    let mut nanos = 0;
    if matches!(s.get(*i), Some(b'.' | b',')) && s.get(*i + 1).is_some_and(u8::is_ascii_digit) {
        *i += 1;
        let mut scale = 100_000_000;
        while let Some(&d) = s.get(*i).filter(|b| b.is_ascii_digit()) {
            nanos += u32::from(d - b'0') * scale;
            scale /= 10;
            *i += 1;
        }
    }
    Some((hour, minute, second, nanos))
}

/// `Z07:00`: `Z`, or `±hh:mm`.
fn zone(s: &[u8], i: &mut usize) -> Option<i32> {
    if expect(s, i, b'Z').is_some() {
        return Some(0);
    }
    let sign = match s.get(*i) {
        Some(b'+') => 1,
        Some(b'-') => -1,
        _ => return None,
    };
    let rest = s.get(*i + 1..*i + 6)?;
    if !(rest[0].is_ascii_digit()
        && rest[1].is_ascii_digit()
        && rest[2] == b':'
        && rest[3].is_ascii_digit()
        && rest[4].is_ascii_digit())
    {
        return None;
    }
    let hh = i32::from(rest[0] - b'0') * 10 + i32::from(rest[1] - b'0');
    let mm = i32::from(rest[3] - b'0') * 10 + i32::from(rest[4] - b'0');
    if hh > 24 || mm > 60 {
        return None;
    }
    *i += 6;
    Some(sign * (hh * 3600 + mm * 60))
}

/// `parseTimestamp`; `None` when no layout matches the whole text.
pub fn parse_timestamp(text: &str) -> Option<Timestamp> {
    let s = text.as_bytes();
    // Quick check of resolve.go: four digits then '-'.
    if s.len() < 5 || !s[..4].iter().all(u8::is_ascii_digit) || s[4] != b'-' {
        return None;
    }
    let mut i = 0;
    let (year, month, day) = date(s, &mut i)?;
    let mut ts =
        Timestamp { year, month, day, hour: 0, minute: 0, second: 0, nanos: 0, offset_seconds: 0 };
    if i == s.len() {
        return Some(ts);
    }
    let separator = s[i];
    if !matches!(separator, b'T' | b't' | b' ') {
        return None;
    }
    i += 1;
    let (hour, minute, second, nanos) = clock(s, &mut i)?;
    ts.hour = hour;
    ts.minute = minute;
    ts.second = second;
    ts.nanos = nanos;
    if separator != b' ' {
        ts.offset_seconds = zone(s, &mut i)?;
    }
    (i == s.len()).then_some(ts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts() {
        assert_eq!(
            parse_timestamp("2015-2-3T3:4:5Z").map(|t| t.rfc3339_nano()),
            Some("2015-02-03T03:04:05Z".to_owned())
        );
        assert_eq!(
            parse_timestamp("2015-02-24 18:19:39.120").map(|t| t.rfc3339_nano()),
            Some("2015-02-24T18:19:39.12Z".to_owned())
        );
        assert_eq!(
            parse_timestamp("2015-02-24t18:19:39-03:00").map(|t| t.rfc3339_nano()),
            Some("2015-02-24T18:19:39-03:00".to_owned())
        );
        assert!(parse_timestamp("2015-02-30").is_none());
        assert!(parse_timestamp("2015-02-24T18:19:39").is_none());
        assert!(parse_timestamp("12015-02-24").is_none());
    }
}
