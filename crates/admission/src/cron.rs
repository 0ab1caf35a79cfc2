//! The cron syntax check cert-manager's webhook makes of `spec.renewal.windows[].cron`:
//! its `CronParse` (robfig/cron's parser with minute, hour, day of month, month, day of week
//! and descriptors), with the parser's error texts. Only the syntax is checked: a time zone
//! (the window's `timezone`, or a `TZ=`/`CRON_TZ=` prefix) is not looked up, which would need
//! the time zone database.

use certgate_api::gofmt::{self, GoDuration};

/// A field's bounds and names.
struct Bounds {
    min: u64,
    max: u64,
    names: &'static [(&'static str, u64)],
}

const MINUTES: Bounds = Bounds { min: 0, max: 59, names: &[] };
const HOURS: Bounds = Bounds { min: 0, max: 23, names: &[] };
const DOM: Bounds = Bounds { min: 1, max: 31, names: &[] };
const MONTHS: Bounds = Bounds {
    min: 1,
    max: 12,
    names: &[
        ("jan", 1),
        ("feb", 2),
        ("mar", 3),
        ("apr", 4),
        ("may", 5),
        ("jun", 6),
        ("jul", 7),
        ("aug", 8),
        ("sep", 9),
        ("oct", 10),
        ("nov", 11),
        ("dec", 12),
    ],
};
const DOW: Bounds = Bounds {
    min: 0,
    max: 6,
    names: &[("sun", 0), ("mon", 1), ("tue", 2), ("wed", 3), ("thu", 4), ("fri", 5), ("sat", 6)],
};

/// The detail upstream gives a window whose `cron` (with its `timezone`) does not parse;
/// `None` when it parses.
pub(crate) fn check(cron: &str, timezone: &str) -> Option<String> {
    let spec =
        if timezone.is_empty() { cron.to_owned() } else { format!("CRON_TZ={timezone} {cron}") };
    parse(&spec).err().map(|err| {
        format!(
            "invalid cron syntax: failed to parse cron spec '{cron}': {err}. cron needs to follow: \
             cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow"
        )
    })
}

fn parse(spec: &str) -> Result<(), String> {
    if spec.is_empty() {
        return Err("empty spec string".into());
    }
    let mut spec = spec;
    if spec.starts_with("TZ=") || spec.starts_with("CRON_TZ=") {
        let Some(space) = spec.find(' ') else {
            return Err(format!("expected timezone prefix to be followed by a cron spec: {spec}"));
        };
        // The location is not looked up (see the module docs).
        spec = spec[space..].trim();
    }
    if spec.starts_with('@') {
        return descriptor(spec);
    }
    let fields: Vec<&str> = spec.split_whitespace().collect();
    if fields.len() != 5 {
        return Err(format!(
            "expected exactly 5 fields, found {}: [{}]",
            fields.len(),
            fields.join(" ")
        ));
    }
    for (field, bounds) in fields.iter().zip([MINUTES, HOURS, DOM, MONTHS, DOW]) {
        for expr in field.split(',').filter(|e| !e.is_empty()) {
            range(expr, &bounds)?;
        }
    }
    Ok(())
}

fn descriptor(spec: &str) -> Result<(), String> {
    match spec {
        "@yearly" | "@annually" | "@monthly" | "@weekly" | "@daily" | "@midnight" | "@hourly" => {
            Ok(())
        }
        _ => match spec.strip_prefix("@every ") {
            Some(duration) => GoDuration::parse(duration)
                .map(|_| ())
                .map_err(|err| format!("failed to parse duration {spec}: {err}")),
            None => Err(format!("unrecognized descriptor: {spec}")),
        },
    }
}

fn range(expr: &str, bounds: &Bounds) -> Result<(), String> {
    let range_and_step: Vec<&str> = expr.split('/').collect();
    let low_and_high: Vec<&str> = range_and_step[0].split('-').collect();
    let single = low_and_high.len() == 1;
    let (start, mut end) = if matches!(low_and_high[0], "*" | "?") {
        (bounds.min, bounds.max)
    } else {
        let start = int_or_name(low_and_high[0], bounds)?;
        match low_and_high.as_slice() {
            [_] => (start, start),
            [_, high] => (start, int_or_name(high, bounds)?),
            _ => return Err(format!("too many hyphens: {expr}")),
        }
    };
    let step = match range_and_step.as_slice() {
        [_] => 1,
        [_, step] => {
            let step = int(step)?;
            if single {
                end = bounds.max;
            }
            step
        }
        _ => return Err(format!("too many slashes: {expr}")),
    };
    if start < bounds.min {
        return Err(format!("beginning of range ({start}) below minimum ({}): {expr}", bounds.min));
    }
    if end > bounds.max {
        return Err(format!("end of range ({end}) above maximum ({}): {expr}", bounds.max));
    }
    if start > end {
        return Err(format!("beginning of range ({start}) beyond end of range ({end}): {expr}"));
    }
    if step == 0 {
        return Err(format!("step of range should be a positive number: {expr}"));
    }
    Ok(())
}

fn int_or_name(expr: &str, bounds: &Bounds) -> Result<u64, String> {
    let lower = expr.to_lowercase();
    match bounds.names.iter().find(|(name, _)| *name == lower) {
        Some((_, value)) => Ok(*value),
        None => int(expr),
    }
}

/// Go's `strconv.Atoi`, then a non-negative check, with their texts.
fn int(expr: &str) -> Result<u64, String> {
    use std::num::IntErrorKind;
    match expr.parse::<i64>() {
        Ok(n) if n < 0 => Err(format!("negative number ({n}) not allowed: {expr}")),
        Ok(n) => Ok(n.unsigned_abs()),
        Err(err) => {
            let reason = match err.kind() {
                IntErrorKind::PosOverflow | IntErrorKind::NegOverflow => "value out of range",
                _ => "invalid syntax",
            };
            Err(format!(
                "failed to parse int from {expr}: strconv.Atoi: parsing {}: {reason}",
                gofmt::quote(expr)
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{check, parse};

    #[test]
    fn valid_specs() {
        for spec in [
            "0 2 * * *",
            "*/15 9-17 * * mon-fri",
            "0 0 1,15 jan,JUL ?",
            "30 4 1-31/2 */3 0",
            "@daily",
            "@every 1h30m",
            "TZ=Europe/Paris 0 2 * * *",
        ] {
            assert_eq!(parse(spec), Ok(()), "{spec}");
        }
        assert_eq!(check("0 2 * * *", "America/Denver"), None);
    }

    #[test]
    fn robfig_cron_texts() {
        let cases = [
            ("", "empty spec string"),
            ("0 2 * *", "expected exactly 5 fields, found 4: [0 2 * *]"),
            ("60 * * * *", "end of range (60) above maximum (59): 60"),
            ("* * 0 * *", "beginning of range (0) below minimum (1): 0"),
            ("* 5-3 * * *", "beginning of range (5) beyond end of range (3): 5-3"),
            ("*/0 * * * *", "step of range should be a positive number: */0"),
            ("1-2-3 * * * *", "too many hyphens: 1-2-3"),
            ("1/2/3 * * * *", "too many slashes: 1/2/3"),
            (
                "x * * * *",
                "failed to parse int from x: strconv.Atoi: parsing \"x\": invalid syntax",
            ),
            ("-1 * * * *", "failed to parse int from : strconv.Atoi: parsing \"\": invalid syntax"),
            (
                "99999999999999999999 * * * *",
                "failed to parse int from 99999999999999999999: strconv.Atoi: parsing \
                 \"99999999999999999999\": value out of range",
            ),
            (
                "* * * * funday",
                "failed to parse int from funday: strconv.Atoi: parsing \"funday\": invalid syntax",
            ),
            ("@fortnightly", "unrecognized descriptor: @fortnightly"),
            (
                "@every 1d",
                "failed to parse duration @every 1d: time: unknown unit \"d\" in duration \"1d\"",
            ),
            ("TZ=UTC", "expected timezone prefix to be followed by a cron spec: TZ=UTC"),
        ];
        for (spec, expected) in cases {
            assert_eq!(parse(spec), Err(expected.to_owned()), "{spec}");
        }
    }

    proptest::proptest! {
        /// Cron-shaped noise parses or is refused, never panics.
        #[test]
        fn cron_shaped_noise_never_panics(spec in "[0-9*/,?a-zA-Z@= -]{0,30}") {
            let _ = parse(&spec);
        }
    }

    #[test]
    fn the_whole_detail_names_the_spec_without_the_zone() {
        assert_eq!(
            check("61 * * * *", "UTC").as_deref(),
            Some(
                "invalid cron syntax: failed to parse cron spec '61 * * * *': end of range (61) \
                 above maximum (59): 61. cron needs to follow: cron.Minute | cron.Hour | cron.Dom \
                 | cron.Month | cron.Dow"
            )
        );
        // With a zone, an empty spec is five missing fields, not an empty string.
        assert_eq!(
            check("", "UTC").as_deref(),
            Some(
                "invalid cron syntax: failed to parse cron spec '': expected exactly 5 fields, \
                 found 0: []. cron needs to follow: cron.Minute | cron.Hour | cron.Dom | \
                 cron.Month | cron.Dow"
            )
        );
    }
}
