//! Durable persistence in a redb database: the objects and the revision counter.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition};
use serde_json::Value;

use crate::api::{Key, StoreError};

/// Objects by (group, resource, namespace, name). redb encodes tuples with each part's
/// length, so no name can be confused with another split of the same characters.
const OBJECTS: TableDefinition<KeyParts, (u64, &[u8])> = TableDefinition::new("objects");
/// group, resource, namespace, name.
type KeyParts<'a> = (&'a str, &'a str, &'a str, &'a str);
/// The revision counter, stored so that restarts never reuse a revision, even one whose
/// object was deleted since.
const META: TableDefinition<&str, u64> = TableDefinition::new("meta");
const REVISION: &str = "revision";
const FILE_NAME: &str = "store.redb";

/// One write, applied together with the new revision counter in a single transaction.
pub(crate) enum Write<'a> {
    Put(&'a Key, &'a Value),
    Remove(&'a Key),
}

/// What [`Disk::open`] restored.
pub(crate) struct Restored {
    pub(crate) objects: BTreeMap<Key, (u64, Value)>,
    pub(crate) revision: u64,
}

pub(crate) struct Disk {
    db: Database,
}

fn storage(what: &str, dir: &Path, error: impl std::fmt::Display) -> StoreError {
    StoreError::Storage(format!("{what} in {}: {error}", dir.display()))
}

impl Disk {
    /// Opens (creating if needed) the database in `dir` and reads everything back.
    pub(crate) fn open(dir: &Path) -> Result<(Disk, Restored), StoreError> {
        fs::create_dir_all(dir).map_err(|e| storage("cannot create the data directory", dir, e))?;
        let db = Database::create(dir.join(FILE_NAME))
            .map_err(|e| storage("cannot open the database", dir, e))?;
        let restored = restore(&db).map_err(|e| match e {
            StoreError::Storage(message) => storage("cannot read the database", dir, message),
            other => other,
        })?;
        Ok((Disk { db }, restored))
    }

    /// Commits `write` and `revision` durably (redb's default, immediate durability) before
    /// returning; on error nothing of it is visible after a restart.
    pub(crate) fn commit(&self, write: Write<'_>, revision: u64) -> Result<(), StoreError> {
        let failed = |e: &dyn std::fmt::Display| {
            StoreError::Storage(format!(
                "cannot commit revision {revision}: {e}; the write was not applied"
            ))
        };
        let txn = self.db.begin_write().map_err(|e| failed(&e))?;
        {
            let mut objects = txn.open_table(OBJECTS).map_err(|e| failed(&e))?;
            match write {
                Write::Put(key, object) => {
                    let bytes = serde_json::to_vec(object).map_err(|e| failed(&e))?;
                    objects
                        .insert(parts(key), (revision, bytes.as_slice()))
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
    }
}

fn parts(key: &Key) -> KeyParts<'_> {
    (&key.group, &key.resource, &key.namespace, &key.name)
}

fn restore(db: &Database) -> Result<Restored, StoreError> {
    let io = |e: &dyn std::fmt::Display| StoreError::Storage(e.to_string());
    // Creating the tables up front lets a fresh database be read like an old one.
    let txn = db.begin_write().map_err(|e| io(&e))?;
    txn.open_table(OBJECTS).map_err(|e| io(&e))?;
    txn.open_table(META).map_err(|e| io(&e))?;
    txn.commit().map_err(|e| io(&e))?;

    let txn = db.begin_read().map_err(|e| io(&e))?;
    let meta = txn.open_table(META).map_err(|e| io(&e))?;
    let mut revision = match meta.get(REVISION).map_err(|e| io(&e))? {
        Some(stored) => stored.value(),
        None => 0,
    };
    let table = txn.open_table(OBJECTS).map_err(|e| io(&e))?;
    let mut objects = BTreeMap::new();
    for entry in table.iter().map_err(|e| io(&e))? {
        let (key, value) = entry.map_err(|e| io(&e))?;
        let (group, resource, namespace, name) = key.value();
        let key = Key {
            group: group.to_owned(),
            resource: resource.to_owned(),
            namespace: namespace.to_owned(),
            name: name.to_owned(),
        };
        let (object_revision, bytes) = value.value();
        let object: Value = serde_json::from_slice(bytes).map_err(|e| {
            StoreError::Storage(format!("the object at {key:?} is not valid JSON: {e}"))
        })?;
        // The counter is written in the same transaction as every object, so this only
        // matters for a database written by something else; never hand out a used revision.
        revision = revision.max(object_revision);
        objects.insert(key, (object_revision, object));
    }
    Ok(Restored { objects, revision })
}
