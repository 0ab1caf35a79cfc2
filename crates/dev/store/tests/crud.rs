//! Create, read, update, delete and modify: revisions, compare-and-swap and errors.

mod common;

use certgate_store::{Modification, ModifyError, Store, StoreError, StoreOptions};
use common::{key, memory, object, stamped};
use serde_json::json;

#[test]
fn a_new_store_is_at_revision_zero_and_empty() {
    let store = memory();
    assert_eq!(store.revision(), 0);
    assert_eq!(store.get(&key("issuers", "a", "x")), None);
}

#[test]
fn create_assigns_the_next_revision_and_stamps_it() {
    let store = memory();
    let first = store.create(key("issuers", "a", "x"), object("x", "1")).unwrap();
    let second = store.create(key("issuers", "a", "y"), object("y", "1")).unwrap();
    assert_eq!((first.revision, second.revision), (1, 2));
    assert_eq!(first.object, stamped("x", "1", 1));
    assert_eq!(store.revision(), 2);
    assert_eq!(store.get(&key("issuers", "a", "x")), Some(first));
}

#[test]
fn create_creates_metadata_when_absent() {
    let store = memory();
    let stored = store.create(key("issuers", "a", "x"), json!({"spec": {}})).unwrap();
    assert_eq!(stored.object, json!({"spec": {}, "metadata": {"resourceVersion": "1"}}));
}

#[test]
fn create_of_an_existing_key_is_already_exists_and_uses_no_revision() {
    let store = memory();
    store.create(key("issuers", "a", "x"), object("x", "1")).unwrap();
    let error = store.create(key("issuers", "a", "x"), object("x", "2")).unwrap_err();
    assert!(matches!(&error, StoreError::AlreadyExists(k) if **k == key("issuers", "a", "x")));
    assert_eq!(store.revision(), 1);
    assert_eq!(store.get(&key("issuers", "a", "x")).unwrap().object, stamped("x", "1", 1));
}

#[test]
fn values_that_cannot_carry_a_resource_version_are_refused() {
    let store = memory();
    let error = store.create(key("issuers", "a", "x"), json!("text")).unwrap_err();
    assert_eq!(
        error.to_string(),
        r#"cannot store the value at Key { group: "cert-manager.io", resource: "issuers", namespace: "a", name: "x" }: the value is not a JSON object"#
    );
    assert_eq!(store.revision(), 0);
    assert_eq!(store.get(&key("issuers", "a", "x")), None);
}

#[test]
fn update_with_the_stored_revision_or_none_succeeds() {
    let store = memory();
    let k = key("issuers", "a", "x");
    store.create(k.clone(), object("x", "1")).unwrap();
    let updated = store.update(&k, Some(1), object("x", "2")).unwrap();
    assert_eq!(updated.revision, 2);
    assert_eq!(updated.object, stamped("x", "2", 2));
    let unconditional = store.update(&k, None, object("x", "3")).unwrap();
    assert_eq!(unconditional.revision, 3);
    assert_eq!(store.get(&k), Some(unconditional));
}

#[test]
fn update_with_a_stale_revision_is_a_conflict() {
    let store = memory();
    let k = key("issuers", "a", "x");
    store.create(k.clone(), object("x", "1")).unwrap();
    store.update(&k, Some(1), object("x", "2")).unwrap();
    let error = store.update(&k, Some(1), object("x", "3")).unwrap_err();
    assert!(matches!(error, StoreError::Conflict { expected: 1, actual: 2, .. }), "{error}");
    assert_eq!(
        error.to_string(),
        r#"revision conflict at Key { group: "cert-manager.io", resource: "issuers", namespace: "a", name: "x" }: expected 1, stored 2"#
    );
    assert_eq!(store.get(&k).unwrap().object, stamped("x", "2", 2));
    assert_eq!(store.revision(), 2);
}

#[test]
fn update_and_delete_of_a_missing_key_are_not_found() {
    let store = memory();
    let k = key("issuers", "a", "x");
    assert!(matches!(store.update(&k, None, object("x", "1")), Err(StoreError::NotFound(_))));
    assert!(matches!(store.delete(&k, None), Err(StoreError::NotFound(_))));
    assert_eq!(store.revision(), 0);
}

#[test]
fn delete_returns_the_object_stamped_with_the_deletion_revision() {
    let store = memory();
    let k = key("issuers", "a", "x");
    store.create(k.clone(), object("x", "1")).unwrap();
    let error = store.delete(&k, Some(7)).unwrap_err();
    assert!(matches!(error, StoreError::Conflict { expected: 7, actual: 1, .. }));
    let deleted = store.delete(&k, Some(1)).unwrap();
    assert_eq!(deleted.revision, 2);
    assert_eq!(deleted.object, stamped("x", "1", 2));
    assert_eq!(store.get(&k), None);
    // A recreated object takes a new revision; deleted revisions are never reused.
    assert_eq!(store.create(k, object("x", "again")).unwrap().revision, 3);
}

#[test]
fn modify_replace_writes_the_callbacks_object() {
    let store = memory();
    let k = key("issuers", "a", "x");
    store.create(k.clone(), object("x", "1")).unwrap();
    let replaced = store
        .modify(&k, |current| {
            let mut next = current.object.clone();
            next["spec"]["value"] = json!("patched");
            Ok::<_, String>(Modification::Replace(next))
        })
        .unwrap()
        .unwrap();
    assert_eq!(replaced.revision, 2);
    assert_eq!(replaced.object, stamped("x", "patched", 2));
    assert_eq!(store.get(&k), Some(replaced));
}

#[test]
fn modify_delete_returns_the_deleted_object() {
    let store = memory();
    let k = key("issuers", "a", "x");
    store.create(k.clone(), object("x", "1")).unwrap();
    let deleted = store.modify(&k, |_| Ok::<_, String>(Modification::Delete)).unwrap().unwrap();
    assert_eq!((deleted.revision, deleted.object), (2, stamped("x", "1", 2)));
    assert_eq!(store.get(&k), None);
}

#[test]
fn modify_keep_uses_no_revision() {
    let store = memory();
    let k = key("issuers", "a", "x");
    store.create(k.clone(), object("x", "1")).unwrap();
    let mut seen = None;
    let kept = store
        .modify(&k, |current| {
            seen = Some(current.clone());
            Ok::<_, String>(Modification::Keep)
        })
        .unwrap();
    assert_eq!(kept, None);
    assert_eq!(seen, store.get(&k));
    assert_eq!(store.revision(), 1);
}

#[test]
fn modify_rejected_passes_the_callers_error_through_and_writes_nothing() {
    let store = memory();
    let k = key("issuers", "a", "x");
    store.create(k.clone(), object("x", "1")).unwrap();
    let error =
        store.modify(&k, |_| Err::<Modification, _>("spec is immutable".to_owned())).unwrap_err();
    assert!(matches!(&error, ModifyError::Rejected(message) if message == "spec is immutable"));
    assert_eq!(error.to_string(), "spec is immutable");
    assert_eq!(store.revision(), 1);
}

#[test]
fn modify_of_a_missing_key_is_not_found_without_calling_back() {
    let store = memory();
    let error = store
        .modify(&key("issuers", "a", "x"), |_| -> Result<Modification, String> {
            panic!("called back for a missing key")
        })
        .unwrap_err();
    assert!(matches!(error, ModifyError::Store(StoreError::NotFound(_))));
}

#[test]
fn default_options_are_in_memory_with_ten_thousand_changes_of_history() {
    let options = StoreOptions::default();
    assert_eq!(options.data_dir, None);
    assert_eq!(options.watch_history, 10_000);
    assert!(Store::open(options).is_ok());
}
