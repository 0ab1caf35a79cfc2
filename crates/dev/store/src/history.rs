//! The bounded list of recent changes that watches replay and follow.

use std::collections::VecDeque;
use std::sync::Arc;

use crate::api::{Change, Event, Prefix, Stored};

/// A kept change. The object is shared with the store's current state (and with watches'
/// initial snapshots) rather than copied: the history costs pointers, not objects.
pub(crate) struct Kept {
    kind: fn(Stored) -> Change,
    stored: Arc<Stored>,
    /// What a modification replaced, so that a watch filtering by selector can tell an
    /// object leaving or entering its selection. Shared too: it is the previous change's
    /// object, so the history holds at most one extra object per kept change.
    previous: Option<Arc<Stored>>,
}

impl Kept {
    pub(crate) fn new(
        kind: fn(Stored) -> Change,
        stored: Arc<Stored>,
        previous: Option<Arc<Stored>>,
    ) -> Kept {
        Kept { kind, stored, previous }
    }

    fn event(&self) -> Event {
        Event { change: (self.kind)(Stored::clone(&self.stored)), previous: self.previous.clone() }
    }
}

pub(crate) struct History {
    /// Every change after `floor`, in revision order, one per revision.
    changes: VecDeque<Kept>,
    capacity: usize,
    /// The oldest revision a watch can resume after: every change after it is kept.
    floor: u64,
}

/// What a watcher at some revision gets next.
pub(crate) enum Next {
    Found(Event),
    /// Nothing matches yet; every kept change up to this revision has been looked at.
    Pending {
        seen: u64,
    },
    /// Changes after the watcher's revision were dropped: it can no longer be complete.
    Expired {
        oldest: u64,
    },
}

impl History {
    /// An empty history at `revision`: after a restart, nothing older can be replayed.
    pub(crate) fn new(capacity: usize, revision: u64) -> History {
        History {
            changes: VecDeque::new(),
            // At least one change is kept, so a watcher that keeps up never expires.
            capacity: capacity.max(1),
            floor: revision,
        }
    }

    pub(crate) fn floor(&self) -> u64 {
        self.floor
    }

    pub(crate) fn push(&mut self, change: Kept) {
        if self.changes.len() >= self.capacity
            && let Some(dropped) = self.changes.pop_front()
        {
            self.floor = dropped.stored.revision;
        }
        self.changes.push_back(change);
    }

    /// The first kept change after `after` that `prefix` covers.
    pub(crate) fn next_after(&self, after: u64, prefix: &Prefix) -> Next {
        if after < self.floor {
            return Next::Expired { oldest: self.floor };
        }
        let start = self.changes.partition_point(|kept| kept.stored.revision <= after);
        let mut seen = after;
        for kept in self.changes.range(start..) {
            if prefix.contains(&kept.stored.key) {
                return Next::Found(kept.event());
            }
            seen = kept.stored.revision;
        }
        Next::Pending { seen }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::api::Key;

    fn change(revision: u64, namespace: &str) -> Kept {
        Kept::new(
            Change::Added,
            Arc::new(Stored {
                key: Key {
                    group: String::new(),
                    resource: "secrets".to_owned(),
                    namespace: namespace.to_owned(),
                    name: revision.to_string(),
                },
                object: json!({}),
                revision,
            }),
            None,
        )
    }

    fn prefix(namespace: &str) -> Prefix {
        Prefix {
            group: String::new(),
            resource: "secrets".to_owned(),
            namespace: Some(namespace.to_owned()),
        }
    }

    #[test]
    fn the_floor_rises_as_changes_are_dropped() {
        let mut history = History::new(2, 5);
        assert_eq!(history.floor(), 5);
        for revision in 6..=9 {
            history.push(change(revision, "a"));
        }
        // 8 and 9 are kept: resuming after 7 is complete, after 6 is not.
        assert_eq!(history.floor(), 7);
        assert!(matches!(history.next_after(6, &prefix("a")), Next::Expired { oldest: 7 }));
        assert!(
            matches!(history.next_after(7, &prefix("a")), Next::Found(e) if e.change.revision() == 8)
        );
    }

    #[test]
    fn unmatched_changes_are_reported_as_seen() {
        let mut history = History::new(10, 0);
        history.push(change(1, "a"));
        history.push(change(2, "b"));
        history.push(change(3, "b"));
        assert!(
            matches!(history.next_after(0, &prefix("a")), Next::Found(e) if e.change.revision() == 1)
        );
        assert!(matches!(history.next_after(1, &prefix("a")), Next::Pending { seen: 3 }));
        assert!(matches!(history.next_after(3, &prefix("a")), Next::Pending { seen: 3 }));
    }
}
