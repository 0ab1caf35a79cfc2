//! Simplified server-side apply: merge the applied configuration into the live object,
//! track each Apply manager's fields in `metadata.managedFields`, remove fields a
//! manager stopped applying, and detect same-path conflicts with other managers.
//! What is simplified is listed in `docs/patch.md`.

use serde_json::{Map, Value, json};

use crate::error::Conflict;
use crate::fields::{self, FieldPath, FieldSet};
use crate::{PatchError, body};

/// Upstream's limit on field manager names.
pub const MAX_FIELD_MANAGER_LEN: usize = 128;

/// Query parameters of an apply request plus the server's clock.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ApplyOptions {
    /// `fieldManager`: required for apply.
    pub field_manager: String,
    /// `force`: take over fields other managers own instead of failing with 409.
    pub force: bool,
    /// The timestamp recorded in the manager's entry (RFC 3339, e.g.
    /// `2026-01-01T00:00:00Z`); passed in so this crate stays free of clocks.
    pub time: String,
    /// The subresource the request targets (`Some("status")` for `/status`); managers
    /// own fields per subresource, as upstream records in `managedFields[].subresource`.
    pub subresource: Option<String>,
}

/// Applies a server-side apply body (YAML or JSON) to `live`. A `live` that is not an
/// object (e.g. `Value::Null`) is treated as a missing object, i.e. a create.
pub(crate) fn apply(
    live: &Value,
    patch_body: &[u8],
    options: Option<&ApplyOptions>,
) -> Result<Value, PatchError> {
    let default = ApplyOptions::default();
    let options = options.unwrap_or(&default);
    validate(options)?;
    let applied = match body::decode_yaml(patch_body)? {
        Value::Object(map) => map,
        other => return Err(body::not_an_object(&other)),
    };
    merge_applied(live.as_object().cloned().unwrap_or_default(), applied, options)
}

/// Apply on an object that does not exist yet: the API server creates it from the
/// applied configuration and records the manager's fields.
pub fn apply_create(applied: &Value, options: &ApplyOptions) -> Result<Value, PatchError> {
    validate(options)?;
    body::check_depth(applied)?;
    let Value::Object(applied) = applied else {
        return Err(body::not_an_object(applied));
    };
    merge_applied(Map::new(), applied.clone(), options)
}

fn validate(options: &ApplyOptions) -> Result<(), PatchError> {
    let manager = &options.field_manager;
    if manager.is_empty() {
        return Err(PatchError::InvalidOptions(
            "fieldManager: Required value: is required for apply patch".to_owned(),
        ));
    }
    if manager.len() > MAX_FIELD_MANAGER_LEN {
        return Err(PatchError::InvalidOptions(format!(
            "fieldManager: Too long: may not be more than {MAX_FIELD_MANAGER_LEN} bytes"
        )));
    }
    if let Some((at, c)) = manager.char_indices().find(|(_, c)| c.is_control()) {
        return Err(PatchError::InvalidOptions(format!(
            "fieldManager: Invalid value: {manager:?}: invalid character U+{:04X} (at position {at})",
            u32::from(c)
        )));
    }
    Ok(())
}

/// One `managedFields` entry as read from the live object.
struct Entry {
    raw: Map<String, Value>,
    fields: FieldSet,
}

impl Entry {
    fn text(&self, key: &str) -> Option<&str> {
        self.raw.get(key).and_then(Value::as_str)
    }

    fn is(&self, options: &ApplyOptions) -> bool {
        self.text("manager") == Some(options.field_manager.as_str())
            && self.text("operation") == Some("Apply")
            && self.text("subresource") == options.subresource.as_deref()
    }

    /// Upstream names Update managers with the API version they wrote through.
    fn conflict(&self, path: &FieldPath) -> Conflict {
        let manager = self.text("manager").unwrap_or_default();
        let quoted = format!("{manager:?}");
        let manager = match (self.text("operation"), self.text("apiVersion")) {
            (Some("Update"), Some(version)) => format!("{quoted} using {version}"),
            _ => quoted,
        };
        Conflict { manager, field: fields::dotted(path) }
    }
}

fn merge_applied(
    mut object: Map<String, Value>,
    mut applied: Map<String, Value>,
    options: &ApplyOptions,
) -> Result<Value, PatchError> {
    // Ownership is the server's record; an applied configuration cannot set it.
    if let Some(Value::Object(meta)) = applied.get_mut("metadata") {
        meta.shift_remove("managedFields");
    }
    let mut entries = read_entries(&object);
    let mine = entries.iter().position(|e| e.is(options));
    let previous =
        mine.and_then(|at| entries.get(at)).map(|e| e.fields.clone()).unwrap_or_default();
    let wanted = fields::applied_fields(&applied);

    let mut conflicts = Vec::new();
    for (at, entry) in entries.iter().enumerate() {
        if Some(at) == mine {
            continue;
        }
        for path in entry.fields.intersection(&wanted) {
            if fields::value_at(&object, path) != fields::value_at(&applied, path) {
                conflicts.push((at, path.clone()));
            }
        }
    }
    if !conflicts.is_empty() && !options.force {
        let list = conflicts
            .iter()
            .filter_map(|(at, path)| entries.get(*at).map(|e| e.conflict(path)))
            .collect();
        return Err(PatchError::Conflicts(list));
    }
    for (at, path) in &conflicts {
        if let Some(entry) = entries.get_mut(*at) {
            entry.fields.remove(path);
        }
    }

    let before = without_managed_fields(&object);
    let still_owned: FieldSet = entries
        .iter()
        .enumerate()
        .filter(|(at, _)| Some(*at) != mine)
        .flat_map(|(_, e)| e.fields.iter().cloned())
        .chain(wanted.iter().cloned())
        .collect();
    for path in previous.difference(&wanted) {
        if !still_owned.contains(path) {
            remove_field(&mut object, path, &still_owned);
        }
    }
    merge_into(&mut object, applied.clone());

    // A no-op apply keeps the previous timestamp, so repeating it changes nothing.
    let unchanged = previous == wanted && before == without_managed_fields(&object);
    let my_entry = mine.and_then(|at| entries.get(at));
    let time = match my_entry {
        Some(entry) if unchanged => entry.text("time").unwrap_or(&options.time).to_owned(),
        _ => options.time.clone(),
    };
    let api_version = applied
        .get("apiVersion")
        .or_else(|| object.get("apiVersion"))
        .and_then(Value::as_str)
        .unwrap_or_default();
    let mut new_entry = json!({
        "manager": options.field_manager,
        "operation": "Apply",
        "apiVersion": api_version,
        "time": time,
        "fieldsType": "FieldsV1",
        "fieldsV1": fields::to_fields_v1(&wanted),
    });
    if let (Some(sub), Value::Object(entry)) = (&options.subresource, &mut new_entry) {
        entry.insert("subresource".to_owned(), Value::String(sub.clone()));
    }

    let mut managed = Vec::with_capacity(entries.len() + 1);
    let mut placed = false;
    for (at, entry) in entries.iter_mut().enumerate() {
        if Some(at) == mine {
            if !wanted.is_empty() {
                managed.push(new_entry.clone());
            }
            placed = true;
        } else if !entry.fields.is_empty() {
            if conflicts.iter().any(|(c, _)| *c == at) {
                entry.raw.insert("fieldsV1".to_owned(), fields::to_fields_v1(&entry.fields));
            }
            managed.push(Value::Object(std::mem::take(&mut entry.raw)));
        }
    }
    if !placed && !wanted.is_empty() {
        managed.push(new_entry);
    }
    let meta = object.entry("metadata").or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(meta) = meta {
        meta.insert("managedFields".to_owned(), Value::Array(managed));
    }
    Ok(Value::Object(object))
}

/// Reads the live `managedFields`; entries that are not objects are dropped (they could
/// not have been written by a valid request).
fn read_entries(object: &Map<String, Value>) -> Vec<Entry> {
    let Some(Value::Array(list)) = object.get("metadata").and_then(|m| m.get("managedFields"))
    else {
        return Vec::new();
    };
    list.iter()
        .filter_map(Value::as_object)
        .map(|raw| Entry {
            fields: raw.get("fieldsV1").map(fields::from_fields_v1).unwrap_or_default(),
            raw: raw.clone(),
        })
        .collect()
}

fn without_managed_fields(object: &Map<String, Value>) -> Map<String, Value> {
    let mut copy = object.clone();
    if let Some(Value::Object(meta)) = copy.get_mut("metadata") {
        meta.shift_remove("managedFields");
    }
    copy
}

/// Maps merge recursively, `null` removes, everything else (lists too) replaces.
fn merge_into(target: &mut Map<String, Value>, applied: Map<String, Value>) {
    for (key, value) in applied {
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
                    merge_into(slot, child);
                }
            }
            other => {
                target.insert(key, other);
            }
        }
    }
}

/// Removes a field the manager no longer applies, then any parent maps left empty
/// that no remaining owner's field lives under.
fn remove_field(object: &mut Map<String, Value>, path: &[String], owned: &FieldSet) {
    if !remove_at(object, path) {
        return;
    }
    for depth in (1..path.len()).rev() {
        let Some(prefix) = path.get(..depth) else {
            return;
        };
        let empty =
            matches!(fields::value_at(object, prefix), Some(Value::Object(m)) if m.is_empty());
        let in_use = owned.iter().any(|p| p.starts_with(prefix));
        if !empty || in_use || !remove_at(object, prefix) {
            return;
        }
    }
}

/// Removes the entry at `path` (a chain of map keys); false when a parent is not a map.
fn remove_at(object: &mut Map<String, Value>, path: &[String]) -> bool {
    let Some((last, parents)) = path.split_last() else {
        return false;
    };
    let mut node = &mut *object;
    for segment in parents {
        match node.get_mut(segment) {
            Some(Value::Object(child)) => node = child,
            _ => return false,
        }
    }
    node.shift_remove(last);
    true
}
