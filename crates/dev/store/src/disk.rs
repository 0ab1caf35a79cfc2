//! Durable persistence in a redb database: the objects and the revision counter.
//!
//! A store file that does not open cleanly is never replaced, repaired away or recreated:
//! opening fails with a message naming the file and what to do. Only a data directory
//! without a store file gets a new, empty one.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::os::unix::fs::OpenOptionsExt as _;
use std::panic::{self, AssertUnwindSafe};
use std::path::Path;
use std::sync::Arc;

use redb::{Builder, Database, DatabaseError, ReadableDatabase, ReadableTable, TableDefinition};
use serde_json::Value;

use crate::api::{Key, StoreError, Stored};
use crate::checksum;
use crate::files::{self, SECRET_FILE_MODE};

/// Objects by (group, resource, namespace, name). redb encodes tuples with each part's
/// length, so no name can be confused with another split of the same characters. The
/// value is the object's revision and, from format 2 on, `checksum ++ JSON`.
const OBJECTS: TableDefinition<KeyParts, (u64, &[u8])> = TableDefinition::new("objects");
/// group, resource, namespace, name.
type KeyParts<'a> = (&'a str, &'a str, &'a str, &'a str);
/// The revision counter, stored so that restarts never reuse a revision, even one whose
/// object was deleted since, and the format of the values.
const META: TableDefinition<&str, u64> = TableDefinition::new("meta");
const REVISION: &str = "revision";
const FORMAT: &str = "format";
/// 2: every value carries a checksum ([`checksum`]). Files without a `format` entry were
/// written before checksums (format 1, plain JSON values) and are migrated when opened.
const CURRENT_FORMAT: u64 = 2;
const LEGACY_FORMAT: u64 = 1;
pub(crate) const FILE_NAME: &str = "store.redb";

/// One write, applied together with the new revision counter in a single transaction.
pub(crate) enum Write<'a> {
    Put(&'a Key, &'a Value),
    Remove(&'a Key),
}

/// What [`Disk::open`] restored.
pub(crate) struct Restored {
    pub(crate) objects: BTreeMap<Key, Arc<Stored>>,
    pub(crate) revision: u64,
}

pub(crate) struct Disk {
    db: Database,
}

/// A store file that cannot be used as it is: what is wrong, and what to do about it.
fn refused(path: &Path, problem: impl std::fmt::Display) -> StoreError {
    StoreError::Storage(format!(
        "the store file {} {problem}. certgate never replaces or repairs a store it cannot \
         read: move the file aside (or restore it from a backup) to keep its contents, or \
         start with another, empty data directory",
        path.display()
    ))
}

impl Disk {
    /// Opens the database in `dir`, creating `dir` (owner-only) and a new database only when
    /// there is no store file yet, and reads everything back.
    pub(crate) fn open(dir: &Path) -> Result<(Disk, Restored), StoreError> {
        files::private_dir(dir)
            .map_err(|e| StoreError::Storage(format!("cannot use the data directory: {e}")))?;
        let path = dir.join(FILE_NAME);
        match fs::symlink_metadata(&path) {
            Err(err) if err.kind() == io::ErrorKind::NotFound => create(&path),
            Err(err) => Err(StoreError::Storage(format!(
                "cannot inspect the store file {}: {err}",
                path.display()
            ))),
            Ok(_) => open_existing(&path),
        }
    }

    /// Commits `write` and `revision` durably (redb's default, immediate durability) before
    /// returning; on error nothing of it is visible after a restart.
    pub(crate) fn commit(&self, write: Write<'_>, revision: u64) -> Result<(), StoreError> {
        let failed = |e: &dyn std::fmt::Display| {
            StoreError::Storage(format!(
                "cannot commit revision {revision}: {e}; the write was not applied"
            ))
        };
        let commit = || {
            let txn = self.db.begin_write().map_err(|e| failed(&e))?;
            {
                let mut objects = txn.open_table(OBJECTS).map_err(|e| failed(&e))?;
                match write {
                    Write::Put(key, object) => {
                        let json = serde_json::to_vec(object).map_err(|e| failed(&e))?;
                        let sealed = checksum::seal(key, revision, &json);
                        objects
                            .insert(parts(key), (revision, sealed.as_slice()))
                            .map_err(|e| failed(&e))?;
                    }
                    Write::Remove(key) => {
                        objects.remove(parts(key)).map_err(|e| failed(&e))?;
                    }
                }
                let mut meta = txn.open_table(META).map_err(|e| failed(&e))?;
                meta.insert(REVISION, revision).map_err(|e| failed(&e))?;
            }
            txn.commit().map_err(|e| failed(&e))
        };
        // See `guarded`: a file damaged under a running sandbox must fail this write, not
        // take the process down.
        panic::catch_unwind(AssertUnwindSafe(commit)).unwrap_or_else(|payload| {
            Err(failed(&format!("the database library failed: {}", panic_message(&payload))))
        })
    }
}

/// A new store: built under a temporary name and renamed into place once it holds its
/// format, so that a crash while creating it never leaves a half-made `store.redb` (which
/// the next start would refuse).
fn create(path: &Path) -> Result<(Disk, Restored), StoreError> {
    let failed = |what: &str, e: &dyn std::fmt::Display| {
        StoreError::Storage(format!("cannot create the store file {}: {what}: {e}", path.display()))
    };
    let partial = path.with_extension("redb.new");
    // A leftover of a crashed creation holds nothing yet.
    let _ = fs::remove_file(&partial);
    // Created owner-only before redb writes a byte into it (redb would create it 0644).
    fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(SECRET_FILE_MODE)
        .open(&partial)
        .map_err(|e| failed("cannot create it", &e))?;
    let db = guarded(path, || {
        // `create` initializes an existing empty file: the one just made.
        let db = Builder::new().create(&partial).map_err(|e| failed("redb", &e))?;
        let txn = db.begin_write().map_err(|e| failed("redb", &e))?;
        txn.open_table(OBJECTS).map_err(|e| failed("redb", &e))?;
        {
            let mut meta = txn.open_table(META).map_err(|e| failed("redb", &e))?;
            meta.insert(FORMAT, CURRENT_FORMAT).map_err(|e| failed("redb", &e))?;
        }
        txn.commit().map_err(|e| failed("redb", &e))?;
        Ok(db)
    })?;
    fs::rename(&partial, path).map_err(|e| failed("cannot move it into place", &e))?;
    if let Some(dir) = path.parent().and_then(|dir| fs::File::open(dir).ok()) {
        let _ = dir.sync_all();
    }
    Ok((Disk { db }, Restored { objects: BTreeMap::new(), revision: 0 }))
}

fn open_existing(path: &Path) -> Result<(Disk, Restored), StoreError> {
    let metadata = fs::metadata(path).map_err(|e| refused(path, format!("cannot be read: {e}")))?;
    if !metadata.is_file() {
        return Err(refused(path, "is not a regular file"));
    }
    if metadata.len() == 0 {
        return Err(refused(path, "is empty (0 bytes): it holds no objects and no revision"));
    }
    files::private_file(path).map_err(|e| StoreError::Storage(e.to_string()))?;
    guarded(path, || {
        // The integrity check verifies the checksum of every page redb committed, so a file
        // altered outside redb fails here instead of being trusted (a plain open may panic).
        let db = Builder::new().set_check_integrity_on_open(true).open(path).map_err(|e| {
            match e {
                DatabaseError::DatabaseAlreadyOpen => StoreError::Storage(format!(
                    "the store file {} is in use by another process (is another `certgate dev` running with the same data directory?)",
                    path.display()
                )),
                other => refused(path, format!("is not a readable redb database: {other}")),
            }
        })?;
        let restored = restore(&db, path)?;
        Ok((Disk { db }, restored))
    })
}

/// redb returns errors for the damage it detects, but some of its internal checks are
/// assertions (by design in debug builds), so a damaged file can make it panic. A store
/// file damaged outside certgate must give an error, not take the process down: opening
/// and reading run under `catch_unwind`. The panic message is still printed by the
/// standard panic hook before the error is returned.
fn guarded<T>(path: &Path, f: impl FnOnce() -> Result<T, StoreError>) -> Result<T, StoreError> {
    panic::catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|payload| {
        Err(refused(
            path,
            format!(
                "is damaged: the database library failed reading it ({})",
                panic_message(&payload)
            ),
        ))
    })
}

fn panic_message(payload: &Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".to_owned())
}

fn parts(key: &Key) -> KeyParts<'_> {
    (&key.group, &key.resource, &key.namespace, &key.name)
}

fn restore(db: &Database, path: &Path) -> Result<Restored, StoreError> {
    let unreadable = |e: &dyn std::fmt::Display| refused(path, format!("cannot be read: {e}"));
    let txn = db.begin_read().map_err(|e| unreadable(&e))?;
    let not_ours = |e: &dyn std::fmt::Display| {
        refused(path, format!("is a redb database but not a certgate store: {e}"))
    };
    let meta = txn.open_table(META).map_err(|e| not_ours(&e))?;
    let table = txn.open_table(OBJECTS).map_err(|e| not_ours(&e))?;
    let format = match meta.get(FORMAT).map_err(|e| unreadable(&e))? {
        Some(format) => format.value(),
        None => LEGACY_FORMAT,
    };
    if format > CURRENT_FORMAT {
        return Err(StoreError::Storage(format!(
            "the store file {} was written by a newer certgate (store format {format}; this one reads formats {LEGACY_FORMAT} and {CURRENT_FORMAT}): use that certgate, or start with another data directory",
            path.display()
        )));
    }
    let mut revision = match meta.get(REVISION).map_err(|e| unreadable(&e))? {
        Some(stored) => stored.value(),
        None => 0,
    };
    let mut objects = BTreeMap::new();
    for entry in table.iter().map_err(|e| unreadable(&e))? {
        let (key, value) = entry.map_err(|e| unreadable(&e))?;
        let (group, resource, namespace, name) = key.value();
        let key = Key {
            group: group.to_owned(),
            resource: resource.to_owned(),
            namespace: namespace.to_owned(),
            name: name.to_owned(),
        };
        let (object_revision, bytes) = value.value();
        let json = if format == LEGACY_FORMAT {
            bytes
        } else {
            checksum::open(&key, object_revision, bytes).ok_or_else(|| {
                refused(
                    path,
                    format!(
                        "holds an altered value: the object {key} (resourceVersion {object_revision}) does not match the checksum it was written with"
                    ),
                )
            })?
        };
        let object: Value = serde_json::from_slice(json).map_err(|e| {
            refused(path, format!("holds an object {key} that is not valid JSON: {e}"))
        })?;
        // The counter is written in the same transaction as every object, so this only
        // matters for a database written by something else; never hand out a used revision.
        revision = revision.max(object_revision);
        objects.insert(key.clone(), Arc::new(Stored { key, object, revision: object_revision }));
    }
    drop((table, meta, txn));
    if format == LEGACY_FORMAT {
        migrate(db, path, &objects)?;
    }
    Ok(Restored { objects, revision })
}

/// Rewrites a format-1 store (values without checksums, written by certgate before they
/// existed) with checksums, in one transaction: after a crash during it the file is still
/// format 1 and the next start migrates it again. Damage done to such a file before the
/// migration cannot be detected (beyond invalid JSON), only damage after it.
fn migrate(
    db: &Database,
    path: &Path,
    objects: &BTreeMap<Key, Arc<Stored>>,
) -> Result<(), StoreError> {
    let failed = |e: &dyn std::fmt::Display| {
        StoreError::Storage(format!(
            "cannot add checksums to the store file {} (written by an older certgate): {e}; the file is unchanged",
            path.display()
        ))
    };
    let txn = db.begin_write().map_err(|e| failed(&e))?;
    {
        let mut table = txn.open_table(OBJECTS).map_err(|e| failed(&e))?;
        for (key, stored) in objects {
            let json = serde_json::to_vec(&stored.object).map_err(|e| failed(&e))?;
            let sealed = checksum::seal(key, stored.revision, &json);
            table
                .insert(parts(key), (stored.revision, sealed.as_slice()))
                .map_err(|e| failed(&e))?;
        }
        let mut meta = txn.open_table(META).map_err(|e| failed(&e))?;
        meta.insert(FORMAT, CURRENT_FORMAT).map_err(|e| failed(&e))?;
    }
    txn.commit().map_err(|e| failed(&e))
}
