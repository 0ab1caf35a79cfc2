//! Duration flags (`--sar-cache-ttl 1s`, `--tls-reload-interval 500ms`, ...): one parser for
//! every command, Go's `time.ParseDuration` syntax (`300ms`, `1.5s`, `1m30s`, `2h45m`), so a
//! value written for cert-manager, approver-policy or Contour reads the same here. Every flag
//! whose value is a `DURATION` goes through this module (`tests/cli_conventions.rs` checks it).

use std::time::Duration;

use certgate_gofmt::{DurationError, GoDuration};

/// What every duration error ends with: the syntax the flags accept.
pub const SYNTAX: &str = "write a Go duration such as 300ms, 1.5s, 1m30s or 2h45m (units ns, us, \
                          ms, s, m, h)";

/// A duration flag's value that cannot be used. Clap names the flag and repeats the value
/// before this text (`invalid value '2d' for '--sar-cache-ttl <DURATION>': ...`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DurationFlagError {
    /// Not Go's duration syntax; the text starts with Go's own error.
    #[error("{source}; {SYNTAX}")]
    Syntax {
        #[source]
        source: DurationError,
    },
    /// A negative duration where only zero or more makes sense.
    #[error("{text} is negative; give zero or more, e.g. 10s")]
    Negative { text: String },
    /// Zero for a timeout, which would close every connection.
    #[error("{text} would close every connection; give a positive duration, e.g. 10s")]
    ZeroTimeout { text: String },
    /// A leader-election lease below 3 s.
    #[error("{text} is too short for a lease; give at least 3s")]
    LeaseTooShort { text: String },
}

/// Parses Go's `time.ParseDuration` syntax, sign included (`-1m` is allowed): for the flags
/// Go's own programs read as a `time.Duration` and validate afterwards (the backoff flags).
pub fn parse_go_duration(text: &str) -> Result<GoDuration, DurationFlagError> {
    GoDuration::parse(text).map_err(|source| DurationFlagError::Syntax { source })
}

/// Parses a duration of zero or more in Go's syntax: `0`, `500ms`, `1.5s`, `1m30s`, `2h45m`.
pub fn parse_duration(text: &str) -> Result<Duration, DurationFlagError> {
    parse_go_duration(text)?
        .as_std()
        .ok_or_else(|| DurationFlagError::Negative { text: text.to_owned() })
}

/// A [`parse_duration`] duration above zero, for connection timeouts: a zero timeout would
/// close every connection.
pub fn parse_timeout(text: &str) -> Result<Duration, DurationFlagError> {
    let duration = parse_duration(text)?;
    if duration.is_zero() {
        return Err(DurationFlagError::ZeroTimeout { text: text.to_owned() });
    }
    Ok(duration)
}

/// A leader-election lease duration (`--leader-election-lease-duration`): at least 3 s, so
/// renewals a third of it before expiry stay possible.
pub fn parse_lease_duration(text: &str) -> Result<Duration, DurationFlagError> {
    let duration = parse_duration(text)?;
    if duration < Duration::from_secs(3) {
        return Err(DurationFlagError::LeaseTooShort { text: text.to_owned() });
    }
    Ok(duration)
}

/// A duration as Go prints it (`1h30m0s`, `1.5s`), for messages that repeat a flag's value.
pub fn format_duration(duration: Duration) -> String {
    i64::try_from(duration.as_nanos())
        .map_or_else(|_| format!("{}s", duration.as_secs()), |nanos| GoDuration(nanos).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(text: &str) -> Duration {
        parse_duration(text).unwrap_or_else(|err| panic!("{text}: {err}"))
    }

    fn err(text: &str) -> String {
        parse_duration(text).unwrap_err().to_string()
    }

    #[test]
    fn whole_numbers_with_one_unit() {
        assert_eq!(ok("500ms"), Duration::from_millis(500));
        assert_eq!(ok("2s"), Duration::from_secs(2));
        assert_eq!(ok("0s"), Duration::ZERO);
        assert_eq!(ok("5m"), Duration::from_secs(300));
        assert_eq!(ok("1h"), Duration::from_secs(3600));
        assert_eq!(ok("8760h"), Duration::from_secs(8760 * 3600));
    }

    #[test]
    fn go_syntax_in_full() {
        assert_eq!(ok("1m30s"), Duration::from_secs(90));
        assert_eq!(ok("1.5s"), Duration::from_millis(1500));
        assert_eq!(ok("300ms"), Duration::from_millis(300));
        assert_eq!(ok("2h45m"), Duration::from_secs(2 * 3600 + 45 * 60));
        assert_eq!(ok(".5m"), Duration::from_secs(30));
        assert_eq!(ok("1h0.5m0.25s"), Duration::from_millis(3_630_250));
        assert_eq!(ok("10us"), Duration::from_micros(10));
        assert_eq!(ok("10µs"), Duration::from_micros(10));
        assert_eq!(ok("7ns"), Duration::from_nanos(7));
        assert_eq!(ok("+2s"), Duration::from_secs(2));
        // Go allows a bare zero without a unit, and a negative zero.
        assert_eq!(ok("0"), Duration::ZERO);
        assert_eq!(ok("-0s"), Duration::ZERO);
    }

    #[test]
    fn errors_give_go_text_and_the_syntax() {
        assert_eq!(err("2"), format!("time: missing unit in duration \"2\"; {SYNTAX}"));
        assert_eq!(err("2d"), format!("time: unknown unit \"d\" in duration \"2d\"; {SYNTAX}"));
        assert_eq!(err("s"), format!("time: invalid duration \"s\"; {SYNTAX}"));
        assert_eq!(err(""), format!("time: invalid duration \"\"; {SYNTAX}"));
        assert_eq!(
            err("99999999999999999999h"),
            format!("time: invalid duration \"99999999999999999999h\"; {SYNTAX}")
        );
        assert!(SYNTAX.contains("1m30s") && SYNTAX.contains("1.5s"), "{SYNTAX}");
    }

    #[test]
    fn negative_only_where_it_makes_sense() {
        assert_eq!(err("-1s"), "-1s is negative; give zero or more, e.g. 10s");
        assert_eq!(parse_go_duration("-1m30s"), Ok(GoDuration(-90_000_000_000)));
        assert_eq!(parse_go_duration("1.5s"), Ok(GoDuration(1_500_000_000)));
    }

    #[test]
    fn timeouts_and_leases_have_floors() {
        assert_eq!(parse_timeout("1.5s"), Ok(Duration::from_millis(1500)));
        assert_eq!(
            parse_timeout("0s").unwrap_err().to_string(),
            "0s would close every connection; give a positive duration, e.g. 10s"
        );
        assert_eq!(parse_lease_duration("3s"), Ok(Duration::from_secs(3)));
        assert_eq!(parse_lease_duration("1m30s"), Ok(Duration::from_secs(90)));
        assert_eq!(
            parse_lease_duration("2.5s").unwrap_err().to_string(),
            "2.5s is too short for a lease; give at least 3s"
        );
    }

    #[test]
    fn durations_print_as_go_does() {
        assert_eq!(format_duration(Duration::from_secs(90)), "1m30s");
        assert_eq!(format_duration(Duration::from_millis(1500)), "1.5s");
        assert_eq!(format_duration(Duration::from_secs(1_000_000 * 3600)), "1000000h0m0s");
        assert_eq!(format_duration(Duration::ZERO), "0s");
        // Beyond Go's range (about 292 years) the seconds are printed.
        assert_eq!(format_duration(Duration::from_secs(u64::MAX)), format!("{}s", u64::MAX));
    }
}
