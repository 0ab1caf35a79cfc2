//! RFC 6902 JSON patch with the API server's limits and error classes.

use json_patch::{PatchErrorKind, PatchOperation};
use serde_json::Value;

use crate::{PatchError, body};

/// The API server's limit on operations in one JSON patch (`maxJSONPatchOperations` in
/// k8s.io/apiserver/pkg/endpoints/handlers/patch.go).
pub const MAX_JSON_PATCH_OPERATIONS: usize = 10_000;

/// The API server's bound on how many bytes the `copy` operations of one JSON patch may add
/// together: `JSONPatchMaxCopyBytes` (3 MiB) in k8s.io/apiserver/pkg/server/config.go, which
/// it hands to the json-patch library as its accumulated copy size limit.
pub const MAX_JSON_PATCH_COPY_BYTES: usize = 3 * 1024 * 1024;

/// The bounds a JSON patch is applied under; [`Default`] is the API server's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JsonPatchLimits {
    /// Most operations in one patch (413 above it).
    pub max_operations: usize,
    /// Most bytes (compact JSON of each copied value, summed) the `copy` operations of one
    /// patch may add (422 above it). Checked before each copy is made, so a patch that
    /// copies an object into itself over and over stops before it allocates more.
    pub max_copy_bytes: usize,
}

impl Default for JsonPatchLimits {
    fn default() -> Self {
        JsonPatchLimits {
            max_operations: MAX_JSON_PATCH_OPERATIONS,
            max_copy_bytes: MAX_JSON_PATCH_COPY_BYTES,
        }
    }
}

/// Applies a JSON patch. Malformed patches are 400, too many operations 413, and an
/// operation that does not apply (failed `test`, missing path, copies over the limit) 422.
pub(crate) fn apply(
    live: &Value,
    patch_body: &[u8],
    limits: &JsonPatchLimits,
) -> Result<Value, PatchError> {
    let raw = body::decode_json(patch_body)?;
    let Value::Array(ops) = &raw else {
        return Err(PatchError::BadRequest(
            "json: cannot unmarshal object into Go value of type jsonpatch.Patch".to_owned(),
        ));
    };
    if ops.len() > limits.max_operations {
        return Err(PatchError::TooManyOperations { max: limits.max_operations, got: ops.len() });
    }
    let operations: Vec<PatchOperation> = serde_json::from_value(raw)
        .map_err(|e| PatchError::BadRequest(format!("error decoding patch: {e}")))?;
    let mut patched = live.clone();
    let mut copied = 0usize;
    // One operation at a time, so the copy budget is checked against the document as it
    // is when each copy happens (the source may itself be the product of earlier copies).
    // `patched` is a private clone: a failure simply drops it, nothing needs undoing.
    for operation in &operations {
        if let PatchOperation::Copy(copy) = operation
            && let Some(source) = patched.pointer(copy.from.as_str())
        {
            let room = limits.max_copy_bytes.saturating_sub(copied);
            let size = body::encoded_len_up_to(source, room);
            copied = copied.saturating_add(size);
            if copied > limits.max_copy_bytes {
                return Err(PatchError::CopyTooLarge { limit: limits.max_copy_bytes, copied });
            }
        }
        json_patch::patch(&mut patched, std::slice::from_ref(operation))
            .map_err(|e| describe(operation, &e))?;
    }
    Ok(patched)
}

/// Words the failure like the API server's json-patch library, so logs read the same.
fn describe(operation: &PatchOperation, error: &json_patch::PatchError) -> PatchError {
    let path = error.path.to_string();
    let detail = match (&error.kind, operation) {
        (PatchErrorKind::TestFailed, _) => format!("testing value {path} failed: test failed"),
        (_, PatchOperation::Test(_)) => {
            format!("test operation does not apply: is missing path: {path}: missing value")
        }
        (_, PatchOperation::Remove(_)) => {
            format!(
                "remove operation does not apply: doc is missing path: \"{path}\": missing value"
            )
        }
        (_, PatchOperation::Replace(_)) => {
            format!("replace operation does not apply: doc is missing key: {path}: missing value")
        }
        (_, PatchOperation::Add(_)) => {
            format!("add operation does not apply: doc is missing path: \"{path}\": missing value")
        }
        (PatchErrorKind::CannotMoveInsideItself, _) => {
            format!("move operation does not apply: cannot move {path} inside itself")
        }
        (PatchErrorKind::InvalidFromPointer, PatchOperation::Move(op)) => format!(
            "move operation does not apply: doc is missing from path: {}: missing value",
            op.from
        ),
        (PatchErrorKind::InvalidFromPointer, PatchOperation::Copy(op)) => format!(
            "copy operation does not apply: doc is missing from path: {}: missing value",
            op.from
        ),
        (_, PatchOperation::Move(_)) => format!(
            "move operation does not apply: doc is missing destination path: {path}: missing value"
        ),
        (_, PatchOperation::Copy(_)) => format!(
            "copy operation does not apply: doc is missing destination path: {path}: missing value"
        ),
    };
    PatchError::JsonPatchFailed { detail }
}
