//! Prefix and change helpers shared by listing and watching.

use crate::api::{Change, Key, Prefix, Stored};

impl Prefix {
    /// Whether `key` is one of the keys this prefix covers.
    pub fn contains(&self, key: &Key) -> bool {
        key.group == self.group
            && key.resource == self.resource
            && self.namespace.as_ref().is_none_or(|namespace| *namespace == key.namespace)
    }

    /// The smallest key this prefix covers: keys order by group, resource, namespace, name,
    /// so every covered key sorts at or after it, contiguously.
    pub(crate) fn first_key(&self) -> Key {
        Key {
            group: self.group.clone(),
            resource: self.resource.clone(),
            namespace: self.namespace.clone().unwrap_or_default(),
            name: String::new(),
        }
    }
}

impl Change {
    /// The object the change carries (for [`Change::Deleted`], as it was, stamped with the
    /// deletion's revision).
    pub fn stored(&self) -> &Stored {
        match self {
            Change::Added(stored) | Change::Modified(stored) | Change::Deleted(stored) => stored,
        }
    }

    /// The revision of the write this change reports.
    pub fn revision(&self) -> u64 {
        self.stored().revision
    }
}
