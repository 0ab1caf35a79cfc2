//! Strategic merge patch (server side) over JSON objects.
//!
//! Maps merge recursively and `null` deletes a key, as in a merge patch; lists follow the
//! kind's [`MergeStrategy`]. Directives: `$patch: replace|delete|merge` on maps and list
//! items, `$retainKeys`, `$deleteFromPrimitiveList/<field>` and `$setElementOrder/<field>`.

use serde_json::{Map, Value};

use crate::strategy::{ListStrategy, MergeStrategy};
use crate::{PatchError, body};

const PATCH_DIRECTIVE: &str = "$patch";
const RETAIN_KEYS: &str = "$retainKeys";
const SET_ELEMENT_ORDER: &str = "$setElementOrder/";
const DELETE_FROM_PRIMITIVE_LIST: &str = "$deleteFromPrimitiveList/";

// Upstream `mergepatch` error texts, which the API server returns verbatim.
const BAD_PRIMITIVE_LIST: &str = "invalid patch format of primitive list";
const BAD_RETAIN_KEYS: &str = "invalid patch format of retainKeys";
const BAD_SET_ELEMENT_ORDER: &str = "invalid patch format of setElementOrder list";
const RETAIN_KEYS_MISMATCH: &str = "patch content doesn't match retainKeys list";
const NO_LIST_OF_LISTS: &str = "lists of lists are not supported";

/// Applies a strategic merge patch. `None` strategy means the kind has no strategic
/// merge schema (a custom resource), which the API server refuses with 415.
pub(crate) fn apply(
    live: &Value,
    patch_body: &[u8],
    strategy: Option<&dyn MergeStrategy>,
) -> Result<Value, PatchError> {
    let strategy = strategy.ok_or(PatchError::StrategicMergeUnsupported)?;
    let patch = match body::decode_json(patch_body)? {
        Value::Object(map) => map,
        // Go decodes `null` into an empty map: nothing to change.
        Value::Null => return Ok(live.clone()),
        other => return Err(body::not_an_object(&other)),
    };
    let original = live.as_object().cloned().unwrap_or_default();
    let mut merger = Merger { strategy, path: Vec::new() };
    Ok(Value::Object(merger.merge_map(original, patch)?.unwrap_or_default()))
}

struct Merger<'a> {
    strategy: &'a dyn MergeStrategy,
    /// Field names from the root to the value being merged (list items add none).
    path: Vec<String>,
}

impl Merger<'_> {
    fn list_strategy(&self) -> ListStrategy {
        let path: Vec<&str> = self.path.iter().map(String::as_str).collect();
        self.strategy.list(&path)
    }

    /// Merges `patch` into `original`; `None` means the map was deleted by `$patch: delete`.
    fn merge_map(
        &mut self,
        mut original: Map<String, Value>,
        mut patch: Map<String, Value>,
    ) -> Result<Option<Map<String, Value>>, PatchError> {
        if let Some(directive) = patch.shift_remove(PATCH_DIRECTIVE) {
            match directive.as_str() {
                Some("delete") => return Ok(None),
                // The patch becomes the whole map; merging into an empty map still
                // strips directives nested inside it.
                Some("replace") => original = Map::new(),
                Some("merge") => {}
                _ => {
                    return Err(PatchError::BadRequest(format!(
                        "unknown patch type: {directive} in map at {}",
                        self.dotted()
                    )));
                }
            }
        }
        if let Some(retain) = patch.shift_remove(RETAIN_KEYS) {
            apply_retain_keys(&mut original, &patch, &retain)?;
        }
        // Deletions first, so a patch that both removes and adds primitives (as kubectl
        // sends) sees the list without the removed values before the union.
        let keys: Vec<String> = patch.keys().cloned().collect();
        let mut orders = Vec::new();
        for key in keys {
            let Some(value) = patch.shift_remove(&key) else {
                continue;
            };
            if let Some(field) = key.strip_prefix(DELETE_FROM_PRIMITIVE_LIST) {
                delete_from_primitive_list(&mut original, field, &value)?;
            } else if let Some(field) = key.strip_prefix(SET_ELEMENT_ORDER) {
                orders.push((field.to_owned(), value));
            } else {
                patch.insert(key, value);
            }
        }
        for (key, value) in patch {
            self.path.push(key.clone());
            let merged = self.merge_value(original.get_mut(&key).map(Value::take), value);
            self.path.pop();
            match merged? {
                Some(value) => {
                    original.insert(key, value);
                }
                None => {
                    original.shift_remove(&key);
                }
            }
        }
        for (field, order) in orders {
            self.path.push(field.clone());
            let ordered = self.apply_element_order(&mut original, &field, &order);
            self.path.pop();
            ordered?;
        }
        Ok(Some(original))
    }

    /// The merged value for one field; `None` deletes the field.
    fn merge_value(
        &mut self,
        original: Option<Value>,
        patch: Value,
    ) -> Result<Option<Value>, PatchError> {
        match patch {
            Value::Null => Ok(None),
            Value::Object(patch) => {
                let original = match original {
                    Some(Value::Object(map)) => map,
                    _ => Map::new(),
                };
                Ok(self.merge_map(original, patch)?.map(Value::Object))
            }
            Value::Array(items) => self.merge_list(original, items).map(Some),
            scalar => Ok(Some(scalar)),
        }
    }

    fn merge_list(
        &mut self,
        original: Option<Value>,
        mut items: Vec<Value>,
    ) -> Result<Value, PatchError> {
        // A `{"$patch": "replace"}` item replaces the list with the other items,
        // whatever the list's strategy.
        if let Some(at) = items.iter().position(|i| directive(i) == Some("replace")) {
            items.remove(at);
            return self.strip_items(items).map(Value::Array);
        }
        let original = match original {
            Some(Value::Array(items)) => items,
            _ => Vec::new(),
        };
        match self.list_strategy() {
            ListStrategy::Replace => self.strip_items(items).map(Value::Array),
            ListStrategy::MergePrimitives => {
                let mut merged = original;
                for item in items {
                    match item {
                        Value::Array(_) => {
                            return Err(PatchError::Unprocessable(NO_LIST_OF_LISTS.to_owned()));
                        }
                        Value::Object(_) => {
                            return Err(PatchError::BadRequest(BAD_PRIMITIVE_LIST.to_owned()));
                        }
                        item if !merged.contains(&item) => merged.push(item),
                        _ => {}
                    }
                }
                Ok(Value::Array(merged))
            }
            ListStrategy::MergeByKey(key) => {
                self.merge_keyed(original, items, &key).map(Value::Array)
            }
        }
    }

    fn merge_keyed(
        &mut self,
        mut merged: Vec<Value>,
        items: Vec<Value>,
        key: &str,
    ) -> Result<Vec<Value>, PatchError> {
        for item in items {
            let Value::Object(item) = item else {
                return Err(PatchError::BadRequest(format!(
                    "invalid JSON document: items of {} must be objects with merge key {}",
                    self.dotted(),
                    certgate_gofmt::quote(key)
                )));
            };
            let Some(wanted) = item.get(key).cloned() else {
                return Err(PatchError::BadRequest(format!(
                    "map: {} does not contain declared merge key: {key}",
                    Value::Object(item)
                )));
            };
            let at = merged.iter().position(|o| o.get(key) == Some(&wanted));
            if item.get(PATCH_DIRECTIVE).and_then(Value::as_str) == Some("delete") {
                merged.retain(|o| o.get(key) != Some(&wanted));
                continue;
            }
            let existing = at
                .and_then(|at| merged.get_mut(at))
                .and_then(|o| o.as_object_mut())
                .map(std::mem::take)
                .unwrap_or_default();
            match (self.merge_map(existing, item)?, at) {
                (Some(map), Some(at)) => {
                    if let Some(slot) = merged.get_mut(at) {
                        *slot = Value::Object(map);
                    }
                }
                (Some(map), None) => merged.push(Value::Object(map)),
                (None, Some(at)) => {
                    merged.remove(at);
                }
                (None, None) => {}
            }
        }
        Ok(merged)
    }

    /// Items that replace a list still must not carry directives into the object.
    fn strip_items(&mut self, items: Vec<Value>) -> Result<Vec<Value>, PatchError> {
        let mut out = Vec::with_capacity(items.len());
        for item in items {
            match item {
                Value::Object(map) => {
                    if let Some(map) = self.merge_map(Map::new(), map)? {
                        out.push(Value::Object(map));
                    }
                }
                other => out.push(other),
            }
        }
        Ok(out)
    }

    /// `$setElementOrder/<field>`: items named in the order list come first, in that
    /// order; items the order list does not name keep their relative order after them.
    fn apply_element_order(
        &self,
        object: &mut Map<String, Value>,
        field: &str,
        order: &Value,
    ) -> Result<(), PatchError> {
        let Value::Array(order) = order else {
            return Err(PatchError::BadRequest(BAD_SET_ELEMENT_ORDER.to_owned()));
        };
        let key = match self.list_strategy() {
            ListStrategy::MergeByKey(key) => Some(key),
            _ => None,
        };
        let identity = |item: &Value| match &key {
            Some(key) => item.get(key.as_ref()).cloned(),
            None => Some(item.clone()),
        };
        let wanted: Vec<Value> = order.iter().filter_map(identity).collect();
        if let Some(Value::Array(items)) = object.get_mut(field) {
            items.sort_by_key(|item| {
                identity(item)
                    .and_then(|id| wanted.iter().position(|w| *w == id))
                    .unwrap_or(usize::MAX)
            });
        }
        Ok(())
    }

    fn dotted(&self) -> String {
        self.path.iter().map(|p| format!(".{p}")).collect()
    }
}

fn directive(item: &Value) -> Option<&str> {
    item.get(PATCH_DIRECTIVE).and_then(Value::as_str)
}

/// `$retainKeys`: keys of the original map not listed are dropped; the patch itself may
/// only set listed keys.
fn apply_retain_keys(
    original: &mut Map<String, Value>,
    patch: &Map<String, Value>,
    retain: &Value,
) -> Result<(), PatchError> {
    let bad = || PatchError::BadRequest(BAD_RETAIN_KEYS.to_owned());
    let keys = retain
        .as_array()
        .ok_or_else(bad)?
        .iter()
        .map(|k| k.as_str().ok_or_else(bad))
        .collect::<Result<Vec<&str>, _>>()?;
    let unlisted =
        patch.keys().filter(|k| !k.starts_with('$')).any(|k| !keys.contains(&k.as_str()));
    if unlisted {
        return Err(PatchError::Unprocessable(RETAIN_KEYS_MISMATCH.to_owned()));
    }
    original.retain(|k, _| keys.contains(&k.as_str()));
    Ok(())
}

/// `$deleteFromPrimitiveList/<field>`: removes the listed values from a primitive list.
fn delete_from_primitive_list(
    original: &mut Map<String, Value>,
    field: &str,
    values: &Value,
) -> Result<(), PatchError> {
    let Value::Array(values) = values else {
        return Err(PatchError::BadRequest(BAD_PRIMITIVE_LIST.to_owned()));
    };
    if let Some(Value::Array(items)) = original.get_mut(field) {
        items.retain(|item| !values.contains(item));
    }
    Ok(())
}
