//! Prefix and change helpers shared by listing and watching.

use crate::api::{Change, Key, Prefix, Stored};

/// `resource.group namespace/name` (`resource namespace/name` in the core group, no
/// `namespace/` when cluster-scoped), as in messages about one object.
impl std::fmt::Display for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.resource)?;
        if !self.group.is_empty() {
            write!(f, ".{}", self.group)?;
        }
        f.write_str(" ")?;
        if !self.namespace.is_empty() {
            write!(f, "{}/", self.namespace)?;
        }
        write!(f, "\"{}\"", self.name)
    }
}

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
