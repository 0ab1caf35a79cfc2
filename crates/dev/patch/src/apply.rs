//! Server-side apply: merge the applied configuration into the live object, track each
//! Apply manager's fields in `metadata.managedFields`, remove fields a manager stopped
//! applying, and detect conflicts with other managers. Lists merge by their list type
//! (`lists.rs`): keyed lists and sets item by item, everything else atomically. What is
//! simplified is listed in `docs/patch.md`.

use std::cmp::Ordering;

use serde_json::{Map, Value, json};

use crate::error::Conflict;
use crate::fields::{self, FieldPath, FieldSet, Segment};
use crate::lists::Lists;
use crate::strategy::MergeStrategy;
use crate::walk::{self, ItemError};
use crate::{PatchError, body};

/// Upstream's limit on field manager names.
pub const MAX_FIELD_MANAGER_LEN: usize = 128;

/// Query parameters of an apply request plus the server's clock and the object's schema.
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
    /// A custom resource's `openAPIV3Schema`, whose `x-kubernetes-list-type` and
    /// `x-kubernetes-list-map-keys` say how its lists merge. `None` for built-in kinds,
    /// whose lists follow the strategic merge table passed to `apply_patch`.
    pub schema: Option<Value>,
}

impl ApplyOptions {
    fn lists<'a>(&'a self, strategy: Option<&'a dyn MergeStrategy>) -> Lists<'a> {
        match (&self.schema, strategy) {
            (Some(schema), _) => Lists::Crd(schema),
            (None, Some(strategy)) => Lists::Builtin(strategy),
            (None, None) => Lists::None,
        }
    }
}

/// Applies a server-side apply body (YAML or JSON) to `live`. A `live` that is not an
/// object (e.g. `Value::Null`) is treated as a missing object, i.e. a create.
pub(crate) fn apply(
    live: &Value,
    patch_body: &[u8],
    options: Option<&ApplyOptions>,
    strategy: Option<&dyn MergeStrategy>,
) -> Result<Value, PatchError> {
    let default = ApplyOptions::default();
    let options = options.unwrap_or(&default);
    validate(options)?;
    let applied = match body::decode_yaml(patch_body)? {
        Value::Object(map) => map,
        other => return Err(body::not_an_object(&other)),
    };
    let lists = options.lists(strategy);
    merge_applied(live.as_object().cloned().unwrap_or_default(), applied, options, lists)
}

/// Apply on an object that does not exist yet: the API server creates it from the
/// applied configuration and records the manager's fields. Lists merge as `options.schema`
/// says (atomic without one).
pub fn apply_create(applied: &Value, options: &ApplyOptions) -> Result<Value, PatchError> {
    validate(options)?;
    body::check_depth(applied)?;
    let Value::Object(applied) = applied else {
        return Err(body::not_an_object(applied));
    };
    merge_applied(Map::new(), applied.clone(), options, options.lists(None))
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
            "fieldManager: Invalid value: {}: invalid character U+{:04X} (at position {at})",
            certgate_gofmt::quote(manager),
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

    /// Upstream names the manager quoted, then its subresource, then for Update managers
    /// the API version they wrote through.
    fn conflict(&self, path: &FieldPath) -> Conflict {
        // Go's %q, not Rust's Debug: they escape control and some Unicode characters apart.
        let mut manager = certgate_gofmt::quote(self.text("manager").unwrap_or_default());
        if let Some(sub) = self.text("subresource").filter(|s| !s.is_empty()) {
            manager.push_str(&format!(" with subresource {}", certgate_gofmt::quote(sub)));
        }
        if let (Some("Update"), Some(version)) = (self.text("operation"), self.text("apiVersion")) {
            manager.push_str(&format!(" using {version}"));
        }
        Conflict { manager, field: fields::dotted(path) }
    }
}

/// Upstream's message for an applied configuration that is not a valid typed object.
fn typed_patch_error(
    applied: &Map<String, Value>,
    live: &Map<String, Value>,
    error: ItemError,
) -> PatchError {
    let text = |key: &str| {
        applied.get(key).or_else(|| live.get(key)).and_then(Value::as_str).unwrap_or_default()
    };
    let meta = |key: &str| {
        [applied, live]
            .iter()
            .find_map(|o| o.get("metadata").and_then(|m| m.get(key)).and_then(Value::as_str))
            .unwrap_or_default()
    };
    let api_version = text("apiVersion");
    let group_version =
        if api_version.contains('/') { api_version.to_owned() } else { format!("/{api_version}") };
    PatchError::TypedPatch(format!(
        "failed to create typed patch object ({}/{}; {group_version}, Kind={}): {}: {}",
        meta("namespace"),
        meta("name"),
        text("kind"),
        error.path,
        error.detail
    ))
}

/// Only values can conflict: a list item or a map named by another manager is shared
/// (applying a map, even `{}`, merges into it and changes none of its fields).
fn may_conflict(path: &FieldPath, applied: Option<&Value>) -> bool {
    matches!(path.last(), Some(Segment::Field(_))) && !matches!(applied, Some(Value::Object(_)))
}

fn merge_applied(
    mut object: Map<String, Value>,
    mut applied: Map<String, Value>,
    options: &ApplyOptions,
    lists: Lists<'_>,
) -> Result<Value, PatchError> {
    // Ownership is the server's record; an applied configuration cannot set it.
    if let Some(Value::Object(meta)) = applied.get_mut("metadata") {
        meta.shift_remove("managedFields");
    }
    let wanted = walk::applied_fields(&applied, lists)
        .map_err(|e| typed_patch_error(&applied, &object, e))?;
    let mut entries = read_entries(&object);
    let mine = entries.iter().position(|e| e.is(options));
    let previous =
        mine.and_then(|at| entries.get(at)).map(|e| e.fields.clone()).unwrap_or_default();

    let conflicts = find_conflicts(&object, &applied, &entries, mine, &wanted);
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
    walk::merge(&mut object, applied.clone(), lists);
    let dropped: FieldSet =
        previous.difference(&wanted).filter(|p| !still_owned.contains(*p)).cloned().collect();
    if !dropped.is_empty() {
        let mut root = Value::Object(std::mem::take(&mut object));
        walk::remove_paths(&mut root, &dropped, &still_owned);
        if let Value::Object(root) = root {
            object = root;
        }
    }

    // Upstream stamps the time only when the object changed: a no-op apply keeps the
    // previous time (so repeating an apply changes nothing), and a new manager whose
    // apply changed nothing gets no time at all.
    let changed = before != without_managed_fields(&object);
    let my_entry = mine.and_then(|at| entries.get(at));
    let time = if changed {
        Some(options.time.clone())
    } else {
        my_entry.and_then(|e| e.text("time")).map(str::to_owned)
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
        "fieldsType": "FieldsV1",
        "fieldsV1": fields::to_fields_v1(&wanted),
    });
    if let Value::Object(entry) = &mut new_entry {
        if let Some(time) = time {
            entry.insert("time".to_owned(), Value::String(time));
        }
        if let Some(sub) = &options.subresource {
            entry.insert("subresource".to_owned(), Value::String(sub.clone()));
        }
    }

    let mut managed = Vec::with_capacity(entries.len() + 1);
    for (at, entry) in entries.iter_mut().enumerate() {
        if Some(at) == mine || entry.fields.is_empty() {
            continue;
        }
        if conflicts.iter().any(|(c, _)| *c == at) {
            entry.raw.insert("fieldsV1".to_owned(), fields::to_fields_v1(&entry.fields));
        }
        managed.push(Value::Object(std::mem::take(&mut entry.raw)));
    }
    if !wanted.is_empty() {
        managed.push(new_entry);
    }
    managed.sort_by(upstream_order);
    let meta = object.entry("metadata").or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(meta) = meta {
        meta.insert("managedFields".to_owned(), Value::Array(managed));
    }
    Ok(Value::Object(object))
}

/// Fields of other managers that the configuration sets to a different value, in entry
/// order then path order (upstream's message order).
fn find_conflicts(
    object: &Map<String, Value>,
    applied: &Map<String, Value>,
    entries: &[Entry],
    mine: Option<usize>,
    wanted: &FieldSet,
) -> Vec<(usize, FieldPath)> {
    let shared: FieldSet = entries
        .iter()
        .enumerate()
        .filter(|(at, _)| Some(*at) != mine)
        .flat_map(|(_, e)| e.fields.intersection(wanted).cloned())
        .collect();
    if shared.is_empty() {
        return Vec::new();
    }
    let paths: Vec<&FieldPath> = shared.iter().collect();
    // Both sides are indexed once: looking each path up alone is quadratic in a list.
    let live_root = Value::Object(object.clone());
    let applied_root = Value::Object(applied.clone());
    let live = walk::values_at(&live_root, &paths);
    let new = walk::values_at(&applied_root, &paths);
    let mut conflicts = Vec::new();
    for (at, entry) in entries.iter().enumerate() {
        if Some(at) == mine {
            continue;
        }
        for path in entry.fields.intersection(wanted) {
            let applied_value = new.get(path).copied();
            if may_conflict(path, applied_value) && live.get(path).copied() != applied_value {
                conflicts.push((at, path.clone()));
            }
        }
    }
    conflicts
}

/// Upstream's `managedFields` order: Apply before Update, then by time (none first), then
/// manager, then subresource.
fn upstream_order(a: &Value, b: &Value) -> Ordering {
    let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).unwrap_or("").to_owned();
    ["operation", "time", "manager", "subresource"]
        .iter()
        .map(|key| text(a, key).cmp(&text(b, key)))
        .find(|o| o.is_ne())
        .unwrap_or(Ordering::Equal)
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
