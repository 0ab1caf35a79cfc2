//! Durable storage: everything written survives dropping and reopening the store.

mod common;

use std::path::Path;

use certgate_store::{Prefix, Store, StoreError, StoreOptions, Stored};
use common::{key, object, prefix};

fn open(dir: &Path) -> Store {
    Store::open(StoreOptions { data_dir: Some(dir.to_owned()), ..StoreOptions::default() }).unwrap()
}

fn everything(store: &Store) -> Vec<Stored> {
    let mut all = Vec::new();
    for resource in ["issuers", "certificaterequests"] {
        all.extend(store.list(&prefix(resource, None), None, None).items);
    }
    all
}

#[test]
fn objects_and_revisions_survive_a_restart_and_the_next_write_is_last_plus_one() {
    let dir = tempfile::tempdir().unwrap();
    let before = {
        let store = open(dir.path());
        let k = key("issuers", "a", "x");
        store.create(k.clone(), object("x", "1")).unwrap();
        store.update(&k, Some(1), object("x", "2")).unwrap();
        store.create(key("issuers", "b", "y"), object("y", "1")).unwrap();
        store.create(key("certificaterequests", "a", "gone"), object("g", "1")).unwrap();
        store.create(key("certificaterequests", "", "global"), object("c", "1")).unwrap();
        // The last write is a deletion: its revision must survive although no object has it.
        store.delete(&key("certificaterequests", "a", "gone"), None).unwrap();
        assert_eq!(store.revision(), 6);
        everything(&store)
    };
    assert_eq!(before.len(), 3);

    let store = open(dir.path());
    assert_eq!(store.revision(), 6);
    assert_eq!(everything(&store), before);
    assert_eq!(store.get(&key("certificaterequests", "a", "gone")), None);
    let next = store.create(key("issuers", "a", "z"), object("z", "1")).unwrap();
    assert_eq!(next.revision, 7);
    assert!(matches!(
        store.update(&key("issuers", "a", "x"), Some(1), object("x", "3")),
        Err(StoreError::Conflict { expected: 1, actual: 2, .. })
    ));
}

#[test]
fn the_data_directory_is_created_when_missing() {
    let dir = tempfile::tempdir().unwrap();
    let nested = dir.path().join("one").join("two");
    let store = open(&nested);
    store.create(key("issuers", "a", "x"), object("x", "1")).unwrap();
    drop(store);
    assert_eq!(open(&nested).get(&key("issuers", "a", "x")).map(|s| s.revision), Some(1));
}

#[test]
fn names_that_look_like_separators_stay_distinct() {
    let dir = tempfile::tempdir().unwrap();
    let tricky = [("a/b", "c"), ("a", "b/c"), ("a\0b", "c"), ("", "a/b/c")];
    {
        let store = open(dir.path());
        for (namespace, name) in tricky {
            store.create(key("issuers", namespace, name), object(name, namespace)).unwrap();
        }
    }
    let store = open(dir.path());
    for (namespace, name) in tricky {
        let stored = store.get(&key("issuers", namespace, name)).unwrap();
        assert_eq!(stored.object["spec"]["value"], namespace);
    }
    let all = Prefix { namespace: None, ..prefix("issuers", None) };
    assert_eq!(store.list(&all, None, None).items.len(), tricky.len());
}

#[tokio::test]
async fn watch_history_is_not_persisted() {
    let dir = tempfile::tempdir().unwrap();
    {
        let store = open(dir.path());
        store.create(key("issuers", "a", "x"), object("x", "1")).unwrap();
        store.create(key("issuers", "a", "y"), object("y", "1")).unwrap();
    }
    let store = open(dir.path());
    let error = store.watch(&prefix("issuers", None), 1).err().unwrap();
    assert!(matches!(error, StoreError::Expired { requested: 1, oldest: 2 }), "{error}");
    let mut watch = store.watch(&prefix("issuers", None), 2).unwrap();
    store.delete(&key("issuers", "a", "x"), None).unwrap();
    assert_eq!(watch.next().await.unwrap().revision(), 3);
}

#[test]
fn a_second_open_of_the_same_directory_is_a_storage_error() {
    let dir = tempfile::tempdir().unwrap();
    let _first = open(dir.path());
    let error = Store::open(StoreOptions {
        data_dir: Some(dir.path().to_owned()),
        ..StoreOptions::default()
    })
    .err()
    .unwrap();
    assert_eq!(
        error.to_string(),
        format!(
            "storage failed: the store file {} is in use by another process (is another `certgate dev` running with the same data directory?)",
            dir.path().join("store.redb").display()
        )
    );
}

#[test]
fn a_data_directory_that_is_a_file_is_a_storage_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("file");
    std::fs::write(&file, b"not a directory").unwrap();
    let error =
        Store::open(StoreOptions { data_dir: Some(file.clone()), ..StoreOptions::default() })
            .err()
            .unwrap();
    assert_eq!(
        error.to_string(),
        format!(
            "storage failed: cannot use the data directory: {} exists and is not a directory; choose another path",
            file.display()
        )
    );
}
