//! Go's reference-time layouts ("Mon Jan 2 15:04:05 MST 2006"): tokenizing, formatting and
//! parsing, as `time.Format` and `time.Parse` do.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Std {
    LongMonth,
    Month,
    NumMonth,
    ZeroMonth,
    LongWeekDay,
    WeekDay,
    Day,
    UnderDay,
    ZeroDay,
    UnderYearDay,
    ZeroYearDay,
    Hour,
    Hour12,
    ZeroHour12,
    Minute,
    ZeroMinute,
    Second,
    ZeroSecond,
    LongYear,
    Year,
    PM,
    Pm,
    TZ,
    /// Numeric zone: (`Z` for UTC, with colons, with seconds, hours only).
    Zone {
        iso: bool,
        colon: bool,
        seconds: bool,
        hours_only: bool,
    },
    /// Fractional seconds: digits, trailing zeros trimmed (`9`s), separator.
    Frac {
        digits: usize,
        trim: bool,
        sep: char,
    },
}

#[derive(Debug, PartialEq, Eq)]
pub enum Tok {
    Lit(String),
    Std(Std),
}

fn starts_lower(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_ascii_lowercase())
}

/// Splits a layout into literal text and standard chunks.
pub fn tokenize(layout: &str) -> Vec<Tok> {
    let mut out = Vec::new();
    let mut lit = String::new();
    let b = layout.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let rest = &layout[i..];
        let found: Option<(Std, usize)> = match b[i] {
            b'J' if rest.starts_with("January") => Some((Std::LongMonth, 7)),
            b'J' if rest.starts_with("Jan") && !starts_lower(&rest[3..]) => Some((Std::Month, 3)),
            b'M' if rest.starts_with("Monday") => Some((Std::LongWeekDay, 6)),
            b'M' if rest.starts_with("Mon") && !starts_lower(&rest[3..]) => Some((Std::WeekDay, 3)),
            b'M' if rest.starts_with("MST") => Some((Std::TZ, 3)),
            b'0' if rest.starts_with("002") => Some((Std::ZeroYearDay, 3)),
            b'0' => match b.get(i + 1) {
                Some(b'1') => Some((Std::ZeroMonth, 2)),
                Some(b'2') => Some((Std::ZeroDay, 2)),
                Some(b'3') => Some((Std::ZeroHour12, 2)),
                Some(b'4') => Some((Std::ZeroMinute, 2)),
                Some(b'5') => Some((Std::ZeroSecond, 2)),
                Some(b'6') => Some((Std::Year, 2)),
                _ => None,
            },
            b'1' if rest.starts_with("15") => Some((Std::Hour, 2)),
            b'1' => Some((Std::NumMonth, 1)),
            b'2' if rest.starts_with("2006") => Some((Std::LongYear, 4)),
            b'2' => Some((Std::Day, 1)),
            b'_' if rest.starts_with("_2006") => {
                lit.push('_');
                i += 1;
                Some((Std::LongYear, 4))
            }
            b'_' if rest.starts_with("__2") => Some((Std::UnderYearDay, 3)),
            b'_' if rest.starts_with("_2") => Some((Std::UnderDay, 2)),
            b'3' => Some((Std::Hour12, 1)),
            b'4' => Some((Std::Minute, 1)),
            b'5' => Some((Std::Second, 1)),
            b'P' if rest.starts_with("PM") => Some((Std::PM, 2)),
            b'p' if rest.starts_with("pm") => Some((Std::Pm, 2)),
            b'-' | b'Z' => {
                let iso = b[i] == b'Z';
                let tail = &rest[1..];
                if tail.starts_with("07:00:00") {
                    Some((Std::Zone { iso, colon: true, seconds: true, hours_only: false }, 9))
                } else if tail.starts_with("070000") {
                    Some((Std::Zone { iso, colon: false, seconds: true, hours_only: false }, 7))
                } else if tail.starts_with("07:00") {
                    Some((Std::Zone { iso, colon: true, seconds: false, hours_only: false }, 6))
                } else if tail.starts_with("0700") {
                    Some((Std::Zone { iso, colon: false, seconds: false, hours_only: false }, 5))
                } else if tail.starts_with("07") {
                    Some((Std::Zone { iso, colon: false, seconds: false, hours_only: true }, 3))
                } else {
                    None
                }
            }
            b'.' | b',' => {
                let digit = b.get(i + 1).copied();
                if matches!(digit, Some(b'0' | b'9')) {
                    let d = digit.unwrap_or(b'0');
                    let n = b[i + 1..].iter().take_while(|c| **c == d).count();
                    if !b.get(i + 1 + n).is_some_and(u8::is_ascii_digit) {
                        Some((Std::Frac { digits: n, trim: d == b'9', sep: b[i] as char }, n + 1))
                    } else {
                        None
                    }
                } else {
                    None
                }
            }
            _ => None,
        };
        match found {
            Some((std, len)) => {
                if !lit.is_empty() {
                    out.push(Tok::Lit(std::mem::take(&mut lit)));
                }
                out.push(Tok::Std(std));
                i += len;
            }
            None => {
                let c = rest.chars().next().unwrap_or(' ');
                lit.push(c);
                i += c.len_utf8();
            }
        }
    }
    if !lit.is_empty() {
        out.push(Tok::Lit(lit));
    }
    out
}

pub const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
pub const DAYS: [&str; 7] =
    ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

/// The broken-down time a layout formats.
pub struct Parts {
    pub year: i64,
    pub month: u32,
    pub day: u32,
    pub yday: u32,
    pub weekday: u32,
    pub hour: u32,
    pub minute: u32,
    pub second: u32,
    pub nanos: u32,
    pub offset: i32,
    pub zone: String,
}

fn zone_text(offset: i32, iso: bool, colon: bool, seconds: bool, hours_only: bool) -> String {
    if iso && offset == 0 {
        return "Z".into();
    }
    let sign = if offset < 0 { '-' } else { '+' };
    let a = offset.unsigned_abs();
    let (h, m, s) = (a / 3600, (a / 60) % 60, a % 60);
    let mut out = format!("{sign}{h:02}");
    if hours_only {
        return out;
    }
    if colon {
        out.push(':');
    }
    out.push_str(&format!("{m:02}"));
    if seconds {
        if colon {
            out.push(':');
        }
        out.push_str(&format!("{s:02}"));
    }
    out
}

pub fn format(p: &Parts, layout: &str) -> String {
    let mut out = String::new();
    for tok in tokenize(layout) {
        match tok {
            Tok::Lit(l) => out.push_str(&l),
            Tok::Std(std) => {
                let month = MONTHS[(p.month.clamp(1, 12) - 1) as usize];
                let day = DAYS[(p.weekday % 7) as usize];
                let h12 = match p.hour % 12 {
                    0 => 12,
                    h => h,
                };
                match std {
                    Std::LongMonth => out.push_str(month),
                    Std::Month => out.push_str(&month[..3]),
                    Std::NumMonth => out.push_str(&p.month.to_string()),
                    Std::ZeroMonth => out.push_str(&format!("{:02}", p.month)),
                    Std::LongWeekDay => out.push_str(day),
                    Std::WeekDay => out.push_str(&day[..3]),
                    Std::Day => out.push_str(&p.day.to_string()),
                    Std::UnderDay => out.push_str(&format!("{:>2}", p.day)),
                    Std::ZeroDay => out.push_str(&format!("{:02}", p.day)),
                    Std::UnderYearDay => out.push_str(&format!("{:>3}", p.yday)),
                    Std::ZeroYearDay => out.push_str(&format!("{:03}", p.yday)),
                    Std::Hour => out.push_str(&format!("{:02}", p.hour)),
                    Std::Hour12 => out.push_str(&h12.to_string()),
                    Std::ZeroHour12 => out.push_str(&format!("{h12:02}")),
                    Std::Minute => out.push_str(&p.minute.to_string()),
                    Std::ZeroMinute => out.push_str(&format!("{:02}", p.minute)),
                    Std::Second => out.push_str(&p.second.to_string()),
                    Std::ZeroSecond => out.push_str(&format!("{:02}", p.second)),
                    Std::LongYear => {
                        if p.year < 0 {
                            out.push_str(&format!("-{:04}", -p.year));
                        } else {
                            out.push_str(&format!("{:04}", p.year));
                        }
                    }
                    Std::Year => out.push_str(&format!("{:02}", p.year.rem_euclid(100))),
                    Std::PM => out.push_str(if p.hour >= 12 { "PM" } else { "AM" }),
                    Std::Pm => out.push_str(if p.hour >= 12 { "pm" } else { "am" }),
                    Std::TZ => {
                        if p.zone.is_empty() {
                            out.push_str(&zone_text(p.offset, false, false, false, false));
                        } else {
                            out.push_str(&p.zone);
                        }
                    }
                    Std::Zone { iso, colon, seconds, hours_only } => {
                        out.push_str(&zone_text(p.offset, iso, colon, seconds, hours_only));
                    }
                    Std::Frac { digits, trim, sep } => {
                        let all = format!("{:09}", p.nanos);
                        let mut frac = all[..digits.min(9)].to_string();
                        if trim {
                            frac = frac.trim_end_matches('0').to_string();
                            if frac.is_empty() {
                                continue;
                            }
                        }
                        out.push(sep);
                        out.push_str(&frac);
                    }
                }
            }
        }
    }
    out
}

/// What a parse found; fields not in the layout keep Go's defaults.
#[derive(Default)]
pub struct Parsed {
    pub year: i64,
    pub month: u32,
    pub day: u32,
    pub yday: Option<u32>,
    pub hour: u32,
    pub minute: u32,
    pub second: u32,
    pub nanos: u32,
    pub offset: Option<i32>,
    pub zone: Option<String>,
}

fn take_digits(v: &str, min: usize, max: usize) -> Option<(u32, usize)> {
    let n = v.bytes().take(max).take_while(u8::is_ascii_digit).count();
    if n < min {
        return None;
    }
    Some((v[..n].parse().ok()?, n))
}

/// `time.Parse(layout, value)` without the location step; errors are Go's texts.
pub fn parse(layout: &str, value: &str) -> Result<Parsed, String> {
    let q = certgate_gofmt::quote;
    let mut p = Parsed { year: 1, month: 1, day: 1, ..Parsed::default() };
    let mut v = value;
    let mut pm: Option<bool> = None;
    let mut layout_rest = layout;
    let toks = tokenize(layout);
    for tok in &toks {
        let cannot = |v: &str, elem: &str| {
            format!(
                "parsing time {} as {}: cannot parse {} as {}",
                q(value),
                q(layout),
                q(v),
                q(elem)
            )
        };
        match tok {
            Tok::Lit(l) => {
                // Go skips leading spaces in both strings when the literal starts with one.
                match v.strip_prefix(l.as_str()) {
                    Some(r) => v = r,
                    None => return Err(cannot(v, l)),
                }
                layout_rest = &layout_rest[l.len().min(layout_rest.len())..];
            }
            Tok::Std(std) => {
                let std_text = std_source(layout_rest, &toks, tok);
                layout_rest = &layout_rest[std_text.len().min(layout_rest.len())..];
                let before = v;
                let range = |what: &str| format!("parsing time {}: {what} out of range", q(value));
                let res: Option<()> = (|| {
                    match *std {
                        Std::LongYear => {
                            let (n, w) = take_digits(v, 4, 4)?;
                            p.year = i64::from(n);
                            v = &v[w..];
                        }
                        Std::Year => {
                            let (n, w) = take_digits(v, 2, 2)?;
                            p.year = i64::from(if n >= 69 { 1900 + n } else { 2000 + n });
                            v = &v[w..];
                        }
                        Std::LongMonth | Std::Month => {
                            let idx = MONTHS.iter().position(|m| {
                                let name = if *std == Std::Month { &m[..3] } else { m };
                                v.get(..name.len()).is_some_and(|p| p.eq_ignore_ascii_case(name))
                            })?;
                            let len = if *std == Std::Month { 3 } else { MONTHS[idx].len() };
                            p.month = idx as u32 + 1;
                            v = &v[len..];
                        }
                        Std::LongWeekDay | Std::WeekDay => {
                            let idx = DAYS.iter().position(|d| {
                                let name = if *std == Std::WeekDay { &d[..3] } else { d };
                                v.get(..name.len()).is_some_and(|p| p.eq_ignore_ascii_case(name))
                            })?;
                            v = &v[if *std == Std::WeekDay { 3 } else { DAYS[idx].len() }..];
                        }
                        Std::NumMonth | Std::ZeroMonth => {
                            let (n, w) =
                                take_digits(v, if *std == Std::ZeroMonth { 2 } else { 1 }, 2)?;
                            p.month = n;
                            v = &v[w..];
                        }
                        Std::Day | Std::ZeroDay | Std::UnderDay => {
                            if *std == Std::UnderDay && v.starts_with(' ') {
                                v = &v[1..];
                            }
                            let (n, w) =
                                take_digits(v, if *std == Std::ZeroDay { 2 } else { 1 }, 2)?;
                            p.day = n;
                            v = &v[w..];
                        }
                        Std::ZeroYearDay | Std::UnderYearDay => {
                            let trimmed = v.trim_start_matches(' ');
                            let (n, w) = take_digits(trimmed, 1, 3)?;
                            p.yday = Some(n);
                            v = &trimmed[w..];
                        }
                        Std::Hour => {
                            let (n, w) = take_digits(v, 1, 2)?;
                            p.hour = n;
                            v = &v[w..];
                        }
                        Std::Hour12 | Std::ZeroHour12 => {
                            let (n, w) =
                                take_digits(v, if *std == Std::ZeroHour12 { 2 } else { 1 }, 2)?;
                            p.hour = n;
                            v = &v[w..];
                        }
                        Std::Minute | Std::ZeroMinute => {
                            let (n, w) =
                                take_digits(v, if *std == Std::ZeroMinute { 2 } else { 1 }, 2)?;
                            p.minute = n;
                            v = &v[w..];
                        }
                        Std::Second | Std::ZeroSecond => {
                            let (n, w) =
                                take_digits(v, if *std == Std::ZeroSecond { 2 } else { 1 }, 2)?;
                            p.second = n;
                            v = &v[w..];
                            // A fractional second may follow even if the layout has none.
                            if let Some(rest) = v.strip_prefix(['.', ',']) {
                                let next_is_frac = matches!(
                                    toks.iter().skip_while(|t| *t != tok).nth(1),
                                    Some(Tok::Std(Std::Frac { .. }))
                                );
                                if !next_is_frac {
                                    let n = rest.bytes().take_while(u8::is_ascii_digit).count();
                                    if n > 0 {
                                        p.nanos = frac_nanos(&rest[..n]);
                                        v = &rest[n..];
                                    }
                                }
                            }
                        }
                        Std::PM | Std::Pm => {
                            let word = v.get(..2)?;
                            pm = Some(match word.to_ascii_uppercase().as_str() {
                                "PM" => true,
                                "AM" => false,
                                _ => return None,
                            });
                            v = &v[2..];
                        }
                        Std::Frac { digits, trim, .. } => {
                            // A `.999` fraction is optional; a `.000` one is required.
                            let has_frac = v.len() >= 2
                                && matches!(v.as_bytes()[0], b'.' | b',')
                                && v.as_bytes()[1].is_ascii_digit();
                            if trim && !has_frac {
                                return Some(());
                            }
                            let rest = v.strip_prefix(['.', ','])?;
                            let n = rest.bytes().take_while(u8::is_ascii_digit).count();
                            if !trim && n != digits {
                                return None;
                            }
                            p.nanos = frac_nanos(&rest[..n]);
                            v = &rest[n..];
                        }
                        Std::TZ => {
                            if v.starts_with("UTC") {
                                p.offset = Some(0);
                                p.zone = Some("UTC".into());
                                v = &v[3..];
                            } else {
                                let n = v.bytes().take_while(u8::is_ascii_uppercase).count();
                                if n < 3 {
                                    return None;
                                }
                                p.zone = Some(v[..n].to_string());
                                v = &v[n..];
                            }
                        }
                        Std::Zone { iso, colon, seconds, hours_only } => {
                            if iso && v.starts_with('Z') {
                                p.offset = Some(0);
                                p.zone = Some("UTC".into());
                                v = &v[1..];
                                return Some(());
                            }
                            let sign = match v.as_bytes().first()? {
                                b'+' => 1,
                                b'-' => -1,
                                _ => return None,
                            };
                            let mut r = &v[1..];
                            let (h, w) = take_digits(r, 2, 2)?;
                            r = &r[w..];
                            let mut secs = h as i32 * 3600;
                            if !hours_only {
                                if colon {
                                    r = r.strip_prefix(':')?;
                                }
                                let (m, w) = take_digits(r, 2, 2)?;
                                r = &r[w..];
                                secs += m as i32 * 60;
                                if seconds {
                                    if colon {
                                        r = r.strip_prefix(':')?;
                                    }
                                    let (s, w) = take_digits(r, 2, 2)?;
                                    r = &r[w..];
                                    secs += s as i32;
                                }
                            }
                            p.offset = Some(sign * secs);
                            v = r;
                        }
                    }
                    Some(())
                })();
                if res.is_none() {
                    return Err(cannot(before, std_text));
                }
                let _ = range;
            }
        }
    }
    if !v.is_empty() {
        return Err(format!("parsing time {}: extra text: {}", q(value), q(v)));
    }
    if let Some(is_pm) = pm {
        if p.hour > 12 {
            return Err(format!("parsing time {}: hour out of range", q(value)));
        }
        if is_pm && p.hour < 12 {
            p.hour += 12;
        } else if !is_pm && p.hour == 12 {
            p.hour = 0;
        }
    }
    let range = |what: &str| format!("parsing time {}: {what} out of range", q(value));
    if !(1..=12).contains(&p.month) {
        return Err(range("month"));
    }
    if p.day < 1 || p.day > days_in_month(p.year, p.month) {
        return Err(range("day"));
    }
    if p.hour > 23 {
        return Err(range("hour"));
    }
    if p.minute > 59 {
        return Err(range("minute"));
    }
    if p.second > 59 {
        return Err(range("second"));
    }
    Ok(p)
}

/// The layout text of a standard chunk (for error messages).
fn std_source<'a>(layout_rest: &'a str, _toks: &[Tok], tok: &Tok) -> &'a str {
    let Tok::Std(std) = tok else {
        return "";
    };
    let len = match std {
        Std::LongMonth => 7,
        Std::LongWeekDay => 6,
        Std::Month | Std::WeekDay | Std::TZ | Std::ZeroYearDay | Std::UnderYearDay => 3,
        Std::LongYear => 4,
        Std::NumMonth | Std::Day | Std::Hour12 | Std::Minute | Std::Second => 1,
        Std::Zone { colon, seconds, hours_only, .. } => {
            if *hours_only {
                3
            } else {
                match (colon, seconds) {
                    (true, true) => 9,
                    (false, true) => 7,
                    (true, false) => 6,
                    (false, false) => 5,
                }
            }
        }
        Std::Frac { digits, .. } => digits + 1,
        _ => 2,
    };
    layout_rest.get(..len).unwrap_or(layout_rest)
}

fn frac_nanos(digits: &str) -> u32 {
    let mut d: String = digits.chars().take(9).collect();
    while d.len() < 9 {
        d.push('0');
    }
    d.parse().unwrap_or(0)
}

pub fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        2 => {
            if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 {
                29
            } else {
                28
            }
        }
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}
