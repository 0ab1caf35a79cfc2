//! The store: serialized writers, concurrent readers, durable-before-visible writes.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock, RwLockReadGuard};

use serde_json::Value;
use tokio::sync::Notify;

use crate::api::{
    Change, Key, Listed, Modification, ModifyError, Prefix, Snapshot, StoreError, StoreOptions,
    Stored,
};
use crate::disk::{Disk, Write};
use crate::history::History;
use crate::object::stamp;
use crate::state::State;
use crate::watch::Watch;

impl Default for StoreOptions {
    fn default() -> StoreOptions {
        StoreOptions { data_dir: None, watch_history: 10_000 }
    }
}

/// A versioned object store. Share it in an `Arc`; every method is safe to call from any
/// thread, and none blocks on a watcher.
pub struct Store {
    shared: Arc<Shared>,
}

pub(crate) struct Shared {
    /// Serializes writers, including the disk commit, so revisions are assigned and
    /// committed in order, while readers keep using `state` during a slow commit.
    writer: Mutex<Option<Disk>>,
    /// Only changed by a writer holding `writer`, after its disk commit succeeded.
    state: RwLock<State>,
    /// Wakes watches after each applied change.
    pub(crate) changed: Notify,
}

impl Shared {
    // Poisoning is recovered from: `state` is changed only by `State::apply`, which does no
    // fallible work, and the writer lock guards no memory of its own (a panicking `modify`
    // callback leaves both untouched).
    pub(crate) fn read(&self) -> RwLockReadGuard<'_, State> {
        self.state.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn writer(&self) -> MutexGuard<'_, Option<Disk>> {
        self.writer.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Store {
    pub fn open(options: StoreOptions) -> Result<Store, StoreError> {
        let (disk, objects, revision) = match &options.data_dir {
            Some(dir) => {
                let (disk, restored) = Disk::open(dir)?;
                (Some(disk), restored.objects, restored.revision)
            }
            None => (None, BTreeMap::new(), 0),
        };
        let state =
            State { objects, revision, history: History::new(options.watch_history, revision) };
        Ok(Store {
            shared: Arc::new(Shared {
                writer: Mutex::new(disk),
                state: RwLock::new(state),
                changed: Notify::new(),
            }),
        })
    }

    /// The last assigned revision (0 when nothing was ever written).
    pub fn revision(&self) -> u64 {
        self.shared.read().revision
    }

    pub fn get(&self, key: &Key) -> Option<Stored> {
        self.shared.read().get(key)
    }

    /// Items under `prefix` in key order, strictly after `after`, at most `limit` of them
    /// (`None` or 0: all).
    pub fn list(&self, prefix: &Prefix, after: Option<&Key>, limit: Option<usize>) -> Listed {
        self.shared.read().list(prefix, after, limit)
    }

    /// Every object under `prefix` in key order and the revision they are current at, shared
    /// with the store instead of copied: what a watch streams as its initial events. Holding
    /// a snapshot keeps the objects it names alive (also ones deleted since), nothing more.
    pub fn snapshot(&self, prefix: &Prefix) -> Snapshot {
        self.shared.read().snapshot(prefix)
    }

    pub fn create(&self, key: Key, object: Value) -> Result<Stored, StoreError> {
        let disk = self.shared.writer();
        let revision = {
            let state = self.shared.read();
            if state.objects.contains_key(&key) {
                return Err(StoreError::AlreadyExists(Box::new(key)));
            }
            next(state.revision)?
        };
        self.put(&disk, key, object, revision, Change::Added)
    }

    /// Replaces the object at `key`; with `expected`, only if its revision is that one.
    pub fn update(
        &self,
        key: &Key,
        expected: Option<u64>,
        object: Value,
    ) -> Result<Stored, StoreError> {
        let disk = self.shared.writer();
        let revision = {
            let state = self.shared.read();
            let Some(current) = state.objects.get(key) else {
                return Err(StoreError::NotFound(Box::new(key.clone())));
            };
            check(key, expected, current.revision)?;
            next(state.revision)?
        };
        self.put(&disk, key.clone(), object, revision, Change::Modified)
    }

    /// Deletes the object at `key`; with `expected`, only if its revision is that one.
    /// Returns the object as it was, stamped with the deletion's revision.
    pub fn delete(&self, key: &Key, expected: Option<u64>) -> Result<Stored, StoreError> {
        let disk = self.shared.writer();
        let (object, revision) = {
            let state = self.shared.read();
            let Some(current) = state.objects.get(key) else {
                return Err(StoreError::NotFound(Box::new(key.clone())));
            };
            check(key, expected, current.revision)?;
            (current.object.clone(), next(state.revision)?)
        };
        self.remove(&disk, key.clone(), object, revision)
    }

    /// Atomic read-modify-write: `f` sees the current object and decides, and no other write
    /// can come in between. `f` runs with the writer lock held, so it must not call the store.
    pub fn modify<E>(
        &self,
        key: &Key,
        f: impl FnOnce(&Stored) -> Result<Modification, E>,
    ) -> Result<Option<Stored>, ModifyError<E>> {
        let disk = self.shared.writer();
        let (current, revision) = {
            let state = self.shared.read();
            let current = state
                .get(key)
                .ok_or_else(|| ModifyError::Store(StoreError::NotFound(Box::new(key.clone()))))?;
            (current, next(state.revision).map_err(ModifyError::Store)?)
        };
        let written = match f(&current).map_err(ModifyError::Rejected)? {
            Modification::Replace(object) => {
                self.put(&disk, key.clone(), object, revision, Change::Modified)
            }
            Modification::Delete => self.remove(&disk, key.clone(), current.object, revision),
            Modification::Keep => return Ok(None),
        };
        written.map(Some).map_err(ModifyError::Store)
    }

    /// Watches `prefix` from `after`: first every kept change after it, then new ones.
    /// `after` at or beyond the current revision means only future changes.
    pub fn watch(&self, prefix: &Prefix, after: u64) -> Result<Watch, StoreError> {
        let state = self.shared.read();
        let floor = state.history.floor();
        if after < floor {
            return Err(StoreError::Expired { requested: after, oldest: floor });
        }
        let cursor = after.min(state.revision);
        drop(state);
        Ok(Watch::new(Arc::clone(&self.shared), prefix.clone(), cursor))
    }

    fn put(
        &self,
        disk: &Option<Disk>,
        key: Key,
        mut object: Value,
        revision: u64,
        change: fn(Stored) -> Change,
    ) -> Result<Stored, StoreError> {
        stamp(&key, &mut object, revision)?;
        if let Some(disk) = disk {
            disk.commit(Write::Put(&key, &object), revision)?;
        }
        let stored = Stored { key, object, revision };
        self.apply(change(stored.clone()));
        Ok(stored)
    }

    fn remove(
        &self,
        disk: &Option<Disk>,
        key: Key,
        mut object: Value,
        revision: u64,
    ) -> Result<Stored, StoreError> {
        stamp(&key, &mut object, revision)?;
        if let Some(disk) = disk {
            disk.commit(Write::Remove(&key), revision)?;
        }
        let stored = Stored { key, object, revision };
        self.apply(Change::Deleted(stored.clone()));
        Ok(stored)
    }

    fn apply(&self, change: Change) {
        self.shared.state.write().unwrap_or_else(PoisonError::into_inner).apply(change);
        self.shared.changed.notify_waiters();
    }
}

fn next(revision: u64) -> Result<u64, StoreError> {
    revision
        .checked_add(1)
        .ok_or_else(|| StoreError::Storage("the revision counter is exhausted".to_owned()))
}

fn check(key: &Key, expected: Option<u64>, actual: u64) -> Result<(), StoreError> {
    match expected {
        Some(expected) if expected != actual => {
            Err(StoreError::Conflict { key: Box::new(key.clone()), expected, actual })
        }
        _ => Ok(()),
    }
}
