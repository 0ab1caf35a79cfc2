//! RFC 7386 JSON merge patch.

use serde_json::Value;

use crate::{PatchError, body};

/// Applies a JSON merge patch: objects merge recursively, `null` deletes a key,
/// everything else (lists included) replaces.
pub(crate) fn apply(live: &Value, patch_body: &[u8]) -> Result<Value, PatchError> {
    // Upstream's merge patch library answers both malformed JSON and a `null` patch
    // with the same 400 "Invalid JSON Patch".
    let patch = body::decode_json(patch_body).map_err(|e| match e {
        PatchError::BadRequest(_) => PatchError::BadRequest("Invalid JSON Patch".to_owned()),
        other => other,
    })?;
    match patch {
        Value::Null => Err(PatchError::BadRequest("Invalid JSON Patch".to_owned())),
        Value::Object(_) => {
            let mut patched = live.clone();
            json_patch::merge(&mut patched, &patch);
            Ok(patched)
        }
        // RFC 7386 would replace the whole document, which can never decode back into an
        // object; upstream fails the same request at decoding with 422.
        _ => Err(PatchError::Unprocessable(
            "a merge patch for an object must itself be a JSON object".to_owned(),
        )),
    }
}
