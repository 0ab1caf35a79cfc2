//! What the API server does to an object's metadata on create and update, before storing
//! it: names, uids, timestamps, generation, and the status subresource split.

use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;

use serde_json::{Map, Value, json};

use crate::resources::ResourceType;
use crate::status::ApiError;

/// A fresh random UUID (version 4 layout).
pub fn new_uid() -> String {
    let high = RandomState::new().hash_one(1u8);
    let low = RandomState::new().hash_one(2u8);
    let bytes = ((u128::from(high) << 64) | u128::from(low)).to_be_bytes();
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "{}-{}-4{}-{}{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[13..16],
        ["8", "9", "a", "b"][usize::from(bytes[8] & 3)],
        &hex[17..20],
        &hex[20..32]
    )
}

/// The current time as Kubernetes writes timestamps (RFC 3339, seconds, UTC).
pub fn now() -> String {
    chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// `generateName` suffix characters, as the API server picks them (no vowels).
const SUFFIX_ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";

fn generated_suffix() -> String {
    let mut bits = RandomState::new().hash_one(3u8);
    (0..5)
        .map(|_| {
            let c = SUFFIX_ALPHABET[(bits % SUFFIX_ALPHABET.len() as u64) as usize];
            bits /= SUFFIX_ALPHABET.len() as u64;
            char::from(c)
        })
        .collect()
}

fn metadata_mut(object: &mut Value) -> Result<&mut Map<String, Value>, ApiError> {
    let root = object
        .as_object_mut()
        .ok_or_else(|| ApiError::bad_request("the object must be a JSON object"))?;
    let metadata = root.entry("metadata").or_insert_with(|| json!({}));
    if metadata.is_null() {
        *metadata = json!({});
    }
    metadata.as_object_mut().ok_or_else(|| ApiError::bad_request("metadata must be an object"))
}

/// The string at `pointer`, or `""`.
pub(crate) fn text<'a>(object: &'a Value, pointer: &str) -> &'a str {
    object.pointer(pointer).and_then(Value::as_str).unwrap_or_default()
}

/// Checks `apiVersion`/`kind` of a request body against the URL's resource (filling them
/// in when absent, as the API server's decoder defaults them from the URL).
pub fn check_type(object: &mut Value, resource: &ResourceType) -> Result<(), ApiError> {
    let expected = resource.group_version();
    let root = object
        .as_object_mut()
        .ok_or_else(|| ApiError::bad_request("the object must be a JSON object"))?;
    let api_version = root.get("apiVersion").and_then(Value::as_str).unwrap_or_default().to_owned();
    let kind = root.get("kind").and_then(Value::as_str).unwrap_or_default().to_owned();
    if !api_version.is_empty() && api_version != expected {
        return Err(ApiError::bad_request(format!(
            "the API version in the data ({api_version}) does not match the expected API version ({expected})"
        )));
    }
    if !kind.is_empty() && kind != resource.kind {
        return Err(ApiError::bad_request(format!(
            "the kind in the data ({kind}) does not match the expected kind ({})",
            resource.kind
        )));
    }
    root.insert("apiVersion".to_owned(), json!(expected));
    root.insert("kind".to_owned(), json!(resource.kind));
    Ok(())
}

/// What the API server does to a create body as it decodes it, before admission: type
/// checked against the URL, namespace from the URL, no status for custom resources with a
/// status subresource, no resourceVersion.
pub fn decode_create(
    object: &mut Value,
    resource: &ResourceType,
    namespace: Option<&str>,
) -> Result<(), ApiError> {
    check_type(object, resource)?;
    if resource.status_subresource
        && resource.is_custom()
        && let Some(root) = object.as_object_mut()
    {
        root.remove("status");
    }
    let metadata = metadata_mut(object)?;
    match (resource.namespaced, namespace) {
        (true, Some(ns)) => {
            let given = metadata.get("namespace").and_then(Value::as_str).unwrap_or_default();
            if !given.is_empty() && given != ns {
                return Err(ApiError::bad_request(
                    "the namespace of the provided object does not match the namespace sent on the request",
                ));
            }
            metadata.insert("namespace".to_owned(), json!(ns));
        }
        (true, None) => {
            return Err(ApiError::bad_request(
                "a namespaced resource is created in a namespace's URL",
            ));
        }
        (false, _) => {
            metadata.remove("namespace");
        }
    }
    if metadata.get("resourceVersion").and_then(Value::as_str).is_some_and(|rv| !rv.is_empty()) {
        return Err(ApiError::bad_request(
            "resourceVersion should not be set on objects to be created",
        ));
    }
    Ok(())
}

/// The system fields of a new object, filled after mutating admission as the API server
/// does (so webhooks see a `generateName` request without a name): name, uid, creation
/// time, generation 1.
pub fn fill_create(object: &mut Value, resource: &ResourceType) -> Result<(), ApiError> {
    check_type(object, resource)?;
    let qualified_kind = resource.qualified_kind();
    let metadata = metadata_mut(object)?;
    let name = metadata.get("name").and_then(Value::as_str).unwrap_or_default().to_owned();
    let name = if name.is_empty() {
        let prefix = metadata.get("generateName").and_then(Value::as_str).unwrap_or_default();
        if prefix.is_empty() {
            return Err(ApiError::new(
                422,
                "Invalid",
                format!(
                    "{qualified_kind} \"\" is invalid: metadata.name: Required value: name or generateName is required"
                ),
            ));
        }
        format!("{prefix}{}", generated_suffix())
    } else {
        name
    };
    metadata.insert("name".to_owned(), json!(name));
    metadata.insert("uid".to_owned(), json!(new_uid()));
    metadata.insert("creationTimestamp".to_owned(), json!(now()));
    metadata.remove("deletionTimestamp");
    metadata.remove("deletionGracePeriodSeconds");
    if tracks_generation(resource) {
        metadata.insert("generation".to_owned(), json!(1));
    } else {
        metadata.remove("generation");
    }
    Ok(())
}

/// Both steps of a create, for tests.
#[cfg(test)]
fn prepare_create(
    object: &mut Value,
    resource: &ResourceType,
    namespace: Option<&str>,
) -> Result<(), ApiError> {
    decode_create(object, resource, namespace)?;
    fill_create(object, resource)?;
    crate::object_meta::validate_create(resource, object)
}

/// Custom resources and CRDs keep `metadata.generation`; other built-ins here do not.
fn tracks_generation(resource: &ResourceType) -> bool {
    resource.is_custom() || resource.plural == "customresourcedefinitions"
}

/// Prepares `new` to replace `old`: identity and creation fields kept, the status split
/// applied (a write to `status` changes only the status, a write to the main resource
/// never does, for kinds with a status subresource), generation bumped when anything but
/// metadata and status changed.
pub fn prepare_update(
    new: &mut Value,
    old: &Value,
    resource: &ResourceType,
    status_write: bool,
) -> Result<(), ApiError> {
    check_type(new, resource)?;
    if resource.status_subresource {
        if status_write {
            let status = new.get("status").cloned();
            let metadata = new.get("metadata").cloned();
            *new = old.clone();
            let root = new
                .as_object_mut()
                .ok_or_else(|| ApiError::bad_request("the object must be a JSON object"))?;
            match status {
                Some(status) => root.insert("status".to_owned(), status),
                None => root.remove("status"),
            };
            // The caller's resourceVersion precondition travels in metadata.
            if let Some(rv) = metadata.as_ref().and_then(|m| m.get("resourceVersion")).cloned() {
                metadata_mut(new)?.insert("resourceVersion".to_owned(), rv);
            }
        } else if let Some(root) = new.as_object_mut() {
            match old.get("status") {
                Some(status) => root.insert("status".to_owned(), status.clone()),
                None => root.remove("status"),
            };
        }
    }
    let old_metadata = old.get("metadata").cloned().unwrap_or_else(|| json!({}));
    let metadata = metadata_mut(new)?;
    for field in
        ["name", "namespace", "uid", "creationTimestamp", "deletionTimestamp", "generation"]
    {
        match old_metadata.get(field) {
            Some(value) => metadata.insert(field.to_owned(), value.clone()),
            None => metadata.remove(field),
        };
    }
    if tracks_generation(resource) && spec_changed(old, new) {
        let generation = old_metadata.get("generation").and_then(Value::as_i64).unwrap_or(0) + 1;
        metadata_mut(new)?.insert("generation".to_owned(), json!(generation));
    }
    Ok(())
}

fn spec_changed(old: &Value, new: &Value) -> bool {
    let strip = |v: &Value| {
        let mut v = v.clone();
        if let Some(root) = v.as_object_mut() {
            root.remove("metadata");
            root.remove("status");
        }
        v
    };
    strip(old) != strip(new)
}

/// The `resourceVersion` a request body names, as a precondition (`None` when unset).
pub fn precondition(object: &Value) -> Result<Option<u64>, ApiError> {
    match text(object, "/metadata/resourceVersion") {
        "" => Ok(None),
        rv => rv.parse().map(Some).map_err(|_| {
            ApiError::bad_request(format!(
                "invalid resourceVersion {}: it must come from a read of this server",
                certgate_gofmt::quote(rv)
            ))
        }),
    }
}

/// Whether the object still has finalizers.
pub fn has_finalizers(object: &Value) -> bool {
    object.pointer("/metadata/finalizers").and_then(Value::as_array).is_some_and(|f| !f.is_empty())
}

/// Whether deletion of the object has begun.
pub fn is_deleting(object: &Value) -> bool {
    object.pointer("/metadata/deletionTimestamp").is_some_and(|t| !t.is_null())
}

/// Marks the object as being deleted.
pub fn mark_deleting(object: &mut Value) -> Result<(), ApiError> {
    let metadata = metadata_mut(object)?;
    metadata.entry("deletionTimestamp").or_insert_with(|| json!(now()));
    metadata.entry("deletionGracePeriodSeconds").or_insert_with(|| json!(0));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uids_look_like_uuids_and_differ() {
        let (a, b) = (new_uid(), new_uid());
        assert_ne!(a, b);
        assert_eq!(a.len(), 36);
        assert_eq!(a.chars().nth(14), Some('4'));
    }

    #[test]
    fn generated_names_keep_the_prefix() {
        let resource =
            crate::resources::builtins().into_iter().find(|r| r.plural == "configmaps").unwrap();
        let mut object = json!({"metadata": {"generateName": "app-"}});
        prepare_create(&mut object, &resource, Some("default")).unwrap();
        let name = object["metadata"]["name"].as_str().unwrap();
        assert!(name.starts_with("app-") && name.len() == 9, "{name}");
        assert_eq!(object["metadata"]["namespace"], "default");
        assert_eq!(object["apiVersion"], "v1");
        assert_eq!(object["kind"], "ConfigMap");
    }

    #[test]
    fn bad_names_are_invalid_with_kubernetes_message() {
        let resource =
            crate::resources::builtins().into_iter().find(|r| r.plural == "configmaps").unwrap();
        let mut object = json!({"metadata": {"name": "Bad_Name"}});
        let err = prepare_create(&mut object, &resource, Some("default")).unwrap_err();
        assert_eq!(err.code, 422);
        assert!(err.message.starts_with("ConfigMap \"Bad_Name\" is invalid: metadata.name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain"), "{}", err.message);
    }
}
