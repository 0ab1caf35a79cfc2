//! Duration flags (`--sar-cache-ttl 1s`, `--tls-reload-interval 500ms`, ...): one syntax for
//! every command, so `webhook`, `controller` and the connection flags read durations alike.

use std::time::Duration;

/// Parses a duration such as `500ms`, `2s`, `5m` or `1h` (a whole number and one unit).
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .ok_or_else(|| format!("{text:?} has no unit; write e.g. 2s, 500ms, 5m or 1h"))?;
    let (number, unit) = text.split_at(split);
    let number: u64 = number
        .parse()
        .map_err(|_| format!("{text:?} does not start with a whole number; write e.g. 2s"))?;
    let seconds = |factor: u64| {
        number
            .checked_mul(factor)
            .map(Duration::from_secs)
            .ok_or_else(|| format!("{text:?} is too long"))
    };
    match unit {
        "ms" => Ok(Duration::from_millis(number)),
        "s" => seconds(1),
        "m" => seconds(60),
        "h" => seconds(3600),
        _ => Err(format!("{text:?} has unknown unit {unit:?}; use ms, s, m or h")),
    }
}

/// A leader-election lease duration (`--leader-election-lease-duration`): at least 3 s, so
/// renewals a third of it before expiry stay possible.
pub fn parse_lease_duration(text: &str) -> Result<Duration, String> {
    let duration = parse_duration(text)?;
    if duration < Duration::from_secs(3) {
        return Err(format!("{text:?} is too short for a lease; give at least 3s"));
    }
    Ok(duration)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_take_one_unit() {
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2s"), Ok(Duration::from_secs(2)));
        assert_eq!(parse_duration("0s"), Ok(Duration::ZERO));
        assert_eq!(parse_duration("5m"), Ok(Duration::from_secs(300)));
        assert_eq!(parse_duration("1h"), Ok(Duration::from_secs(3600)));
        assert_eq!(parse_duration("8760h"), Ok(Duration::from_secs(8760 * 3600)));
        assert_eq!(
            parse_duration("2"),
            Err("\"2\" has no unit; write e.g. 2s, 500ms, 5m or 1h".to_owned())
        );
        assert_eq!(
            parse_duration("2d"),
            Err("\"2d\" has unknown unit \"d\"; use ms, s, m or h".to_owned())
        );
        assert_eq!(
            parse_duration("s"),
            Err("\"s\" does not start with a whole number; write e.g. 2s".to_owned())
        );
        assert_eq!(
            parse_duration("99999999999999999999h"),
            Err("\"99999999999999999999h\" does not start with a whole number; write e.g. 2s"
                .to_owned())
        );
    }
}
