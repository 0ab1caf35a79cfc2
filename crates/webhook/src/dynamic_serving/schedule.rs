//! When the dynamic-serving loop runs next: at the regular resync, sooner when a leaf or the
//! CA is due, and after failures with a doubling backoff that starts at one second.

use std::time::{Duration, SystemTime};

/// The first retry after a failure.
pub const RETRY_MIN: Duration = Duration::from_secs(1);

/// How long to wait at `now`: `resync` (or, after `failures` failed passes in a row, the
/// backoff 1 s, 2 s, 4 s... capped at `resync`), but no later than the earliest of `due`
/// still ahead. A due time already passed was attempted by the pass that just ran, so it
/// does not shorten the wait: when that attempt failed, the backoff governs the retry.
/// Never less than [`RETRY_MIN`].
pub fn next_pass(
    now: SystemTime,
    due: impl IntoIterator<Item = SystemTime>,
    resync: Duration,
    failures: u32,
) -> Duration {
    let mut wait = if failures == 0 {
        resync
    } else {
        let factor = 1u32.checked_shl(failures - 1).unwrap_or(u32::MAX);
        RETRY_MIN.saturating_mul(factor).min(resync)
    };
    for at in due {
        if let Ok(ahead) = at.duration_since(now)
            && !ahead.is_zero()
        {
            wait = wait.min(ahead);
        }
    }
    wait.max(RETRY_MIN)
}

#[cfg(test)]
mod tests {
    use std::time::UNIX_EPOCH;

    use super::*;

    const MINUTE: Duration = Duration::from_secs(60);

    fn at(secs: u64) -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(secs)
    }

    #[test]
    fn resyncs_unless_something_is_due_sooner() {
        assert_eq!(next_pass(at(1_000), [], MINUTE, 0), MINUTE);
        assert_eq!(
            next_pass(at(1_000), [at(1_030), at(5_000)], MINUTE, 0),
            Duration::from_secs(30)
        );
        assert_eq!(next_pass(at(1_000), [at(1_000)], MINUTE, 0), MINUTE);
        assert_eq!(
            next_pass(at(1_000), [at(1_000) + Duration::from_millis(10)], MINUTE, 0),
            RETRY_MIN
        );
    }

    #[test]
    fn passed_due_times_leave_retries_to_the_backoff() {
        assert_eq!(next_pass(at(1_000), [at(900)], MINUTE, 0), MINUTE);
        assert_eq!(next_pass(at(1_000), [at(900)], MINUTE, 3), Duration::from_secs(4));
    }

    #[test]
    fn backs_off_after_failures_up_to_the_resync() {
        let waits: Vec<u64> = (1..=8).map(|f| next_pass(at(0), [], MINUTE, f).as_secs()).collect();
        assert_eq!(waits, [1, 2, 4, 8, 16, 32, 60, 60]);
        assert_eq!(next_pass(at(0), [], MINUTE, 100), MINUTE);
    }
}
