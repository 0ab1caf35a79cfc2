//! Validity windows and the renewal point: a certificate is renewed once 2/3 of its lifetime
//! has passed (cert-manager's default `renewBefore` of 1/3 of the duration).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How far back `notBefore` is set, so replicas and API servers whose clocks run a little
/// behind accept a certificate at once.
pub const BACKDATE: Duration = Duration::from_secs(5 * 60);

/// A certificate's validity window, to the second (as X.509 stores it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Validity {
    pub not_before: SystemTime,
    pub not_after: SystemTime,
}

impl Validity {
    /// From X.509 timestamps (seconds since the Unix epoch; earlier ones count as the epoch).
    pub fn from_unix(not_before: i64, not_after: i64) -> Self {
        let at = |secs: i64| UNIX_EPOCH + Duration::from_secs(u64::try_from(secs).unwrap_or(0));
        Self { not_before: at(not_before), not_after: at(not_after) }
    }

    /// The window of a certificate issued at `now` for `duration`: from `now - BACKDATE`
    /// (whole seconds), ending no later than `cap` (the issuer's `notAfter`).
    pub fn issued(now: SystemTime, duration: Duration, cap: Option<SystemTime>) -> Self {
        let now = whole_seconds(now);
        let not_before = now.checked_sub(BACKDATE).unwrap_or(UNIX_EPOCH);
        let mut not_after = now.checked_add(duration).unwrap_or(now);
        if let Some(cap) = cap {
            not_after = not_after.min(cap);
        }
        Self { not_before, not_after }
    }

    /// Total lifetime (zero when the window is empty or inverted).
    pub fn lifetime(&self) -> Duration {
        self.not_after.duration_since(self.not_before).unwrap_or_default()
    }

    /// When 2/3 of the lifetime has passed: the moment to renew.
    pub fn renew_at(&self) -> SystemTime {
        self.not_before + self.lifetime() / 3 * 2
    }

    /// Whether a renewal is due at `now`.
    pub fn renewal_due(&self, now: SystemTime) -> bool {
        now >= self.renew_at()
    }

    /// Whether `now` lies within the window (both ends included).
    pub fn contains(&self, now: SystemTime) -> bool {
        self.not_before <= now && now <= self.not_after
    }

    /// Whether the certificate has expired at `now`.
    pub fn expired(&self, now: SystemTime) -> bool {
        now > self.not_after
    }
}

/// `time` without its sub-second part.
pub fn whole_seconds(time: SystemTime) -> SystemTime {
    match time.duration_since(UNIX_EPOCH) {
        Ok(since) => UNIX_EPOCH + Duration::from_secs(since.as_secs()),
        Err(_) => UNIX_EPOCH,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(secs: u64) -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(secs)
    }

    #[test]
    fn renews_after_two_thirds_of_the_lifetime() {
        let validity = Validity { not_before: at(1_000), not_after: at(1_300) };
        assert_eq!(validity.renew_at(), at(1_200));
        assert!(!validity.renewal_due(at(1_199)));
        assert!(validity.renewal_due(at(1_200)));
        assert!(validity.contains(at(1_300)));
        assert!(!validity.expired(at(1_300)));
        assert!(validity.expired(at(1_301)));
        assert!(!validity.contains(at(999)));
    }

    #[test]
    fn an_inverted_window_is_due_at_once() {
        let validity = Validity { not_before: at(2_000), not_after: at(1_000) };
        assert_eq!(validity.lifetime(), Duration::ZERO);
        assert!(validity.renewal_due(at(2_000)));
    }

    #[test]
    fn issued_windows_are_backdated_whole_seconds_and_capped() {
        let now = at(10_000) + Duration::from_millis(700);
        let validity = Validity::issued(now, Duration::from_secs(3_600), None);
        assert_eq!(validity.not_before, at(10_000 - 300));
        assert_eq!(validity.not_after, at(13_600));
        let capped = Validity::issued(now, Duration::from_secs(3_600), Some(at(11_000)));
        assert_eq!(capped.not_after, at(11_000));
    }

    #[test]
    fn negative_x509_times_count_as_the_epoch() {
        assert_eq!(Validity::from_unix(-5, 10), Validity { not_before: at(0), not_after: at(10) });
    }
}
