//! Contour's debounced rebuild (`internal/contour/handler.go`, `holdoffDelay` and
//! `holdoffMaxDelay`): after a change, wait until changes pause for 100 ms, but never more
//! than 500 ms after the first change still pending, so a steady stream of changes (a
//! rolling deployment moving endpoints) still reaches Envoy twice a second.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Notify;
use tokio::time::Instant;

/// Contour's hold-off after a change.
pub const HOLDOFF: Duration = Duration::from_millis(100);
/// Contour's longest hold-off after the first pending change.
pub const MAX_HOLDOFF: Duration = Duration::from_millis(500);

/// When to rebuild, given the first and the latest pending change.
pub fn rebuild_at(first: Instant, latest: Instant, holdoff: Duration, max: Duration) -> Instant {
    (latest + holdoff).min(first + max)
}

/// Where the watches report changes and the rebuild loop waits for them. Clones share it.
#[derive(Clone, Debug, Default)]
pub struct Changes {
    notify: Arc<Notify>,
}

impl Changes {
    /// Records a change; wakes the loop if it waits, else the next wait returns at once.
    pub fn changed(&self) {
        self.notify.notify_one();
    }

    /// Waits for a change, then for the hold-off ([`rebuild_at`]); returns when to rebuild.
    pub async fn settled(&self, holdoff: Duration, max: Duration) {
        self.notify.notified().await;
        let first = Instant::now();
        let mut latest = first;
        loop {
            let at = rebuild_at(first, latest, holdoff, max);
            tokio::select! {
                () = self.notify.notified() => latest = Instant::now(),
                () = tokio::time::sleep_until(at) => return,
            }
            if latest >= first + max {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quiet_change_waits_the_holdoff_and_a_busy_stream_the_maximum() {
        let first = Instant::now();
        assert_eq!(rebuild_at(first, first, HOLDOFF, MAX_HOLDOFF), first + HOLDOFF);
        let later = first + Duration::from_millis(300);
        assert_eq!(rebuild_at(first, later, HOLDOFF, MAX_HOLDOFF), later + HOLDOFF);
        let late = first + Duration::from_millis(450);
        assert_eq!(rebuild_at(first, late, HOLDOFF, MAX_HOLDOFF), first + MAX_HOLDOFF);
    }

    #[tokio::test]
    async fn a_change_before_the_wait_is_not_lost() {
        let changes = Changes::default();
        changes.changed();
        changes.changed();
        // Returns (the pending change counts) rather than waiting forever.
        changes.settled(Duration::ZERO, Duration::ZERO).await;
    }
}
