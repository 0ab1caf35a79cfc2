//! RFC 6902 JSON patch with the API server's limits and error classes.

use json_patch::{PatchErrorKind, PatchOperation};
use serde_json::Value;

use crate::{PatchError, body};

/// The API server's limit on operations in one JSON patch.
pub const MAX_JSON_PATCH_OPERATIONS: usize = 10_000;

/// Applies a JSON patch. Malformed patches are 400, too many operations 413, and an
/// operation that does not apply (failed `test`, missing path) 422.
pub(crate) fn apply(live: &Value, patch_body: &[u8]) -> Result<Value, PatchError> {
    let raw = body::decode_json(patch_body)?;
    let Value::Array(ops) = &raw else {
        return Err(PatchError::BadRequest(
            "json: cannot unmarshal object into Go value of type jsonpatch.Patch".to_owned(),
        ));
    };
    if ops.len() > MAX_JSON_PATCH_OPERATIONS {
        return Err(PatchError::TooManyOperations {
            max: MAX_JSON_PATCH_OPERATIONS,
            got: ops.len(),
        });
    }
    let operations: Vec<PatchOperation> = serde_json::from_value(raw)
        .map_err(|e| PatchError::BadRequest(format!("error decoding patch: {e}")))?;
    let mut patched = live.clone();
    json_patch::patch(&mut patched, &operations).map_err(|e| describe(&operations, &e))?;
    Ok(patched)
}

/// Words the failure like the API server's json-patch library, so logs read the same.
fn describe(operations: &[PatchOperation], error: &json_patch::PatchError) -> PatchError {
    let path = error.path.to_string();
    let detail = match (&error.kind, operations.get(error.operation)) {
        (PatchErrorKind::TestFailed, _) => format!("testing value {path} failed: test failed"),
        (_, Some(PatchOperation::Test(_))) => {
            format!("test operation does not apply: is missing path: {path}: missing value")
        }
        (_, Some(PatchOperation::Remove(_))) => {
            format!(
                "remove operation does not apply: doc is missing path: \"{path}\": missing value"
            )
        }
        (_, Some(PatchOperation::Replace(_))) => {
            format!("replace operation does not apply: doc is missing key: {path}: missing value")
        }
        (_, Some(PatchOperation::Add(_))) => {
            format!("add operation does not apply: doc is missing path: \"{path}\": missing value")
        }
        (PatchErrorKind::CannotMoveInsideItself, _) => {
            format!("move operation does not apply: cannot move {path} inside itself")
        }
        (PatchErrorKind::InvalidFromPointer, Some(PatchOperation::Move(op))) => format!(
            "move operation does not apply: doc is missing from path: {}: missing value",
            op.from
        ),
        (PatchErrorKind::InvalidFromPointer, Some(PatchOperation::Copy(op))) => format!(
            "copy operation does not apply: doc is missing from path: {}: missing value",
            op.from
        ),
        (_, Some(PatchOperation::Move(_))) => format!(
            "move operation does not apply: doc is missing destination path: {path}: missing value"
        ),
        (_, Some(PatchOperation::Copy(_))) => format!(
            "copy operation does not apply: doc is missing destination path: {path}: missing value"
        ),
        (kind, None) => format!("operation {} at {path} failed: {kind}", error.operation),
    };
    PatchError::JsonPatchFailed { detail }
}
