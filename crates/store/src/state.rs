//! The in-memory view: every object, the revision counter and the watch history.

use std::collections::BTreeMap;
use std::ops::Bound;

use serde_json::Value;

use crate::api::{Change, Key, Listed, Prefix, Stored};
use crate::history::History;

pub(crate) struct State {
    pub(crate) objects: BTreeMap<Key, (u64, Value)>,
    /// The last assigned revision.
    pub(crate) revision: u64,
    pub(crate) history: History,
}

impl State {
    pub(crate) fn get(&self, key: &Key) -> Option<Stored> {
        self.objects.get(key).map(|(revision, object)| Stored {
            key: key.clone(),
            object: object.clone(),
            revision: *revision,
        })
    }

    pub(crate) fn list(
        &self,
        prefix: &Prefix,
        after: Option<&Key>,
        limit: Option<usize>,
    ) -> Listed {
        let first = prefix.first_key();
        let lower = match after {
            Some(after) if *after >= first => Bound::Excluded(after.clone()),
            _ => Bound::Included(first),
        };
        let limit = limit.filter(|limit| *limit > 0).unwrap_or(usize::MAX);
        let mut matching = self
            .objects
            .range((lower, Bound::Unbounded))
            .take_while(|(key, _)| prefix.contains(key));
        let items = matching
            .by_ref()
            .take(limit)
            .map(|(key, (revision, object))| Stored {
                key: key.clone(),
                object: object.clone(),
                revision: *revision,
            })
            .collect();
        Listed { items, revision: self.revision, more: matching.next().is_some() }
    }

    /// Applies a change already made durable (if the store has a disk).
    pub(crate) fn apply(&mut self, change: Change) {
        let stored = change.stored();
        match &change {
            Change::Added(_) | Change::Modified(_) => {
                self.objects.insert(stored.key.clone(), (stored.revision, stored.object.clone()));
            }
            Change::Deleted(_) => {
                self.objects.remove(&stored.key);
            }
        }
        self.revision = stored.revision;
        self.history.push(change);
    }
}
