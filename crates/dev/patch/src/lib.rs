//! Kubernetes patch semantics on JSON objects, for the sandbox API server (development and
//! tests only): RFC 7386 JSON merge patch, RFC 6902 JSON patch, strategic merge patch for
//! the built-in kinds the sandbox serves, and a simplified server-side apply.
//!
//! Everything is a pure function over [`serde_json::Value`]: the HTTP layer passes the
//! live object and the request body and stores what comes back. Errors carry the HTTP
//! status, reason and message the Kubernetes API server would answer with.

#![forbid(unsafe_code)]

mod apply;
mod body;
mod error;
mod fields;
mod json;
mod lists;
mod merge;
mod patch_type;
mod prune;
mod strategic;
mod strategy;
mod walk;

use serde_json::Value;

pub use apply::{ApplyOptions, MAX_FIELD_MANAGER_LEN, apply_create};
pub use body::{MAX_BODY_BYTES, MAX_DEPTH, encoded_len_up_to};
pub use error::{CUSTOM_RESOURCE_PATCH_TYPES, Conflict, GENERIC_UNPROCESSABLE, PatchError};
pub use json::{JsonPatchLimits, MAX_JSON_PATCH_COPY_BYTES, MAX_JSON_PATCH_OPERATIONS};
pub use patch_type::PatchType;
pub use prune::prune_managed_fields;
pub use strategy::{BuiltinStrategy, ListStrategy, MergeStrategy, builtin_strategy};

/// Applies a PATCH request body to the live object and returns the patched object.
///
/// * `strategy` is the kind's strategic merge schema ([`builtin_strategy`]); `None`
///   (a custom resource) makes a strategic merge patch fail with 415 as upstream.
/// * `apply` carries the server-side apply options; it is only read for
///   [`PatchType::Apply`], where `None` fails like a missing `fieldManager` (422).
/// * For [`PatchType::Apply`] a `live` that is not an object (e.g. `Value::Null`) means
///   the object does not exist yet and is created, as the API server does.
pub fn apply_patch(
    live: &Value,
    patch_type: PatchType,
    body: &[u8],
    strategy: Option<&dyn MergeStrategy>,
    apply: Option<&ApplyOptions>,
) -> Result<Value, PatchError> {
    match patch_type {
        PatchType::Apply => apply::apply(live, body, apply, strategy),
        // Fields a patch removed have no owner any more.
        PatchType::Json => json::apply(live, body, &JsonPatchLimits::default()).map(pruned),
        PatchType::Merge => merge::apply(live, body).map(pruned),
        PatchType::StrategicMerge => strategic::apply(live, body, strategy).map(pruned),
    }
}

/// Applies a JSON patch under `limits` instead of the API server's defaults (tests and
/// callers that need tighter bounds).
pub fn apply_json_patch(
    live: &Value,
    body: &[u8],
    limits: &JsonPatchLimits,
) -> Result<Value, PatchError> {
    json::apply(live, body, limits).map(pruned)
}

fn pruned(mut object: Value) -> Value {
    prune_managed_fields(&mut object);
    object
}
