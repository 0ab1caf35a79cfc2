//! Creates per second (in memory and durable) and watch fan-out to 10 watchers.

use std::sync::Arc;

use certgate_store::{Key, Prefix, Store, StoreOptions};
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use tokio::sync::mpsc;

const WATCHERS: usize = 10;

fn key(index: u64) -> Key {
    Key {
        group: String::new(),
        resource: "configmaps".to_owned(),
        namespace: "bench".to_owned(),
        name: format!("object-{index}"),
    }
}

fn object(index: u64) -> serde_json::Value {
    json!({"metadata": {"name": format!("object-{index}"), "namespace": "bench"}, "data": {"k": "v"}})
}

fn creates(c: &mut Criterion) {
    let memory = Store::open(StoreOptions::default()).expect("in-memory store");
    let mut index = 0;
    c.bench_function("create/in-memory", |b| {
        b.iter(|| {
            index += 1;
            memory.create(key(index), object(index)).expect("create")
        });
    });

    let dir = tempfile::tempdir().expect("temporary directory");
    let durable = Store::open(StoreOptions {
        data_dir: Some(dir.path().to_owned()),
        ..StoreOptions::default()
    })
    .expect("durable store");
    let mut index = 0;
    c.bench_function("create/durable", |b| {
        b.iter(|| {
            index += 1;
            durable.create(key(index), object(index)).expect("create")
        });
    });
}

/// Time from one write until each of 10 watchers, each on its own task, has received it.
fn fan_out(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread().build().expect("runtime");
    let store = Arc::new(Store::open(StoreOptions::default()).expect("in-memory store"));
    let prefix =
        Prefix { group: String::new(), resource: "configmaps".to_owned(), namespace: None };
    let (seen, mut acks) = mpsc::unbounded_channel();
    for _ in 0..WATCHERS {
        let mut watch = store.watch(&prefix, 0).expect("watch");
        let seen = seen.clone();
        runtime.spawn(async move {
            while watch.next().await.is_ok() {
                if seen.send(()).is_err() {
                    break;
                }
            }
        });
    }
    let mut index = 0;
    c.bench_function("watch/fan-out-10", |b| {
        b.iter(|| {
            index += 1;
            store.create(key(index), object(index)).expect("create");
            runtime.block_on(async {
                for _ in 0..WATCHERS {
                    acks.recv().await.expect("watcher alive");
                }
            });
        });
    });
}

criterion_group!(benches, creates, fan_out);
criterion_main!(benches);
