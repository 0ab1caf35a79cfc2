//! How long to wait between attempts at a request that failed for a transient reason.

use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;
use std::num::NonZeroU32;
use std::time::Duration;

/// An exponential retry schedule with jitter, shaped like the API server's `wait.Backoff`.
///
/// Attempt 1 is sent at once; before retry `n` (attempt `n + 1`) the caller waits
/// `initial × factorⁿ⁻¹`, at most `cap`, plus a random extra of up to `jitter` times that
/// wait. As upstream does, the jitter is added after the cap, so a wait can exceed `cap`
/// by up to `jitter × cap`. A factor of 1 keeps the wait constant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Backoff {
    /// The wait before the first retry.
    pub initial: Duration,
    /// What each further wait is multiplied by.
    pub factor: f64,
    /// The largest random extra, as a fraction of the wait (0.2 adds up to 20 %).
    pub jitter: f64,
    /// How many attempts are made in all, the first one included.
    pub steps: NonZeroU32,
    /// The longest wait before jitter.
    pub cap: Duration,
}

/// The delegating authorizer's SubjectAccessReview retry schedule: 1 s, factor 2, jitter 0.2,
/// 2 steps (one retry), cap 5 s.
pub const DEFAULT_SAR_BACKOFF: Backoff = Backoff {
    initial: Duration::from_secs(1),
    factor: 2.0,
    jitter: 0.2,
    steps: NonZeroU32::new(2).unwrap(),
    cap: Duration::from_secs(5),
};

impl Default for Backoff {
    fn default() -> Self {
        DEFAULT_SAR_BACKOFF
    }
}

impl Backoff {
    /// The wait before retry `retry` (1 is the first retry; 0, the first attempt, waits
    /// nothing). `random` picks the jitter: 0 adds none, values towards 1 add up to
    /// `jitter` of the wait; values outside `[0, 1)` are clamped. Nonsensical settings (a
    /// negative or NaN factor or jitter) give no wait or no jitter instead of panicking.
    pub fn delay(&self, retry: u32, random: f64) -> Duration {
        let Some(exponent) = retry.checked_sub(1) else {
            return Duration::ZERO;
        };
        let exponent = i32::try_from(exponent).unwrap_or(i32::MAX);
        let base = self.initial.as_secs_f64() * self.factor.powi(exponent);
        let wait = if base.is_nan() || base <= 0.0 {
            Duration::ZERO
        } else if base >= self.cap.as_secs_f64() {
            self.cap
        } else {
            Duration::from_secs_f64(base)
        };
        let extra = wait.as_secs_f64() * self.jitter * random.clamp(0.0, 1.0);
        if extra.is_nan() || extra <= 0.0 {
            return wait;
        }
        wait.saturating_add(Duration::try_from_secs_f64(extra).unwrap_or(Duration::MAX))
    }
}

/// A random fraction in `[0, 1)` for [`Backoff::delay`].
///
/// Jitter only has to spread retries from many callers apart, not be unpredictable, so this
/// avoids a `rand` dependency: std seeds every `RandomState` from the OS once per thread and
/// changes the keys on each `RandomState::new`, so an empty hasher's output differs per call.
pub(crate) fn random_fraction() -> f64 {
    let bits = RandomState::new().hash_one(()) >> 11;
    // 53 bits fill an f64 mantissa exactly, so the quotient is below 1.
    bits as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(ms: u64) -> Duration {
        Duration::from_millis(ms)
    }

    #[test]
    fn the_default_is_the_delegating_authorizers_schedule() {
        let backoff = Backoff::default();
        assert_eq!(backoff, DEFAULT_SAR_BACKOFF);
        assert_eq!(backoff.steps.get(), 2);
        assert_eq!(backoff.delay(0, 0.5), Duration::ZERO);
        assert_eq!(backoff.delay(1, 0.0), ms(1000));
        assert_eq!(backoff.delay(1, 0.5), ms(1100));
        assert!(backoff.delay(1, 0.999_999) < ms(1200));
    }

    #[test]
    fn waits_grow_by_the_factor_until_the_cap() {
        let backoff = DEFAULT_SAR_BACKOFF;
        let waits: Vec<Duration> = (1..=6).map(|n| backoff.delay(n, 0.0)).collect();
        assert_eq!(waits, [ms(1000), ms(2000), ms(4000), ms(5000), ms(5000), ms(5000)]);
        assert_eq!(backoff.delay(u32::MAX, 0.0), ms(5000));
    }

    #[test]
    fn jitter_is_added_after_the_cap() {
        let backoff = DEFAULT_SAR_BACKOFF;
        assert_eq!(backoff.delay(2, 0.5), ms(2200));
        assert_eq!(backoff.delay(10, 0.5), ms(5500));
    }

    #[test]
    fn out_of_range_inputs_do_not_panic() {
        let backoff = DEFAULT_SAR_BACKOFF;
        assert_eq!(backoff.delay(1, -3.0), ms(1000));
        assert_eq!(backoff.delay(1, 7.0), ms(1200));
        assert_eq!(backoff.delay(1, f64::NAN), ms(1000));
        let broken = Backoff { factor: f64::NAN, jitter: -1.0, ..backoff };
        assert_eq!(broken.delay(2, 0.5), Duration::ZERO);
        assert_eq!(broken.delay(1, 0.5), ms(1000));
        let huge = Backoff { jitter: f64::MAX, cap: Duration::MAX, ..backoff };
        assert_eq!(huge.delay(1, 0.5), Duration::MAX);
    }

    #[test]
    fn a_zero_initial_wait_never_waits() {
        let backoff = Backoff { initial: Duration::ZERO, ..DEFAULT_SAR_BACKOFF };
        assert!((0..5).all(|n| backoff.delay(n, 0.9).is_zero()));
    }

    #[test]
    fn random_fractions_are_in_range_and_vary() {
        let draws: Vec<f64> = (0..64).map(|_| random_fraction()).collect();
        assert!(draws.iter().all(|f| (0.0..1.0).contains(f)), "{draws:?}");
        assert!(draws.iter().any(|f| *f != draws[0]), "{draws:?}");
    }
}
