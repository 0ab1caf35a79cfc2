//! The one source of "now" for every certgate component, injectable so tests move time
//! without sleeping.
//!
//! A [`Clock`] answers two questions that must not be confused: the wall-clock time
//! ([`Clock::now`]: certificate validity, condition and event times) and the monotonic
//! time ([`Clock::monotonic`]: cache expiry and back-off, which must not jump when the
//! wall clock is set).
//!
//! It lives in its own library crate, below everything that reads the time, so the webhook,
//! the cluster clients, the controllers and the pure crates share it without pulling in
//! each other's dependencies.
#![forbid(unsafe_code)]

use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Where components read the current time from.
pub trait Clock: Send + Sync {
    /// The wall-clock time.
    fn now(&self) -> SystemTime;
    /// The monotonic time.
    fn monotonic(&self) -> Instant;
    /// The wall-clock time as Kubernetes writes condition and event times: RFC 3339, UTC,
    /// whole seconds.
    fn now_rfc3339(&self) -> String {
        rfc3339(self.now())
    }
}

/// Formats `at` as Kubernetes writes condition times (RFC 3339, UTC, whole seconds). Times
/// before 1970 read as the epoch and times past chrono's range (year 262,143) as its end,
/// so a hostile certificate's validity can never make a message panic.
pub fn rfc3339(at: SystemTime) -> String {
    let seconds = at
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| i64::try_from(since.as_secs()).unwrap_or(i64::MAX));
    chrono::DateTime::from_timestamp(seconds, 0)
        .unwrap_or(chrono::DateTime::<chrono::Utc>::MAX_UTC)
        .format("%Y-%m-%dT%H:%M:%SZ")
        .to_string()
}

/// The system's clocks.
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> SystemTime {
        SystemTime::now()
    }

    fn monotonic(&self) -> Instant {
        Instant::now()
    }
}

/// A clock that moves only when [`ManualClock::advance`] is called: both its wall-clock
/// and its monotonic time move together, so tests of expiry and of written times neither
/// sleep nor depend on scheduling.
#[derive(Debug)]
pub struct ManualClock {
    at: Mutex<(SystemTime, Instant)>,
}

impl Default for ManualClock {
    /// A clock stopped at the moment it is made.
    fn default() -> Self {
        ManualClock::at(SystemTime::now())
    }
}

impl ManualClock {
    /// A clock stopped at wall-clock time `at`.
    pub fn at(at: SystemTime) -> Self {
        ManualClock { at: Mutex::new((at, Instant::now())) }
    }

    /// Moves the clock forward by `by`; an unrepresentable time leaves it unchanged.
    pub fn advance(&self, by: Duration) {
        let mut at = self.at.lock().unwrap_or_else(PoisonError::into_inner);
        if let (Some(wall), Some(monotonic)) = (at.0.checked_add(by), at.1.checked_add(by)) {
            *at = (wall, monotonic);
        }
    }
}

impl Clock for ManualClock {
    fn now(&self) -> SystemTime {
        self.at.lock().unwrap_or_else(PoisonError::into_inner).0
    }

    fn monotonic(&self) -> Instant {
        self.at.lock().unwrap_or_else(PoisonError::into_inner).1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn condition_times_are_utc_whole_seconds() {
        let at = SystemTime::UNIX_EPOCH + Duration::from_millis(1_700_000_000_999);
        assert_eq!(rfc3339(at), "2023-11-14T22:13:20Z");
        assert_eq!(ManualClock::at(at).now_rfc3339(), "2023-11-14T22:13:20Z");
        let seconds = |s| UNIX_EPOCH + Duration::from_secs(s);
        assert_eq!(rfc3339(seconds(0)), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(seconds(951_782_400)), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(seconds(1_793_791_845)), "2026-11-04T11:30:45Z");
    }

    #[test]
    fn times_out_of_range_are_clamped_not_a_panic() {
        assert_eq!(rfc3339(UNIX_EPOCH - Duration::from_secs(86_400)), "1970-01-01T00:00:00Z");
        let far = UNIX_EPOCH + Duration::from_secs(1 << 62);
        assert!(rfc3339(far).starts_with("+262142-12-31T23:59:59"), "{}", rfc3339(far));
    }

    #[test]
    fn a_manual_clock_moves_both_times_only_when_told() {
        let clock = ManualClock::at(SystemTime::UNIX_EPOCH);
        let (wall, monotonic) = (clock.now(), clock.monotonic());
        assert_eq!((clock.now(), clock.monotonic()), (wall, monotonic));
        clock.advance(Duration::from_secs(90));
        assert_eq!(clock.now(), wall + Duration::from_secs(90));
        assert_eq!(clock.monotonic(), monotonic + Duration::from_secs(90));
        assert_eq!(clock.now_rfc3339(), "1970-01-01T00:01:30Z");
    }
}
