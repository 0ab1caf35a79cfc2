//! Keys and objects shared by the integration tests.

#![allow(dead_code)] // Each test binary uses a different subset.

use certgate_store::{Key, Prefix, Store, StoreOptions};
use serde_json::{Value, json};

pub fn key(resource: &str, namespace: &str, name: &str) -> Key {
    Key {
        group: "cert-manager.io".to_owned(),
        resource: resource.to_owned(),
        namespace: namespace.to_owned(),
        name: name.to_owned(),
    }
}

pub fn prefix(resource: &str, namespace: Option<&str>) -> Prefix {
    Prefix {
        group: "cert-manager.io".to_owned(),
        resource: resource.to_owned(),
        namespace: namespace.map(str::to_owned),
    }
}

pub fn object(name: &str, value: &str) -> Value {
    json!({"metadata": {"name": name}, "spec": {"value": value}})
}

/// `object(name, value)` as the store returns it at `revision`.
pub fn stamped(name: &str, value: &str, revision: u64) -> Value {
    json!({"metadata": {"name": name, "resourceVersion": revision.to_string()}, "spec": {"value": value}})
}

pub fn memory() -> Store {
    Store::open(StoreOptions::default()).expect("an in-memory store opens")
}
