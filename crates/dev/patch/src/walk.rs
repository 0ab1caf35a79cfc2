//! Walks between objects and field sets: the fields an applied configuration sets, the
//! values at many paths at once, and removal of many paths at once.
//!
//! Keyed list items are found through a per-list hash index built once per walk, so each
//! walk is linear in the object plus n log n in the paths; looking paths up one by one
//! would be quadratic in the length of a list.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use crate::fields::{self, FieldPath, FieldSet, Segment};
use crate::lists::{ListType, Lists};

/// Why an applied configuration cannot be turned into a field set: a keyed list whose
/// items repeat a key or lack all key fields. `path` is in upstream's notation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ItemError {
    pub path: String,
    pub detail: String,
}

/// The fields an applied configuration sets (`null` sets nothing), with keyed list items
/// as members.
pub(crate) fn applied_fields(
    applied: &Map<String, Value>,
    lists: Lists<'_>,
) -> Result<FieldSet, ItemError> {
    let mut out = FieldSet::new();
    let mut collector = Collector { lists, names: Vec::new(), path: Vec::new(), out: &mut out };
    collector.map(applied)?;
    Ok(out)
}

struct Collector<'s, 'l> {
    lists: Lists<'l>,
    /// Field names only: what [`Lists::list_type`] is asked with.
    names: Vec<String>,
    path: FieldPath,
    out: &'s mut FieldSet,
}

impl Collector<'_, '_> {
    fn map(&mut self, map: &Map<String, Value>) -> Result<(), ItemError> {
        for (key, value) in map {
            self.path.push(Segment::Field(key.clone()));
            self.names.push(key.clone());
            if !fields::is_unowned(&self.path) {
                self.value(value)?;
            }
            self.names.pop();
            self.path.pop();
        }
        Ok(())
    }

    fn value(&mut self, value: &Value) -> Result<(), ItemError> {
        match value {
            Value::Null => Ok(()),
            Value::Object(child) if !child.is_empty() => self.map(child),
            Value::Array(items) => self.list(items),
            _ => {
                self.out.insert(self.path.clone());
                Ok(())
            }
        }
    }

    fn list(&mut self, items: &[Value]) -> Result<(), ItemError> {
        let names: Vec<&str> = self.names.iter().map(String::as_str).collect();
        let list_type = self.lists.list_type(&names);
        let mut seen = HashSet::with_capacity(items.len());
        match list_type {
            ListType::Atomic => {
                self.out.insert(self.path.clone());
            }
            ListType::Set => {
                for item in items {
                    let value = item.to_string();
                    if !seen.insert(value.clone()) {
                        return Err(self.error(format!("duplicate entries for key [={value}]")));
                    }
                    self.path.push(Segment::Value(value));
                    self.out.insert(self.path.clone());
                    self.path.pop();
                }
            }
            ListType::Map(keys) => {
                for (at, item) in items.iter().enumerate() {
                    let Some(key) = fields::item_key(item, &keys) else {
                        return Err(self.error(format!(
                            "element {at}: associative list with keys has an element that omits \
                             all key fields {} (and doesn't have default values for any key fields)",
                            go_quoted_list(&keys)
                        )));
                    };
                    if !seen.insert(key.clone()) {
                        let label = fields::key_label(&key);
                        return Err(self.error(format!("duplicate entries for key {label}")));
                    }
                    self.path.push(Segment::Key(key));
                    self.out.insert(self.path.clone());
                    if let Value::Object(item) = item {
                        self.map(item)?;
                    }
                    self.path.pop();
                }
            }
        }
        Ok(())
    }

    fn error(&self, detail: String) -> ItemError {
        ItemError { path: fields::dotted(&self.path), detail }
    }
}

/// Go's `%q` of a string slice: `["protocol" "name"]`.
fn go_quoted_list(keys: &[String]) -> String {
    let quoted: Vec<String> = keys.iter().map(|k| Value::String(k.clone()).to_string()).collect();
    format!("[{}]", quoted.join(" "))
}

/// Finds list items by key or value; built lazily, once per list node and key shape.
#[derive(Default)]
struct ListIndex {
    by_key: HashMap<String, HashMap<String, usize>>,
    by_value: Option<HashMap<String, usize>>,
}

impl ListIndex {
    /// The position of the item `segment` names in `items`; the first one when a live
    /// list repeats a key (only applied configurations are refused for that).
    fn find(&mut self, items: &[Value], segment: &Segment) -> Option<usize> {
        match segment {
            Segment::Field(_) => None,
            Segment::Key(key) => {
                let names: Vec<String> = match serde_json::from_str::<Value>(key) {
                    Ok(Value::Object(map)) => map.keys().cloned().collect(),
                    _ => return None,
                };
                let shape = names.join("\u{0}");
                let index = self.by_key.entry(shape).or_insert_with(|| {
                    let mut index = HashMap::with_capacity(items.len());
                    for (at, item) in items.iter().enumerate() {
                        if let Some(k) = fields::item_key(item, &names) {
                            index.entry(k).or_insert(at);
                        }
                    }
                    index
                });
                index.get(key).copied()
            }
            Segment::Value(value) => {
                let index = self.by_value.get_or_insert_with(|| {
                    let mut index = HashMap::with_capacity(items.len());
                    for (at, item) in items.iter().enumerate() {
                        index.entry(item.to_string()).or_insert(at);
                    }
                    index
                });
                index.get(value).copied()
            }
        }
    }
}

/// The values at `paths` (sorted, as a [`FieldSet`] iterates) in `root`; paths that do
/// not exist are left out.
pub(crate) fn values_at<'a, 'p>(
    root: &'a Value,
    paths: &[&'p FieldPath],
) -> HashMap<&'p FieldPath, &'a Value> {
    let mut out = HashMap::with_capacity(paths.len());
    let paths: Vec<&FieldPath> = paths.iter().copied().filter(|p| !p.is_empty()).collect();
    find(root, &paths, 0, &mut out);
    out
}

fn find<'a, 'p>(
    node: &'a Value,
    paths: &[&'p FieldPath],
    depth: usize,
    out: &mut HashMap<&'p FieldPath, &'a Value>,
) {
    let mut index = ListIndex::default();
    let mut at = 0;
    while let Some(first) = paths.get(at) {
        let Some(segment) = first.get(depth) else {
            at += 1;
            continue;
        };
        let end = group_end(paths, at, depth, segment);
        let child = match (node, segment) {
            (Value::Object(map), Segment::Field(name)) => map.get(name),
            (Value::Array(items), _) => index.find(items, segment).and_then(|i| items.get(i)),
            _ => None,
        };
        if let (Some(child), Some(group)) = (child, paths.get(at..end)) {
            let mut rest = group;
            if let Some((exact, tail)) = group.split_first()
                && exact.len() == depth + 1
            {
                out.insert(*exact, child);
                rest = tail;
            }
            if !rest.is_empty() {
                find(child, rest, depth + 1, out);
            }
        }
        at = end;
    }
}

/// The end of the run of `paths` from `start` that share `segment` at `depth`.
fn group_end(paths: &[&FieldPath], start: usize, depth: usize, segment: &Segment) -> usize {
    let mut end = start + 1;
    while paths.get(end).is_some_and(|p| p.get(depth) == Some(segment)) {
        end += 1;
    }
    end
}

/// Removes every path of `remove` (a whole subtree each) from `root`, then maps, lists
/// and items that this emptied and under which `keep` owns nothing.
pub(crate) fn remove_paths(root: &mut Value, remove: &FieldSet, keep: &FieldSet) {
    let paths: Vec<&FieldPath> = remove.iter().filter(|p| !p.is_empty()).collect();
    remove_in(root, &paths, 0, keep);
}

/// Returns whether anything under `node` was removed.
fn remove_in(node: &mut Value, paths: &[&FieldPath], depth: usize, keep: &FieldSet) -> bool {
    let mut removed_any = false;
    let mut doomed_items = HashSet::new();
    let mut index = ListIndex::default();
    let mut at = 0;
    while let Some(first) = paths.get(at) {
        let Some(segment) = first.get(depth) else {
            at += 1;
            continue;
        };
        let end = group_end(paths, at, depth, segment);
        let group = paths.get(at..end).unwrap_or_default();
        at = end;
        let whole = group.first().is_some_and(|p| p.len() == depth + 1);
        let prefix: FieldPath = first.get(..=depth).map(<[Segment]>::to_vec).unwrap_or_default();
        match (&mut *node, segment) {
            (Value::Object(map), Segment::Field(name)) => {
                let Some(child) = map.get_mut(name) else { continue };
                let emptied = !whole && remove_in(child, group, depth + 1, keep);
                if whole || (emptied && is_empty(child) && !owns_under(keep, &prefix)) {
                    map.shift_remove(name);
                    removed_any = true;
                } else {
                    removed_any |= emptied;
                }
            }
            (Value::Array(items), _) => {
                let Some(i) = index.find(items, segment) else { continue };
                let Some(child) = items.get_mut(i) else { continue };
                let emptied = !whole && remove_in(child, group, depth + 1, keep);
                if whole || (emptied && is_empty(child) && !owns_under(keep, &prefix)) {
                    doomed_items.insert(i);
                } else {
                    removed_any |= emptied;
                }
            }
            _ => {}
        }
    }
    if !doomed_items.is_empty()
        && let Value::Array(items) = node
    {
        let mut at = 0;
        items.retain(|_| {
            let keep_item = !doomed_items.contains(&at);
            at += 1;
            keep_item
        });
        removed_any = true;
    }
    removed_any
}

fn is_empty(value: &Value) -> bool {
    match value {
        Value::Object(map) => map.is_empty(),
        Value::Array(items) => items.is_empty(),
        _ => false,
    }
}

/// Whether `keep` has `prefix` or a path below it (one range lookup).
fn owns_under(keep: &FieldSet, prefix: &FieldPath) -> bool {
    keep.range(prefix.clone()..).next().is_some_and(|p| p.starts_with(prefix))
}

/// Merges an applied configuration into the live object: maps recursively, `null`
/// removes, keyed lists and sets item by item, other lists and scalars replace.
pub(crate) fn merge(
    target: &mut Map<String, Value>,
    applied: Map<String, Value>,
    lists: Lists<'_>,
) {
    let mut names = Vec::new();
    merge_map(target, applied, lists, &mut names);
}

fn merge_map(
    target: &mut Map<String, Value>,
    applied: Map<String, Value>,
    lists: Lists<'_>,
    names: &mut Vec<String>,
) {
    for (key, value) in applied {
        names.push(key.clone());
        match value {
            Value::Null => {
                target.shift_remove(&key);
            }
            Value::Object(child) => {
                let slot = target.entry(key).or_insert_with(|| Value::Object(Map::new()));
                if !slot.is_object() {
                    *slot = Value::Object(Map::new());
                }
                if let Value::Object(slot) = slot {
                    merge_map(slot, child, lists, names);
                }
            }
            Value::Array(items) => {
                let refs: Vec<&str> = names.iter().map(String::as_str).collect();
                let list_type = lists.list_type(&refs);
                let merged = match (list_type, target.shift_remove(&key)) {
                    (ListType::Atomic, _) => items,
                    (list_type, Some(Value::Array(live))) => {
                        merge_list(live, items, &list_type, lists, names)
                    }
                    (_, _) => items,
                };
                target.insert(key, Value::Array(merged));
            }
            other => {
                target.insert(key, other);
            }
        }
        names.pop();
    }
}

fn list_key(item: &Value, list_type: &ListType) -> Option<String> {
    match list_type {
        ListType::Map(keys) => fields::item_key(item, keys),
        _ => Some(item.to_string()),
    }
}

/// Merges a keyed list or set in upstream's order: live items the configuration does not
/// name stay where they are, the configuration's items come in its order, and a new item
/// goes just before the next item both lists share.
fn merge_list(
    live: Vec<Value>,
    applied: Vec<Value>,
    list_type: &ListType,
    lists: Lists<'_>,
    names: &mut Vec<String>,
) -> Vec<Value> {
    let live_keys: Vec<Option<String>> = live.iter().map(|i| list_key(i, list_type)).collect();
    let applied_keys: Vec<String> =
        applied.iter().map(|i| list_key(i, list_type).unwrap_or_default()).collect();
    let mut first_live: HashMap<&str, usize> = HashMap::with_capacity(live.len());
    for (at, key) in live_keys.iter().enumerate() {
        if let Some(key) = key {
            first_live.entry(key.as_str()).or_insert(at);
        }
    }
    let in_applied: HashSet<&str> = applied_keys.iter().map(String::as_str).collect();
    let shared: Vec<&str> =
        applied_keys.iter().map(String::as_str).filter(|k| first_live.contains_key(k)).collect();
    let mut shared = shared.into_iter();
    let mut next_shared = shared.next();
    let mut left: Vec<Option<Value>> = live.into_iter().map(Some).collect();
    let mut right: Vec<Option<Value>> = applied.into_iter().map(Some).collect();
    let mut emitted: HashSet<&str> = HashSet::with_capacity(right.len());
    let mut out = Vec::with_capacity(left.len() + right.len());
    let (mut l, mut r) = (0, 0);
    while l < left.len() || r < right.len() {
        let live_key = live_keys.get(l).and_then(Option::as_deref);
        let applied_key = applied_keys.get(r).map(String::as_str);
        if let (Some(lk), Some(rk)) = (live_key, applied_key) {
            if lk == rk {
                let base = left.get_mut(l).and_then(Option::take);
                let item = right.get_mut(r).and_then(Option::take);
                out.push(merge_item(base, item, list_type, lists, names));
                emitted.insert(rk);
                l += 1;
                r += 1;
                next_shared = shared.next();
                continue;
            }
            if in_applied.contains(lk) && next_shared.is_some_and(|s| s != lk) {
                // Shared, but another shared item comes first in the configuration.
                l += 1;
                continue;
            }
        }
        if l < left.len() {
            match live_key {
                Some(lk) if emitted.contains(lk) => {
                    l += 1;
                    continue;
                }
                Some(lk) if in_applied.contains(lk) => {}
                _ => {
                    if let Some(item) = left.get_mut(l).and_then(Option::take) {
                        out.push(item);
                    }
                    l += 1;
                    continue;
                }
            }
        }
        if let Some(rk) = applied_key {
            let base = first_live.get(rk).and_then(|&i| left.get_mut(i)).and_then(Option::take);
            let item = right.get_mut(r).and_then(Option::take);
            out.push(merge_item(base, item, list_type, lists, names));
            emitted.insert(rk);
            r += 1;
            if next_shared == Some(rk) {
                next_shared = shared.next();
            }
        } else {
            // Only live items are left and every one was handled above.
            l += 1;
        }
    }
    out
}

fn merge_item(
    base: Option<Value>,
    item: Option<Value>,
    list_type: &ListType,
    lists: Lists<'_>,
    names: &mut Vec<String>,
) -> Value {
    match (list_type, base, item) {
        (ListType::Map(_), Some(Value::Object(mut base)), Some(Value::Object(item))) => {
            merge_map(&mut base, item, lists, names);
            Value::Object(base)
        }
        (_, _, Some(item)) => item,
        (_, Some(base), None) => base,
        (_, None, None) => Value::Null,
    }
}
