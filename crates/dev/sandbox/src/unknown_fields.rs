//! Fields a kind does not declare, handled as the API server's decoder handles them under
//! the request's `fieldValidation`: `Strict` refuses the request, `Warn` (the default)
//! sends one `Warning: unknown field "<path>"` per field, `Ignore` says nothing; in every
//! case the fields are then dropped (custom resources by their schema's pruning).
//!
//! What is checked: `metadata` of every kind (ObjectMeta's fields, owner references and
//! managed fields entries), the top-level fields of ConfigMaps and Secrets, and every
//! field of a custom resource against its schema. Other built-in kinds' fields are not.
//!
//! How the refusal reads depends on the request: a create or update body is a 400
//! (`strict decoding error: unknown field "a", unknown field "b"`); a JSON or merge patch
//! is a 422 on the field `patch` quoting the patched object; server-side apply of a custom
//! resource is the 500 structured-merge-diff gives whatever `fieldValidation` says.

use certgate_patch::PatchType;
use serde_json::{Map, Value, json};

use crate::options::FieldValidation;
use crate::requester::Requester;
use crate::server::Sandbox;
use crate::status::ApiError;
use crate::target::Target;

/// ObjectMeta's JSON fields.
const OBJECT_META: &[&str] = &[
    "name",
    "generateName",
    "namespace",
    "selfLink",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "labels",
    "annotations",
    "ownerReferences",
    "finalizers",
    "managedFields",
];
const OWNER_REFERENCE: &[&str] =
    &["apiVersion", "kind", "name", "uid", "controller", "blockOwnerDeletion"];
const MANAGED_FIELDS_ENTRY: &[&str] =
    &["manager", "operation", "apiVersion", "time", "fieldsType", "fieldsV1", "subresource"];
const CONFIG_MAP: &[&str] = &["apiVersion", "kind", "metadata", "immutable", "data", "binaryData"];
const SECRET: &[&str] =
    &["apiVersion", "kind", "metadata", "immutable", "data", "stringData", "type"];

/// Checks `object` (a request body, or the object a patch made) for unknown fields.
pub fn check(
    sandbox: &Sandbox,
    target: &Target,
    requester: &Requester,
    object: &Value,
) -> Result<(), ApiError> {
    let resource = &target.resource;
    let custom = resource.is_custom();
    let mut unknown = Vec::new();
    if custom {
        // The unstructured decoder reports metadata's fields sorted, then the schema's.
        if let Some(metadata) = object.get("metadata") {
            metadata_fields(metadata, &mut unknown);
        }
        unknown.sort();
        unknown.extend(sandbox.schemas.unknown_fields(resource, object)?);
    } else {
        // The typed decoder reports them in the order it reads them.
        let top = match (resource.group.as_str(), resource.plural.as_str()) {
            ("", "configmaps") => Some(CONFIG_MAP),
            ("", "secrets") => Some(SECRET),
            _ => None,
        };
        if let Some(map) = object.as_object() {
            for (key, value) in map {
                if key == "metadata" {
                    metadata_fields(value, &mut unknown);
                } else if top.is_some_and(|known| !known.contains(&key.as_str())) {
                    unknown.push(key.clone());
                }
            }
        }
    }
    if unknown.is_empty() {
        return Ok(());
    }
    let decoding = requester.decoding;
    if decoding.patch == Some(PatchType::Apply) {
        return if custom { Err(apply_error(target, object, &unknown)) } else { Ok(()) };
    }
    match decoding.field_validation {
        FieldValidation::Ignore => Ok(()),
        FieldValidation::Warn => {
            requester
                .warn(unknown.iter().map(|path| format!("unknown field \"{path}\"")).collect());
            Ok(())
        }
        FieldValidation::Strict => {
            let strict = format!(
                "strict decoding error: {}",
                unknown
                    .iter()
                    .map(|path| format!("unknown field \"{path}\""))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            Err(match decoding.patch {
                Some(_) => patch_error(object, &strict),
                None => {
                    let (kind, version) = (&resource.kind, &resource.version);
                    ApiError::bad_request(format!(
                        "{kind} in version \"{version}\" cannot be handled as a {kind}: {strict}"
                    ))
                }
            })
        }
    }
}

/// `metadata.<field>` for ObjectMeta's unknown fields, in document order.
fn metadata_fields(metadata: &Value, unknown: &mut Vec<String>) {
    let Some(map) = metadata.as_object() else { return };
    unknown_keys(map, OBJECT_META, "metadata", unknown);
    for (field, known) in
        [("ownerReferences", OWNER_REFERENCE), ("managedFields", MANAGED_FIELDS_ENTRY)]
    {
        let Some(items) = map.get(field).and_then(Value::as_array) else { continue };
        for (index, item) in items.iter().enumerate() {
            if let Some(item) = item.as_object() {
                unknown_keys(item, known, &format!("metadata.{field}[{index}]"), unknown);
            }
        }
    }
}

fn unknown_keys(map: &Map<String, Value>, known: &[&str], at: &str, unknown: &mut Vec<String>) {
    for key in map.keys().filter(|key| !known.contains(&key.as_str())) {
        unknown.push(format!("{at}.{key}"));
    }
}

/// A JSON or merge patch: `errors.NewInvalid` on an empty kind and name, for the field
/// `patch`, quoting the patched object as Go's `json.Marshal` writes it.
fn patch_error(object: &Value, strict: &str) -> ApiError {
    let body = format!(
        "Invalid value: {}: {strict}",
        certgate_gofmt::quote(&certgate_gofmt::json(object))
    );
    ApiError::new(422, "Invalid", format!(" \"\" is invalid: patch: {body}")).with_details(
        json!({"causes": [{"reason": "FieldValueInvalid", "message": body, "field": "patch"}]}),
    )
}

/// Server-side apply: structured-merge-diff's typed conversion of the applied object fails
/// on the first undeclared field (`.spec.bogus: field not declared in schema`).
fn apply_error(target: &Target, object: &Value, unknown: &[String]) -> ApiError {
    let text = |pointer: &str| object.pointer(pointer).and_then(Value::as_str).unwrap_or_default();
    let lines: Vec<String> =
        unknown.iter().map(|path| format!(".{path}: field not declared in schema")).collect();
    let errors = match lines.as_slice() {
        [one] => one.clone(),
        _ => format!("errors:\n  {}", lines.join("\n  ")),
    };
    let resource = &target.resource;
    let group_version = if resource.group.is_empty() {
        resource.version.clone()
    } else {
        format!("{}/{}", resource.group, resource.version)
    };
    ApiError::new(
        500,
        "",
        format!(
            "failed to create typed patch object ({}/{}; {group_version}, Kind={}): {errors}",
            text("/metadata/namespace"),
            text("/metadata/name"),
            resource.kind
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_patched_object_is_quoted_as_go_marshals_it() {
        let value = json!({"b": "<&>", "a": {"z": 1, "y": [{"d": 1, "c": 2}]}});
        assert_eq!(
            certgate_gofmt::json(&value),
            r#"{"a":{"y":[{"c":2,"d":1}],"z":1},"b":"\u003c\u0026\u003e"}"#
        );
    }

    #[test]
    fn metadata_fields_report_owner_references_by_index() {
        let mut unknown = Vec::new();
        metadata_fields(
            &json!({"name": "n", "zz": 1, "ownerReferences": [{"name": "o", "bog": 1}]}),
            &mut unknown,
        );
        assert_eq!(unknown, ["metadata.zz", "metadata.ownerReferences[0].bog"]);
    }
}
