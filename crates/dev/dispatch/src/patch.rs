//! Applying a mutating webhook's JSONPatch to the object, as upstream's mutating dispatcher
//! does, with bounds against hostile patches and checks on what the patch may change.

use certgate_api::field::{BadValue, FieldError, Path};
use json_patch::PatchOperation;
use serde_json::{Map, Value};

use crate::attributes::{AdmissionAttributes, Operation};
use crate::call::HookError;
use crate::call_error::CallError;
use crate::rejection::Rejection;
use crate::review::VerifiedResponse;
use certgate_gofmt::quote;

/// Operations accepted in one patch: the API server's bound on every JSON patch.
pub(crate) const MAX_OPERATIONS: usize = certgate_patch::MAX_JSON_PATCH_OPERATIONS;
/// Bytes a patch may duplicate with `copy` (the only operation that grows a document beyond
/// the patch's own size); without a bound, repeated copies double the object each time. The
/// API server applies webhook patches under the same accumulated-copy bound as PATCH bodies.
pub(crate) const MAX_COPIED_BYTES: usize = certgate_patch::MAX_JSON_PATCH_COPY_BYTES;

/// The patched object, or `None` when the response carries no (or an empty) patch.
pub(crate) fn apply(
    webhook: &str,
    response: &VerifiedResponse,
    attributes: &AdmissionAttributes,
) -> Result<Option<Value>, HookError> {
    if response.patch.is_empty() {
        return Ok(None);
    }
    // Upstream decodes the patch as a list of JSON objects first; only applying it looks at
    // the operations themselves.
    let operations: Vec<Map<String, Value>> = serde_json::from_slice(&response.patch)
        .map_err(|e| HookError::Calling(CallError::UndecodablePatch(e.to_string())))?;
    if operations.is_empty() {
        return Ok(None);
    }
    if operations.len() > MAX_OPERATIONS {
        return Err(HookError::Calling(CallError::UndecodablePatch(format!(
            "the patch has {} operations; the sandbox applies at most {MAX_OPERATIONS}",
            operations.len()
        ))));
    }
    let Some(original) = attributes.object.as_ref() else {
        return Err(internal(format!(
            "admission webhook {} attempted to modify the object, which is not supported for this operation",
            quote(webhook)
        )));
    };
    if response.patch_type != "JSONPatch" {
        return Err(HookError::Calling(CallError::UnsupportedPatchType(
            response.patch_type.clone(),
        )));
    }
    let operations: Vec<PatchOperation> =
        serde_json::from_value(Value::Array(operations.into_iter().map(Value::Object).collect()))
            .map_err(|e| internal(e.to_string()))?;

    let mut patched = original.clone();
    let mut copied = 0usize;
    for (index, operation) in operations.iter().enumerate() {
        if let PatchOperation::Copy(copy) = operation {
            // Measured without encoding, and only up to the room left: a copy bomb stops
            // before it allocates (the same measure as the sandbox's PATCH requests).
            let room = MAX_COPIED_BYTES.saturating_sub(copied);
            let size = patched
                .pointer(copy.from.as_str())
                .map_or(0, |v| certgate_patch::encoded_len_up_to(v, room));
            copied = copied.saturating_add(size);
            if copied > MAX_COPIED_BYTES {
                return Err(internal(format!(
                    "operation '/{index}' copies more than the {MAX_COPIED_BYTES} bytes the sandbox allows a patch to copy"
                )));
            }
        }
        // One operation at a time on a scratch copy: a failure leaves the request's object
        // untouched, and the error names the failing operation.
        json_patch::patch_unsafe(&mut patched, std::slice::from_ref(operation)).map_err(|e| {
            internal(e.to_string().replacen("operation '/0'", &format!("operation '/{index}'"), 1))
        })?;
    }
    check(webhook, original, &patched, attributes)?;
    Ok(Some(patched))
}

fn internal(message: String) -> HookError {
    HookError::Rejected(Box::new(Rejection::internal(&message)))
}

fn text<'a>(object: &'a Value, pointer: &str) -> &'a str {
    object.pointer(pointer).and_then(Value::as_str).unwrap_or_default()
}

/// What the patched object must still be. Upstream decodes the result into the object's own
/// type (so it must stay an object of the same kind); the namespace and name rules are the
/// ones the registry applies to every create and update after admission.
fn check(
    webhook: &str,
    original: &Value,
    patched: &Value,
    attributes: &AdmissionAttributes,
) -> Result<(), HookError> {
    if !patched.is_object() {
        return Err(internal(format!(
            "admission webhook {} patched the object into something that is not a JSON object",
            quote(webhook)
        )));
    }
    for field in ["/apiVersion", "/kind"] {
        if text(original, field) != text(patched, field) {
            return Err(internal(format!(
                "admission webhook {} changed {} from {} to {}, which the sandbox does not support",
                quote(webhook),
                &field[1..],
                quote(text(original, field)),
                quote(text(patched, field))
            )));
        }
    }
    let namespace = text(patched, "/metadata/namespace");
    if attributes.namespaced && !namespace.is_empty() && namespace != attributes.namespace {
        return Err(HookError::Rejected(Box::new(Rejection::bad_request(
            "the namespace of the provided object does not match the namespace sent on the request"
                .to_owned(),
        ))));
    }
    let (old_name, new_name) = (text(original, "/metadata/name"), text(patched, "/metadata/name"));
    if attributes.operation == Operation::Update && old_name != new_name {
        let error = FieldError::invalid(
            Path::new("metadata").child("name"),
            BadValue::Str(new_name.to_owned()),
            "field is immutable",
        );
        return Err(HookError::Rejected(Box::new(Rejection::invalid(
            &attributes.kind.group,
            &attributes.kind.kind,
            new_name,
            &error,
        ))));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
