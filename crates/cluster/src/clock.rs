//! The time source of the caches, injectable so tests can move time without sleeping.

use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// Where the caches read "now" from.
pub trait Clock: Send + Sync {
    fn now(&self) -> Instant;
}

/// The monotonic system clock: cache expiry must not jump with wall-clock changes.
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Instant {
        Instant::now()
    }
}

/// A clock that moves only when [`ManualClock::advance`] is called, so tests of expiry
/// neither sleep nor depend on scheduling.
#[derive(Debug)]
pub struct ManualClock {
    now: Mutex<Instant>,
}

impl Default for ManualClock {
    fn default() -> Self {
        ManualClock { now: Mutex::new(Instant::now()) }
    }
}

impl ManualClock {
    /// Moves the clock forward by `by`; an unrepresentable instant leaves it unchanged.
    pub fn advance(&self, by: Duration) {
        let mut now = self.now.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(later) = now.checked_add(by) {
            *now = later;
        }
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Instant {
        *self.now.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
