//! The store's interface (agreed contract; implementation lives in the other modules).

use std::path::PathBuf;

use serde_json::Value;

/// Where an object lives: its resource (API group and plural, e.g. `cert-manager.io` /
/// `certificaterequests`; the core group is `""`), namespace (`""` when cluster-scoped)
/// and name. Keys order by resource, then namespace, then name: listing a resource, or a
/// resource in one namespace, is a prefix scan in that order.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key {
    pub group: String,
    pub resource: String,
    pub namespace: String,
    pub name: String,
}

/// Which keys a list or watch covers: one resource, optionally one namespace.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Prefix {
    pub group: String,
    pub resource: String,
    /// `None`: every namespace (and cluster-scoped objects).
    pub namespace: Option<String>,
}

/// A stored object and the revision of its last write.
#[derive(Clone, Debug, PartialEq)]
pub struct Stored {
    pub key: Key,
    pub object: Value,
    /// The revision that last wrote this object (its `resourceVersion`).
    pub revision: u64,
}

/// How the store is kept.
#[derive(Clone, Debug)]
pub struct StoreOptions {
    /// `None`: in memory only. `Some(dir)`: every write is durable in an embedded database
    /// under `dir` before it is acknowledged; opening an existing directory restores every
    /// object and the revision counter.
    pub data_dir: Option<PathBuf>,
    /// How many past changes are kept for watches resuming from an older revision; a watch
    /// from before the oldest kept change fails with [`StoreError::Expired`].
    pub watch_history: usize,
}

/// What a watch reports, in revision order.
#[derive(Clone, Debug, PartialEq)]
pub enum Change {
    Added(Stored),
    Modified(Stored),
    /// The object as it was when deleted; `revision` is the deletion's revision.
    Deleted(Stored),
}

/// A [`Change`] as a watch gets it from [`crate::Watch::next_event`].
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    pub change: Change,
    /// For a modification, the object it replaced (shared with the store, not copied);
    /// `None` for additions and deletions (a deletion's object is the removed one), and for
    /// a modification whose previous object the store no longer knows.
    pub previous: Option<std::sync::Arc<Stored>>,
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("an object already exists at {0:?}")]
    AlreadyExists(Box<Key>),
    #[error("no object at {0:?}")]
    NotFound(Box<Key>),
    #[error("revision conflict at {key:?}: expected {expected}, stored {actual}")]
    Conflict { key: Box<Key>, expected: u64, actual: u64 },
    /// `oldest` is the oldest revision a watch can still start from (the revision just
    /// before the oldest kept change); the API layer answers 410 Gone.
    #[error(
        "revision {requested} is older than the oldest revision a watch can resume from ({oldest}); list again and watch from the list's revision"
    )]
    Expired { requested: u64, oldest: u64 },
    #[error("storage failed: {0}")]
    Storage(String),
    /// The store stamps `metadata.resourceVersion` into every object, so it only accepts a
    /// JSON object whose `metadata`, when present, is a JSON object too.
    #[error("cannot store the value at {key:?}: {reason}")]
    InvalidObject { key: Box<Key>, reason: &'static str },
}

/// One page of a [`crate::Store::list`].
#[derive(Clone, Debug, PartialEq)]
pub struct Listed {
    /// In key order.
    pub items: Vec<Stored>,
    /// The store's revision when the list was taken: a watch from it misses nothing.
    pub revision: u64,
    /// Further items exist after the last one returned (continue with `after` = its key).
    pub more: bool,
}

/// Every object under a prefix at one revision, shared with the store rather than copied
/// (see [`crate::Store::snapshot`]).
#[derive(Clone, Debug)]
pub struct Snapshot {
    /// In key order.
    pub items: Vec<std::sync::Arc<Stored>>,
    /// The store's revision when the snapshot was taken: a watch from it misses nothing.
    pub revision: u64,
}

/// What a [`crate::Store::modify`] callback decides to do with the current object.
#[derive(Clone, Debug, PartialEq)]
pub enum Modification {
    /// Write this object in place of the current one (takes the next revision).
    Replace(Value),
    /// Delete the object (takes the next revision).
    Delete,
    /// Leave the object as it is (no revision is used, nothing is written or watched).
    Keep,
}

/// Why a [`crate::Store::modify`] did not happen.
#[derive(Debug, thiserror::Error)]
pub enum ModifyError<E> {
    #[error(transparent)]
    Store(StoreError),
    /// The callback refused the change; nothing was written.
    #[error("{0}")]
    Rejected(E),
}
