//! The in-memory view: every object, the revision counter and the watch history.

use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::Arc;

use crate::api::{Change, Key, Listed, Prefix, Snapshot, Stored};
use crate::history::{History, Kept};

pub(crate) struct State {
    /// Each object is shared (`Arc`) with the history and with watches' initial snapshots,
    /// so that a watch costs pointers rather than a copy of what it lists.
    pub(crate) objects: BTreeMap<Key, Arc<Stored>>,
    /// The last assigned revision.
    pub(crate) revision: u64,
    pub(crate) history: History,
}

impl State {
    pub(crate) fn get(&self, key: &Key) -> Option<Stored> {
        self.objects.get(key).map(|stored| Stored::clone(stored))
    }

    fn range<'a>(
        &'a self,
        prefix: &'a Prefix,
        after: Option<&Key>,
    ) -> impl Iterator<Item = &'a Arc<Stored>> + 'a {
        let first = prefix.first_key();
        let lower = match after {
            Some(after) if *after >= first => Bound::Excluded(after.clone()),
            _ => Bound::Included(first),
        };
        self.objects
            .range((lower, Bound::Unbounded))
            .take_while(|(key, _)| prefix.contains(key))
            .map(|(_, stored)| stored)
    }

    pub(crate) fn list(
        &self,
        prefix: &Prefix,
        after: Option<&Key>,
        limit: Option<usize>,
    ) -> Listed {
        let limit = limit.filter(|limit| *limit > 0).unwrap_or(usize::MAX);
        let mut matching = self.range(prefix, after);
        let items = matching.by_ref().take(limit).map(|stored| Stored::clone(stored)).collect();
        Listed { items, revision: self.revision, more: matching.next().is_some() }
    }

    pub(crate) fn snapshot(&self, prefix: &Prefix) -> Snapshot {
        Snapshot { items: self.range(prefix, None).cloned().collect(), revision: self.revision }
    }

    /// Applies a change already made durable (if the store has a disk).
    pub(crate) fn apply(&mut self, change: Change) {
        let (kind, stored, deleted): (fn(Stored) -> Change, Stored, bool) = match change {
            Change::Added(stored) => (Change::Added, stored, false),
            Change::Modified(stored) => (Change::Modified, stored, false),
            Change::Deleted(stored) => (Change::Deleted, stored, true),
        };
        let stored = Arc::new(stored);
        let replaced = if deleted {
            self.objects.remove(&stored.key)
        } else {
            self.objects.insert(stored.key.clone(), Arc::clone(&stored))
        };
        // A deletion's own object is the one it removed: only a modification keeps another.
        let previous = if deleted { None } else { replaced };
        self.revision = stored.revision;
        self.history.push(Kept::new(kind, stored, previous));
    }
}
