//! Concurrent writers never share or skip a revision, and compare-and-swap serializes them.

mod common;

use std::collections::BTreeSet;
use std::sync::Arc;
use std::thread;

use certgate_store::StoreError;
use common::{key, memory, object};

const THREADS: usize = 4;
const WRITES: usize = 200;

#[test]
fn concurrent_writers_get_distinct_consecutive_revisions() {
    let store = Arc::new(memory());
    let handles: Vec<_> = (0..THREADS)
        .map(|thread| {
            let store = Arc::clone(&store);
            thread::spawn(move || {
                let mut revisions = Vec::new();
                for write in 0..WRITES {
                    let k = key("issuers", &thread.to_string(), &write.to_string());
                    revisions.push(store.create(k.clone(), object("x", "1")).unwrap().revision);
                    if write % 2 == 0 {
                        revisions.push(store.update(&k, None, object("x", "2")).unwrap().revision);
                    } else {
                        revisions.push(store.delete(&k, None).unwrap().revision);
                    }
                }
                revisions
            })
        })
        .collect();
    let mut all = BTreeSet::new();
    let mut count = 0;
    for handle in handles {
        let revisions = handle.join().unwrap();
        // Each thread sees its own writes in increasing revision order.
        assert!(revisions.windows(2).all(|pair| pair[0] < pair[1]));
        count += revisions.len();
        all.extend(revisions);
    }
    assert_eq!(all.len(), count, "a revision was handed out twice");
    let expected: BTreeSet<u64> = (1..=count as u64).collect();
    assert_eq!(all, expected);
    assert_eq!(store.revision(), count as u64);
}

#[test]
fn compare_and_swap_increments_lose_no_update() {
    let store = Arc::new(memory());
    let k = key("issuers", "a", "counter");
    store.create(k.clone(), serde_json::json!({"count": 0})).unwrap();
    let handles: Vec<_> = (0..THREADS)
        .map(|_| {
            let store = Arc::clone(&store);
            let k = k.clone();
            thread::spawn(move || {
                let mut done = 0;
                while done < 50 {
                    let current = store.get(&k).unwrap();
                    let count = current.object["count"].as_u64().unwrap();
                    match store.update(
                        &k,
                        Some(current.revision),
                        serde_json::json!({"count": count + 1}),
                    ) {
                        Ok(_) => done += 1,
                        Err(StoreError::Conflict { .. }) => {}
                        Err(other) => panic!("{other}"),
                    }
                }
            })
        })
        .collect();
    for handle in handles {
        handle.join().unwrap();
    }
    assert_eq!(store.get(&k).unwrap().object["count"], THREADS as u64 * 50);
}
