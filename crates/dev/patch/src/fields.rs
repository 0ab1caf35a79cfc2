//! Field sets for server-side apply and their `FieldsV1` (`f:` notation) encoding.
//!
//! A field set holds leaf paths: scalars, lists (atomic here, see `docs/patch.md`) and
//! empty maps. Intermediate maps are implied by their children, as in upstream's
//! encoding where `f:spec: {f:replicas: {}}` owns only `.spec.replicas`.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use crate::body::MAX_DEPTH;

pub(crate) type FieldPath = Vec<String>;
pub(crate) type FieldSet = BTreeSet<FieldPath>;

/// Fields the server sets or identifies the object by; upstream never records an owner
/// for them.
fn is_unowned(path: &[String]) -> bool {
    match path {
        [field] => field == "apiVersion" || field == "kind",
        [meta, field] if meta == "metadata" => matches!(
            field.as_str(),
            "name"
                | "namespace"
                | "uid"
                | "resourceVersion"
                | "generation"
                | "creationTimestamp"
                | "deletionTimestamp"
                | "deletionGracePeriodSeconds"
                | "selfLink"
                | "managedFields"
        ),
        _ => false,
    }
}

/// The fields an applied configuration sets (`null` sets nothing).
pub(crate) fn applied_fields(applied: &Map<String, Value>) -> FieldSet {
    let mut out = FieldSet::new();
    let mut prefix = Vec::new();
    collect_map(applied, &mut prefix, &mut out);
    out
}

fn collect_map(map: &Map<String, Value>, prefix: &mut FieldPath, out: &mut FieldSet) {
    for (key, value) in map {
        prefix.push(key.clone());
        if !is_unowned(prefix) {
            match value {
                Value::Null => {}
                Value::Object(child) if !child.is_empty() => collect_map(child, prefix, out),
                _ => {
                    out.insert(prefix.clone());
                }
            }
        }
        prefix.pop();
    }
}

/// Encodes a field set as a `fieldsV1` object.
pub(crate) fn to_fields_v1(set: &FieldSet) -> Value {
    let mut root = Map::new();
    for path in set {
        let mut node = &mut root;
        for segment in path {
            let child =
                node.entry(format!("f:{segment}")).or_insert_with(|| Value::Object(Map::new()));
            let Value::Object(child) = child else {
                break;
            };
            node = child;
        }
    }
    Value::Object(root)
}

/// Decodes a `fieldsV1` object. List-item keys (`k:`, `v:`, `i:`) collapse into the list
/// itself, because lists are owned atomically here; `.` (the node itself) adds nothing
/// beyond its `f:` children, or makes the node a leaf when it has none.
pub(crate) fn from_fields_v1(value: &Value) -> FieldSet {
    let mut out = FieldSet::new();
    let mut prefix = Vec::new();
    if let Value::Object(map) = value {
        decode_node(map, &mut prefix, &mut out);
    }
    out
}

fn decode_node(map: &Map<String, Value>, prefix: &mut FieldPath, out: &mut FieldSet) {
    let mut has_field_children = false;
    if prefix.len() < MAX_DEPTH {
        for (key, child) in map {
            let Some(name) = key.strip_prefix("f:") else {
                continue;
            };
            has_field_children = true;
            prefix.push(name.to_owned());
            match child {
                Value::Object(child) => decode_node(child, prefix, out),
                _ => {
                    out.insert(prefix.clone());
                }
            }
            prefix.pop();
        }
    }
    if !has_field_children && !prefix.is_empty() {
        out.insert(prefix.clone());
    }
}

/// Upstream's path notation for messages: `.spec.x`.
pub(crate) fn dotted(path: &[String]) -> String {
    path.iter().map(|p| format!(".{p}")).collect()
}

/// The value at `path`, if every step is an object member.
pub(crate) fn value_at<'a>(root: &'a Map<String, Value>, path: &[String]) -> Option<&'a Value> {
    let (first, rest) = path.split_first()?;
    rest.iter().try_fold(root.get(first)?, |node, segment| node.get(segment))
}
