//! What the API server does to a custom resource before validating it: defaults for absent
//! (or null, when not nullable) properties, non-nullable nulls without a default dropped,
//! unknown fields pruned. Recursion follows the compiled schema, so its depth is bounded by
//! [`crate::MAX_DEPTH`] whatever the object's depth.
//!
//! The paths of the pruned fields are reported as the API server reports them under
//! `fieldValidation=Strict|Warn` (`spec.items[0].x`, map values as `spec.labels[k]`), sorted
//! as Go's `sort.Strings` sorts them (by bytes).

use certgate_api::field::Path;
use serde_json::Value;

use crate::node::{Additional, Node, is_type_meta_or_metadata};

/// Normalizes `value` and returns the paths of the unknown fields it pruned, sorted.
pub(crate) fn root(node: &Node, value: &mut Value) -> Vec<String> {
    let mut pruned = Vec::new();
    walk(node, value, None, &mut pruned);
    pruned.sort();
    pruned
}

/// `path` is `None` at the root, whose fields have no leading dot.
fn walk(node: &Node, value: &mut Value, path: Option<&Path>, pruned: &mut Vec<String>) {
    let child_path = |key: &str| match path {
        None => Path::new(key),
        Some(path) => path.child(key),
    };
    match value {
        Value::Object(map) => {
            // Root and embedded objects carry apiVersion/kind/metadata, which the API
            // server keeps and checks itself.
            let keeps_meta = path.is_none() || node.embedded;
            for (name, property) in &node.properties {
                if keeps_meta && is_type_meta_or_metadata(name) {
                    continue;
                }
                let Some(default) = &property.default else { continue };
                match map.get(name) {
                    None => {
                        map.insert(name.clone(), default.clone());
                    }
                    Some(Value::Null) if !property.nullable => {
                        map.insert(name.clone(), default.clone());
                    }
                    Some(_) => {}
                }
            }
            let keeps_unknown = node.preserve_unknown || matches!(node.additional, Additional::Any);
            map.retain(|key, value| {
                if keeps_meta && is_type_meta_or_metadata(key) {
                    return true;
                }
                match node.child(key) {
                    Some(child) => child.nullable || !value.is_null(),
                    None if keeps_unknown => true,
                    None => {
                        pruned.push(child_path(key).as_str().to_owned());
                        false
                    }
                }
            });
            for (key, value) in map.iter_mut() {
                if keeps_meta && is_type_meta_or_metadata(key) {
                    continue;
                }
                let Some(child) = node.child(key) else { continue };
                let at = if node.properties.contains_key(key) {
                    child_path(key)
                } else {
                    // A value of `additionalProperties`: a map entry, not a field.
                    match path {
                        None => Path::new(key),
                        Some(path) => path.key(key),
                    }
                };
                walk(child, value, Some(&at), pruned);
            }
        }
        Value::Array(items) => {
            let Some(item) = &node.items else { return };
            let Some(path) = path else { return };
            for (index, value) in items.iter_mut().enumerate() {
                if let (Value::Null, Some(default), false) = (&value, &item.default, item.nullable)
                {
                    *value = default.clone();
                }
                walk(item, value, Some(&path.index(index)), pruned);
            }
        }
        _ => {}
    }
}
