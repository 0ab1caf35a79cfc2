//! Field sets for server-side apply and their `FieldsV1` encoding (`f:`, `k:`, `v:`, `.`).
//!
//! A field set holds *members*: scalars, atomic lists, empty maps, and the items of keyed
//! lists (`k:{"type":"Ready"}`) and sets (`v:"a"`). Maps are implied by their children, as
//! in upstream's encoding where `f:spec: {f:replicas: {}}` owns only `.spec.replicas`; a
//! member that also has children is written with a `.` entry, as upstream writes list items.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use crate::body::MAX_DEPTH;

/// One step of a field path. The derived order (fields, then keys, then values) is the
/// order upstream writes `fieldsV1` members in.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Segment {
    /// A map member (`f:name`).
    Field(String),
    /// An item of a `listType=map` list, named by its key fields as compact JSON with the
    /// field names sorted (`k:{"name":"http","protocol":"TCP"}`).
    Key(String),
    /// An item of a `listType=set` list, named by its value as compact JSON (`v:"a"`).
    Value(String),
}

pub(crate) type FieldPath = Vec<Segment>;
pub(crate) type FieldSet = BTreeSet<FieldPath>;

/// Fields the server sets or identifies the object by; upstream never records an owner
/// for them.
pub(crate) fn is_unowned(path: &[Segment]) -> bool {
    let name = |s: &Segment, want: &str| matches!(s, Segment::Field(n) if n == want);
    match path {
        [Segment::Field(field)] => field == "apiVersion" || field == "kind",
        [meta, Segment::Field(field)] if name(meta, "metadata") => matches!(
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

/// The key a map-list item is identified by: its key fields that are present, as compact
/// JSON with sorted names; `None` when it has none of them (or is not an object).
pub(crate) fn item_key(item: &Value, keys: &[String]) -> Option<String> {
    let item = item.as_object()?;
    let mut names: Vec<&String> = keys.iter().filter(|k| item.contains_key(k.as_str())).collect();
    if names.is_empty() {
        return None;
    }
    names.sort();
    let mut key = Map::new();
    for name in names {
        if let Some(value) = item.get(name.as_str()) {
            key.insert(name.clone(), value.clone());
        }
    }
    Some(Value::Object(key).to_string())
}

/// Re-encodes a `k:` key read from stored `fieldsV1` with sorted names, so keys written by
/// other servers compare equal to the ones computed here. Invalid JSON is kept verbatim.
fn canonical_key(text: &str) -> String {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => {
            let mut names: Vec<&String> = map.keys().collect();
            names.sort();
            let sorted: Map<String, Value> =
                names.into_iter().map(|n| (n.clone(), map[n.as_str()].clone())).collect();
            Value::Object(sorted).to_string()
        }
        _ => text.to_owned(),
    }
}

/// Encodes a field set as a `fieldsV1` object.
pub(crate) fn to_fields_v1(set: &FieldSet) -> Value {
    let mut root = Map::new();
    let mut paths = set.iter().peekable();
    while let Some(path) = paths.next() {
        let has_children = paths.peek().is_some_and(|next| next.starts_with(path));
        insert(&mut root, path, has_children);
    }
    Value::Object(root)
}

/// Adds `path` under `node`; sorted order visits a member right before its children, so
/// its `.` entry is written first.
fn insert(node: &mut Map<String, Value>, path: &[Segment], has_children: bool) {
    let Some((first, rest)) = path.split_first() else {
        if has_children {
            node.insert(".".to_owned(), Value::Object(Map::new()));
        }
        return;
    };
    let child = node.entry(encode(first)).or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(child) = child {
        insert(child, rest, has_children);
    }
}

fn encode(segment: &Segment) -> String {
    match segment {
        Segment::Field(name) => format!("f:{name}"),
        Segment::Key(key) => format!("k:{key}"),
        Segment::Value(value) => format!("v:{value}"),
    }
}

/// Decodes a `fieldsV1` object. `.` makes its node a member; a node without children is
/// a member; `i:` (positions in atomic lists) is read as ownership of the list itself.
pub(crate) fn from_fields_v1(value: &Value) -> FieldSet {
    let mut out = FieldSet::new();
    let mut prefix = Vec::new();
    if let Value::Object(map) = value {
        decode_node(map, &mut prefix, &mut out);
    }
    out
}

fn decode_node(map: &Map<String, Value>, prefix: &mut FieldPath, out: &mut FieldSet) {
    let mut has_children = false;
    let mut is_member = false;
    if prefix.len() < MAX_DEPTH {
        for (key, child) in map {
            let segment = if let Some(name) = key.strip_prefix("f:") {
                Segment::Field(name.to_owned())
            } else if let Some(key) = key.strip_prefix("k:") {
                Segment::Key(canonical_key(key))
            } else if let Some(value) = key.strip_prefix("v:") {
                Segment::Value(value.to_owned())
            } else {
                is_member |= key == "." || key.starts_with("i:");
                continue;
            };
            has_children = true;
            prefix.push(segment);
            match child {
                Value::Object(child) => decode_node(child, prefix, out),
                _ => {
                    out.insert(prefix.clone());
                }
            }
            prefix.pop();
        }
    }
    if (is_member || !has_children) && !prefix.is_empty() {
        out.insert(prefix.clone());
    }
}

/// Upstream's path notation for messages: `.spec.x`, `.status.conditions[type="Ready"]`,
/// `.spec.tags[="a"]`.
pub(crate) fn dotted(path: &[Segment]) -> String {
    let mut out = String::new();
    for segment in path {
        match segment {
            Segment::Field(name) => {
                out.push('.');
                out.push_str(name);
            }
            Segment::Key(key) => out.push_str(&key_label(key)),
            Segment::Value(value) => {
                out.push_str("[=");
                out.push_str(value);
                out.push(']');
            }
        }
    }
    out
}

/// `[name="http",protocol="TCP"]` from the key's JSON.
pub(crate) fn key_label(key: &str) -> String {
    match serde_json::from_str::<Value>(key) {
        Ok(Value::Object(map)) => {
            let parts: Vec<String> = map.iter().map(|(k, v)| format!("{k}={v}")).collect();
            format!("[{}]", parts.join(","))
        }
        _ => format!("[{key}]"),
    }
}
