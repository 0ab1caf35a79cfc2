//! Watches: replay from a revision, live changes in order, prefix filtering and expiry.

mod common;

use std::sync::Arc;
use std::time::Duration;

use certgate_store::{Change, Store, StoreError, StoreOptions};
use common::{key, memory, object, prefix, stamped};

fn with_history(watch_history: usize) -> Store {
    Store::open(StoreOptions { watch_history, ..StoreOptions::default() }).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replays_after_a_revision_then_follows_live_writes_in_order() {
    let store = Arc::new(memory());
    let k = key("issuers", "a", "x");
    store.create(k.clone(), object("x", "1")).unwrap();
    store.update(&k, Some(1), object("x", "2")).unwrap();
    store.create(key("issuers", "a", "y"), object("y", "1")).unwrap();

    let mut watch = store.watch(&prefix("issuers", Some("a")), 1).unwrap();
    let replayed = [watch.next().await.unwrap(), watch.next().await.unwrap()];
    assert!(
        matches!(&replayed[0], Change::Modified(s) if s.revision == 2 && s.object == stamped("x", "2", 2))
    );
    assert!(
        matches!(&replayed[1], Change::Added(s) if s.key == key("issuers", "a", "y") && s.revision == 3)
    );
    assert_eq!(watch.revision(), 3);

    let writer = Arc::clone(&store);
    let k2 = k.clone();
    let writes = tokio::spawn(async move {
        for value in 0..20 {
            writer.update(&k2, None, object("x", &value.to_string())).unwrap();
        }
        writer.delete(&k2, None).unwrap();
    });
    for revision in 4..=23 {
        let change = watch.next().await.unwrap();
        let value = (revision - 4).to_string();
        assert!(
            matches!(&change, Change::Modified(s) if s.revision == revision && s.object == stamped("x", &value, revision)),
            "{change:?}"
        );
    }
    let deleted = watch.next().await.unwrap();
    assert_eq!(
        deleted,
        Change::Deleted(certgate_store::Stored {
            key: k,
            object: stamped("x", "19", 24),
            revision: 24,
        })
    );
    writes.await.unwrap();
}

#[tokio::test]
async fn only_changes_under_the_prefix_are_delivered() {
    let store = memory();
    store.create(key("issuers", "b", "other-namespace"), object("o", "1")).unwrap();
    store.create(key("issuersx", "a", "other-resource"), object("o", "1")).unwrap();
    store.create(key("issuers", "a", "mine"), object("m", "1")).unwrap();
    store.create(key("certificaterequests", "a", "r"), object("r", "1")).unwrap();
    store.update(&key("issuers", "a", "mine"), None, object("m", "2")).unwrap();

    let mut namespaced = store.watch(&prefix("issuers", Some("a")), 0).unwrap();
    let first = namespaced.next().await.unwrap();
    let second = namespaced.next().await.unwrap();
    assert_eq!((first.revision(), second.revision()), (3, 5));
    assert!(matches!(first, Change::Added(_)));
    assert!(matches!(second, Change::Modified(_)));

    let mut every_namespace = store.watch(&prefix("issuers", None), 0).unwrap();
    let mut revisions = Vec::new();
    for _ in 0..3 {
        revisions.push(every_namespace.next().await.unwrap().revision());
    }
    assert_eq!(revisions, vec![1, 3, 5]);
}

#[tokio::test]
async fn from_the_current_revision_or_later_only_future_changes_arrive() {
    let store = memory();
    store.create(key("issuers", "a", "x"), object("x", "1")).unwrap();
    let mut current = store.watch(&prefix("issuers", None), 1).unwrap();
    let mut future = store.watch(&prefix("issuers", None), 1_000).unwrap();
    assert_eq!(future.revision(), 1);
    store.create(key("issuers", "a", "y"), object("y", "1")).unwrap();
    assert_eq!(current.next().await.unwrap().revision(), 2);
    assert_eq!(future.next().await.unwrap().revision(), 2);
}

#[tokio::test]
async fn a_pending_next_can_be_cancelled_without_losing_changes() {
    let store = memory();
    let mut watch = store.watch(&prefix("issuers", None), 0).unwrap();
    let waited = tokio::time::timeout(Duration::from_millis(20), watch.next()).await;
    assert!(waited.is_err(), "nothing was written yet: {waited:?}");
    store.create(key("issuers", "a", "x"), object("x", "1")).unwrap();
    assert_eq!(watch.next().await.unwrap().revision(), 1);
}

#[test]
fn a_revision_older_than_the_history_is_expired() {
    let store = with_history(3);
    for name in ["a", "b", "c", "d", "e"] {
        store.create(key("issuers", "a", name), object(name, "1")).unwrap();
    }
    // Changes 3, 4 and 5 are kept: watching after 2 still sees all of them, after 1 not.
    let error = store.watch(&prefix("issuers", None), 1).err().unwrap();
    assert!(matches!(error, StoreError::Expired { requested: 1, oldest: 2 }), "{error}");
    assert_eq!(
        error.to_string(),
        "revision 1 is older than the oldest revision a watch can resume from (2); list again and watch from the list's revision"
    );
    assert!(store.watch(&prefix("issuers", None), 2).is_ok());
    assert!(store.watch(&prefix("issuers", None), 0).is_err());
}

#[tokio::test]
async fn a_watcher_falling_behind_the_history_is_expired_and_writers_never_wait() {
    let store = with_history(2);
    let mut slow = store.watch(&prefix("issuers", None), 0).unwrap();
    for name in ["a", "b", "c", "d", "e"] {
        store.create(key("issuers", "a", name), object(name, "1")).unwrap();
    }
    let error = slow.next().await.unwrap_err();
    assert!(matches!(error, StoreError::Expired { requested: 0, oldest: 3 }), "{error}");
    // It stays expired: a caller must list and watch again.
    assert!(slow.next().await.is_err());
}

#[tokio::test]
async fn a_watcher_that_keeps_up_never_expires_even_with_a_history_of_one() {
    let store = with_history(0);
    let mut watch = store.watch(&prefix("issuers", None), 0).unwrap();
    for revision in 1..=5 {
        store.create(key("issuers", "a", &revision.to_string()), object("x", "1")).unwrap();
        assert_eq!(watch.next().await.unwrap().revision(), revision);
    }
}

#[tokio::test]
async fn kept_changes_outside_the_prefix_are_skipped_without_expiring() {
    let store = with_history(2);
    let mut watch = store.watch(&prefix("issuers", Some("a")), 0).unwrap();
    store.create(key("issuers", "b", "x"), object("x", "1")).unwrap();
    store.create(key("issuers", "a", "y"), object("y", "1")).unwrap();
    // Both changes are still kept: the unrelated one is skipped, the matching one delivered.
    assert_eq!(watch.next().await.unwrap().revision(), 2);
}

/// A modification carries the object it replaced (for selector watches at the selection's
/// edge); additions and deletions carry none, and the history's bound still holds.
#[tokio::test]
async fn modifications_carry_the_object_they_replaced() {
    let store = with_history(2);
    let k = key("issuers", "a", "x");
    store.create(k.clone(), object("x", "1")).unwrap();
    store.update(&k, None, object("x", "2")).unwrap();
    store.update(&k, None, object("x", "3")).unwrap();
    store.delete(&k, None).unwrap();

    let mut watch = store.watch(&prefix("issuers", None), 2).unwrap();
    let modified = watch.next_event().await.unwrap();
    assert!(matches!(&modified.change, Change::Modified(s) if s.revision == 3));
    let previous = modified.previous.expect("the replaced object");
    assert_eq!(previous.revision, 2);
    assert_eq!(previous.object, stamped("x", "2", 2));
    let deleted = watch.next_event().await.unwrap();
    assert!(matches!(&deleted.change, Change::Deleted(s) if s.revision == 4));
    assert_eq!(deleted.previous, None);

    // Only two changes are kept: resuming from before them is refused, as before.
    assert!(matches!(store.watch(&prefix("issuers", None), 1), Err(StoreError::Expired { .. })));
    let from_start = with_history(10);
    from_start.create(k.clone(), object("x", "1")).unwrap();
    let added = from_start.watch(&prefix("issuers", None), 0).unwrap().next_event().await.unwrap();
    assert!(matches!(&added.change, Change::Added(_)));
    assert_eq!(added.previous, None);
}
