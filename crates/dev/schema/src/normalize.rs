//! What the API server does to a custom resource before validating it: defaults for absent
//! (or null, when not nullable) properties, non-nullable nulls without a default dropped,
//! unknown fields pruned. Recursion follows the compiled schema, so its depth is bounded by
//! [`crate::MAX_DEPTH`] whatever the object's depth.

use serde_json::Value;

use crate::node::{Additional, Node, is_type_meta_or_metadata};

pub(crate) fn root(node: &Node, value: &mut Value) {
    walk(node, value, true);
}

fn walk(node: &Node, value: &mut Value, is_root: bool) {
    match value {
        Value::Object(map) => {
            // Root and embedded objects carry apiVersion/kind/metadata, which the API
            // server keeps and checks itself.
            let keeps_meta = is_root || node.embedded;
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
            map.retain(|key, value| {
                if keeps_meta && is_type_meta_or_metadata(key) {
                    return true;
                }
                match node.child(key) {
                    Some(child) => child.nullable || !value.is_null(),
                    None => node.preserve_unknown || matches!(node.additional, Additional::Any),
                }
            });
            for (key, value) in map.iter_mut() {
                if keeps_meta && is_type_meta_or_metadata(key) {
                    continue;
                }
                if let Some(child) = node.child(key) {
                    walk(child, value, false);
                }
            }
        }
        Value::Array(items) => {
            let Some(item) = &node.items else { return };
            for value in items.iter_mut() {
                if let (Value::Null, Some(default), false) = (&value, &item.default, item.nullable)
                {
                    *value = default.clone();
                }
                walk(item, value, false);
            }
        }
        _ => {}
    }
}
