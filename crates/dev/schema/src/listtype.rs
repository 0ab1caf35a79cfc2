//! `x-kubernetes-list-type: set` and `map` uniqueness, which the API server checks after
//! the OpenAPI validation, with field paths of its own (`[i]` for items, `[key]` for map
//! values).

use std::collections::{BTreeMap, HashMap};

use serde_json::{Map, Value};

use certgate_api::field::{ErrorType, FieldError, Path};

use crate::check::bad_value;
use crate::node::{Additional, ListType, Node, is_type_meta_or_metadata};

pub(crate) fn root(node: &Node, value: &Value) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if let Value::Object(map) = value {
        object(node, map, None, true, &mut errors);
    }
    errors
}

fn walk(node: &Node, value: &Value, path: &Path, errors: &mut Vec<FieldError>) {
    match value {
        Value::Object(map) => object(node, map, Some(path), false, errors),
        Value::Array(items) => {
            match &node.list {
                ListType::Atomic => {}
                ListType::Set => duplicates(items.iter().cloned(), path, errors),
                ListType::Map(keys) => {
                    duplicates(items.iter().map(|item| key_of(item, keys)), path, errors)
                }
            }
            if let Some(item) = &node.items {
                for (i, value) in items.iter().enumerate() {
                    walk(item, value, &path.index(i), errors);
                }
            }
        }
        _ => {}
    }
}

fn object(
    node: &Node,
    map: &Map<String, Value>,
    path: Option<&Path>,
    is_root: bool,
    errors: &mut Vec<FieldError>,
) {
    for (key, value) in map {
        if (is_root || node.embedded) && is_type_meta_or_metadata(key) {
            continue;
        }
        if let Some(property) = node.properties.get(key) {
            let child = path.map_or_else(|| Path::new(key), |p| p.child(key));
            walk(property, value, &child, errors);
        } else if let Additional::Schema(additional) = &node.additional {
            let child = path.map_or_else(|| Path::new(key), |p| p.key(key));
            walk(additional, value, &child, errors);
        }
    }
}

/// A list-map item's identity: its key fields (JSON object, keys sorted as Go prints maps).
pub(crate) fn key_of(item: &Value, keys: &[String]) -> Value {
    let fields: BTreeMap<&str, &Value> =
        keys.iter().filter_map(|key| item.get(key.as_str()).map(|v| (key.as_str(), v))).collect();
    Value::Object(fields.into_iter().map(|(k, v)| (k.to_owned(), v.clone())).collect())
}

/// One Duplicate error per repeated identity, at its second occurrence.
fn duplicates(identities: impl Iterator<Item = Value>, path: &Path, errors: &mut Vec<FieldError>) {
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (i, identity) in identities.enumerate() {
        let count = seen.entry(identity.to_string()).or_insert(0);
        *count += 1;
        if *count == 2 {
            errors.push(FieldError {
                kind: ErrorType::Duplicate,
                path: path.index(i),
                value: Some(bad_value(&identity)),
                detail: String::new(),
            });
        }
    }
}
