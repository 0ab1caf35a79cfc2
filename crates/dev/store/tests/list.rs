//! Listing by prefix, per namespace and across namespaces, with pagination.

mod common;

use certgate_store::{Key, Store};
use common::{key, memory, object, prefix};

/// Certificate requests in namespaces `a` and `b`, issuers in `a`, and one cluster-scoped
/// object of the same resource (namespace `""`).
fn populated() -> Store {
    let store = memory();
    for (resource, namespace, name) in [
        ("certificaterequests", "b", "r1"),
        ("certificaterequests", "a", "r2"),
        ("issuers", "a", "i1"),
        ("certificaterequests", "a", "r1"),
        ("certificaterequests", "", "global"),
        ("certificaterequests", "a", "r3"),
        ("certificaterequestsx", "a", "r0"),
    ] {
        store.create(key(resource, namespace, name), object(name, "v")).unwrap();
    }
    store
}

fn keys(items: &[certgate_store::Stored]) -> Vec<Key> {
    items.iter().map(|stored| stored.key.clone()).collect()
}

#[test]
fn one_namespace_in_key_order() {
    let store = populated();
    let listed = store.list(&prefix("certificaterequests", Some("a")), None, None);
    assert_eq!(
        keys(&listed.items),
        vec![
            key("certificaterequests", "a", "r1"),
            key("certificaterequests", "a", "r2"),
            key("certificaterequests", "a", "r3"),
        ]
    );
    assert_eq!(listed.revision, 7);
    assert!(!listed.more);
}

#[test]
fn all_namespaces_include_cluster_scoped_and_no_other_resource() {
    let store = populated();
    let listed = store.list(&prefix("certificaterequests", None), None, Some(0));
    assert_eq!(
        keys(&listed.items),
        vec![
            key("certificaterequests", "", "global"),
            key("certificaterequests", "a", "r1"),
            key("certificaterequests", "a", "r2"),
            key("certificaterequests", "a", "r3"),
            key("certificaterequests", "b", "r1"),
        ]
    );
    assert!(!listed.more);
}

#[test]
fn items_carry_their_own_revision() {
    let store = populated();
    let listed = store.list(&prefix("issuers", Some("a")), None, None);
    assert_eq!(listed.items.len(), 1);
    assert_eq!(listed.items.first().map(|s| s.revision), Some(3));
    assert_eq!(
        listed.items.first().map(|s| s.object["metadata"]["resourceVersion"].clone()),
        Some("3".into())
    );
}

#[test]
fn pages_with_after_and_limit_cover_everything_once() {
    let store = populated();
    let all = prefix("certificaterequests", None);
    let mut pages = Vec::new();
    let mut after: Option<Key> = None;
    loop {
        let page = store.list(&all, after.as_ref(), Some(2));
        assert!(page.items.len() <= 2);
        after = page.items.last().map(|stored| stored.key.clone());
        let more = page.more;
        pages.push(keys(&page.items));
        if !more {
            break;
        }
    }
    assert_eq!(
        pages,
        vec![
            vec![key("certificaterequests", "", "global"), key("certificaterequests", "a", "r1")],
            vec![key("certificaterequests", "a", "r2"), key("certificaterequests", "a", "r3")],
            vec![key("certificaterequests", "b", "r1")],
        ]
    );
}

#[test]
fn an_exact_last_page_says_no_more() {
    let store = populated();
    let page = store.list(&prefix("certificaterequests", Some("a")), None, Some(3));
    assert_eq!(page.items.len(), 3);
    assert!(!page.more);
    let page = store.list(&prefix("certificaterequests", Some("a")), None, Some(2));
    assert!(page.more);
}

#[test]
fn after_outside_the_prefix_starts_at_its_beginning_or_yields_nothing() {
    let store = populated();
    let before = key("aaa", "", "");
    let listed = store.list(&prefix("issuers", None), Some(&before), None);
    assert_eq!(keys(&listed.items), vec![key("issuers", "a", "i1")]);
    let beyond = key("zzz", "", "");
    assert!(store.list(&prefix("issuers", None), Some(&beyond), None).items.is_empty());
}

#[test]
fn after_a_deleted_key_continues_from_its_position() {
    let store = populated();
    store.delete(&key("certificaterequests", "a", "r2"), None).unwrap();
    let listed = store.list(
        &prefix("certificaterequests", Some("a")),
        Some(&key("certificaterequests", "a", "r2")),
        None,
    );
    assert_eq!(keys(&listed.items), vec![key("certificaterequests", "a", "r3")]);
    assert_eq!(listed.revision, 8);
}
