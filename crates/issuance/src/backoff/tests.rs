use chrono::{TimeDelta, TimeZone};
use pretty_assertions::assert_eq;
use proptest::prelude::*;

use super::*;

const S: i64 = 1_000_000_000;
const M: i64 = 60 * S;
const H: i64 = 60 * M;

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2024, 5, 6, 7, 8, 9).unwrap()
}

fn ago(nanos: i64) -> DateTime<Utc> {
    now() - TimeDelta::nanoseconds(nanos)
}

fn config(initial: i64, max: i64) -> BackoffConfig {
    BackoffConfig { initial: GoDuration(initial), max: GoDuration(max) }
}

fn record(last: Option<DateTime<Utc>>, attempts: Option<i64>) -> FailureRecord {
    FailureRecord { last_failure_time: last, failed_issuance_attempts: attempts }
}

#[test]
fn defaults_are_one_and_thirty_two_hours() {
    assert_eq!(BackoffConfig::default(), config(H, 32 * H));
    assert_eq!(BackoffConfig::default().initial.to_string(), "1h0m0s");
    assert_eq!(BackoffConfig::default().max.to_string(), "32h0m0s");
}

#[test]
fn delay_doubles_from_initial_up_to_max() {
    let c = BackoffConfig::default();
    for (attempts, hours) in [
        (None, 1),
        (Some(i64::MIN), 1),
        (Some(-1), 1),
        (Some(0), 1),
        (Some(1), 1),
        (Some(2), 2),
        (Some(3), 4),
        (Some(4), 8),
        (Some(5), 16),
        (Some(6), 32),
        (Some(7), 32),
        (Some(22), 32),
        (Some(63), 32),
        (Some(64), 32),
        (Some(100), 32),
        (Some(1025), 32),
        (Some(i64::MAX), 32),
    ] {
        assert_eq!(c.delay(attempts), GoDuration(hours * H), "{attempts:?}");
    }
    // Upstream's own cases: a lower cap, a constant backoff.
    assert_eq!(config(H, 4 * H).delay(Some(6)), GoDuration(4 * H));
    assert_eq!(config(H, 4 * H).delay(Some(1)), GoDuration(H));
    assert_eq!(config(H, 4 * H).delay(Some(100)), GoDuration(4 * H));
    assert_eq!(config(H, H).delay(Some(6)), GoDuration(H));
    // Never below initial, even with a cap below it.
    assert_eq!(config(2 * H, H).delay(Some(5)), GoDuration(2 * H));
    assert_eq!(config(2 * H, 0).delay(Some(1)), GoDuration(2 * H));
}

#[test]
fn backoff_counts_from_the_last_failure() {
    let c = BackoffConfig::default();
    // One failure a minute ago: 59 minutes left.
    assert_eq!(
        backoff(&c, &record(Some(ago(M)), Some(1)), NextRequest::MatchesSpec, now()),
        Backoff::Until {
            until: ago(M) + TimeDelta::hours(1),
            delay: GoDuration(H),
            remaining: GoDuration(59 * M)
        }
    );
    // Attempts unset (a failure from before the counter existed): the initial delay.
    assert_eq!(
        backoff(&c, &record(Some(ago(59 * M)), None), NextRequest::MatchesSpec, now()),
        Backoff::Until {
            until: ago(59 * M) + TimeDelta::hours(1),
            delay: GoDuration(H),
            remaining: GoDuration(M)
        }
    );
    // Exactly the delay ago: issue.
    assert_eq!(
        backoff(&c, &record(Some(ago(H)), None), NextRequest::MatchesSpec, now()),
        Backoff::None(NoBackoff::Elapsed)
    );
    assert_eq!(
        backoff(&c, &record(Some(ago(H - 1)), None), NextRequest::MatchesSpec, now()),
        Backoff::Until { until: ago(-1), delay: GoDuration(H), remaining: GoDuration(1) }
    );
    // Six failures: 32 hours.
    let at = backoff(&c, &record(Some(now()), Some(6)), NextRequest::Missing, now());
    assert_eq!(
        at,
        Backoff::Until {
            until: now() + TimeDelta::hours(32),
            delay: GoDuration(32 * H),
            remaining: GoDuration(32 * H)
        }
    );
    // A failure time in the future: wait the delay plus the skew.
    assert_eq!(
        backoff(&c, &record(Some(ago(-H)), Some(1)), NextRequest::MatchesSpec, now()),
        Backoff::Until { until: ago(-2 * H), delay: GoDuration(H), remaining: GoDuration(2 * H) }
    );
}

#[test]
fn no_backoff_cases_in_upstreams_order() {
    let c = BackoffConfig::default();
    let failed = record(Some(now()), Some(3));
    assert_eq!(
        backoff(&c, &record(None, Some(3)), NextRequest::MatchesSpec, now()),
        Backoff::None(NoBackoff::NoFailure)
    );
    // A changed spec is reissued at once, whatever the configuration.
    for next in [NextRequest::DiffersFromSpec, NextRequest::Undecodable] {
        assert_eq!(backoff(&c, &failed, next, now()), Backoff::None(NoBackoff::SpecChanged));
        assert_eq!(
            backoff(&config(0, H), &failed, next, now()),
            Backoff::None(NoBackoff::SpecChanged)
        );
    }
    // Without a next request the backoff still applies.
    assert!(matches!(backoff(&c, &failed, NextRequest::Missing, now()), Backoff::Until { .. }));
    for initial in [0, -1, i64::MIN] {
        assert_eq!(
            backoff(&config(initial, H), &failed, NextRequest::MatchesSpec, now()),
            Backoff::None(NoBackoff::Disabled)
        );
    }
}

#[test]
fn settings_take_defaults_and_upstreams_validation() {
    let ok = |min, max| BackoffConfig::from_settings(GoDuration(min), GoDuration(max));
    assert_eq!(ok(0, 0), Ok(BackoffConfig::default()));
    assert_eq!(ok(5 * M, 0), Ok(config(5 * M, 32 * H)));
    assert_eq!(ok(0, 2 * H), Ok(config(H, 2 * H)));
    assert_eq!(ok(H, H), Ok(config(H, H)));
    let err = |min, max| ok(min, max).unwrap_err().to_string();
    assert_eq!(
        err(-H, 0),
        r#"certificateRequestMinimumBackoffDuration: Invalid value: "-1h0m0s": must not be negative"#
    );
    assert_eq!(
        err(0, -90 * S),
        r#"certificateRequestMaximumBackoffDuration: Invalid value: "-1m30s": must not be negative"#
    );
    // Zero takes the default before validation: a 30 m maximum is below the 1 h default.
    assert_eq!(
        err(0, 30 * M),
        r#"certificateRequestMaximumBackoffDuration: Invalid value: "30m0s": must be greater than or equal to certificateRequestMinimumBackoffDuration"#
    );
    assert_eq!(
        err(-S, -2 * S),
        r#"[certificateRequestMinimumBackoffDuration: Invalid value: "-1s": must not be negative, certificateRequestMaximumBackoffDuration: Invalid value: "-2s": must not be negative]"#
    );
    // Only both positive are compared.
    assert_eq!(ok(-S, -2 * S).unwrap_err().0.len(), 2);
    assert_eq!(ok(-2 * S, -S).unwrap_err().0.len(), 2);
}

/// Upstream's arithmetic where it does not overflow: `initial * Duration(math.Pow(2, n-1))`.
fn go_delay(initial: i64, max: i64, attempts: i64) -> Option<i64> {
    let factor = 2f64.powf((attempts - 1) as f64);
    // 2^63: Go converts larger floats to an undefined int64.
    if factor >= 9_223_372_036_854_775_808f64 {
        return None;
    }
    let computed = initial.checked_mul(factor as i64)?;
    let delay = if computed < initial || computed > max { max } else { computed };
    Some(delay.max(initial))
}

proptest! {
    #[test]
    fn delay_is_the_capped_power_of_two(initial in 1i64..=i64::MAX, max in any::<i64>(), attempts in any::<Option<i64>>()) {
        let c = config(initial, max);
        let got = c.delay(attempts).0;
        let n = attempts.filter(|a| *a > 0).map_or(1, |a| a);
        let exact = i128::from(initial) << (n - 1).min(64);
        let expected = exact.min(i128::from(max)).max(i128::from(initial));
        prop_assert_eq!(i128::from(got), expected);
    }

    #[test]
    fn delay_matches_go_wherever_go_does_not_overflow(initial in 1i64..=(1 << 50), max in 1i64..=i64::MAX, attempts in 1i64..80) {
        if let Some(go) = go_delay(initial, max, attempts) {
            prop_assert_eq!(config(initial, max).delay(Some(attempts)).0, go);
        }
    }

    #[test]
    fn delay_never_shrinks_as_attempts_grow(initial in 1i64..=i64::MAX, max in any::<i64>(), attempts in 0i64..i64::MAX) {
        let c = config(initial, max);
        prop_assert!(c.delay(Some(attempts)) <= c.delay(Some(attempts + 1)));
    }

    #[test]
    fn waiting_ends_at_last_failure_plus_delay(initial in 1i64..=(400 * H), max in 1i64..=(400 * H), attempts in any::<Option<i64>>(), ago_nanos in -(400 * H)..(800 * H)) {
        let c = config(initial, max);
        let r = record(Some(ago(ago_nanos)), attempts);
        let delay = c.delay(attempts);
        match backoff(&c, &r, NextRequest::MatchesSpec, now()) {
            Backoff::Until { until, delay: d, remaining } => {
                prop_assert!(ago_nanos < delay.0);
                prop_assert_eq!(d, delay);
                prop_assert_eq!(until, ago(ago_nanos) + TimeDelta::nanoseconds(delay.0));
                prop_assert_eq!(remaining.0, delay.0 - ago_nanos);
                prop_assert_eq!(now() + TimeDelta::nanoseconds(remaining.0), until);
            }
            Backoff::None(why) => {
                prop_assert_eq!(why, NoBackoff::Elapsed);
                prop_assert!(ago_nanos >= delay.0);
            }
        }
    }
}
