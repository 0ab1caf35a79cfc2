//! What this controller wrote to replicas, remembered until the Policy watch shows it:
//! deletions, so a stale cached copy is not mistaken for a live replica, and creates and
//! updates, so the watch event of the controller's own write does not reconcile the replica
//! a second time (it would resolve every hub template again to find nothing to do).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use crate::reads::ReplicaKey;
use crate::stored::StoredPolicy;

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Replicas this controller deleted, by the resourceVersion they had: until the cache has
/// seen the deletion, a cached copy with that version is treated as gone (upstream's
/// `deleted-<resourceVersion>` markers), or it would never be re-created.
#[derive(Default)]
pub struct Deleted(Mutex<HashMap<ReplicaKey, String>>);

impl Deleted {
    pub fn record(&self, key: &ReplicaKey, version: Option<String>) {
        if let Some(version) = version {
            lock(&self.0).insert(key.clone(), version);
        }
    }

    /// The cached replica, unless it is the copy this controller deleted.
    pub fn filter(
        &self,
        key: &ReplicaKey,
        cached: Option<Arc<StoredPolicy>>,
    ) -> Option<Arc<StoredPolicy>> {
        let mut deleted = lock(&self.0);
        match (&cached, deleted.get(key)) {
            (Some(object), Some(version))
                if object.metadata().resource_version.as_ref() == Some(version) =>
            {
                None
            }
            (_, Some(_)) => {
                deleted.remove(key);
                cached
            }
            _ => cached,
        }
    }
}

/// The resourceVersion of each replica's last create or update by this controller, until
/// the watch delivers it. A version the watch delivers first (the response can arrive after
/// the event) stays until the next write or the replica's deletion replaces it; versions
/// are never reused, so it cannot match a later event.
#[derive(Default)]
pub struct Written(Mutex<HashMap<ReplicaKey, String>>);

impl Written {
    pub fn record(&self, key: &ReplicaKey, version: Option<String>) {
        match version {
            Some(version) => lock(&self.0).insert(key.clone(), version),
            None => lock(&self.0).remove(key),
        };
    }

    /// Whether `version` of `key` is this controller's own last write (forgotten once seen).
    pub fn is_own(&self, key: &ReplicaKey, version: Option<&str>) -> bool {
        let mut written = lock(&self.0);
        match (written.get(key), version) {
            (Some(ours), Some(seen)) if ours == seen => {
                written.remove(key);
                true
            }
            _ => false,
        }
    }

    pub fn forget(&self, key: &ReplicaKey) {
        lock(&self.0).remove(key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> ReplicaKey {
        ("cluster1".to_owned(), "policies.p".to_owned())
    }

    #[test]
    fn own_write_is_recognised_once() {
        let written = Written::default();
        written.record(&key(), Some("7".to_owned()));
        assert!(!written.is_own(&key(), Some("6")), "an older version is someone else's");
        assert!(written.is_own(&key(), Some("7")));
        assert!(!written.is_own(&key(), Some("7")), "a version is recognised once");
    }

    #[test]
    fn a_later_write_replaces_the_earlier_and_deletion_forgets() {
        let written = Written::default();
        written.record(&key(), Some("7".to_owned()));
        written.record(&key(), Some("9".to_owned()));
        assert!(!written.is_own(&key(), Some("7")));
        written.forget(&key());
        assert!(!written.is_own(&key(), Some("9")));
        assert!(!written.is_own(&key(), None));
    }

    #[test]
    fn deleted_copy_is_hidden_until_the_cache_changes() {
        let deleted = Deleted::default();
        let mut object =
            kube::api::DynamicObject::new("policies.p", &crate::index::policy_resource());
        object.metadata.resource_version = Some("5".to_owned());
        let object = Arc::new(StoredPolicy::from_watched(object));
        deleted.record(&key(), Some("5".to_owned()));
        assert!(deleted.filter(&key(), Some(object.clone())).is_none());
        assert!(deleted.filter(&key(), None).is_none());
        assert!(
            deleted.filter(&key(), Some(object)).is_some(),
            "the marker went with the gone copy"
        );
    }
}
