//! PATCH: JSON patch, merge patch, strategic merge patch (built-in kinds) and server-side
//! apply, computed by `certgate-patch` against the stored object and written with the
//! same steps as an update (`writes`), which recomputes the patch when another write
//! lands between its read and write.

use std::collections::HashMap;

use certgate_patch::{ApplyOptions, PatchType};
use serde_json::Value;

use crate::api::key;
use crate::requester::Requester;
use crate::server::Sandbox;
use crate::status::ApiError;
use crate::target::Target;

use crate::writes::{self, Answer};

fn patch_error(err: &certgate_patch::PatchError) -> ApiError {
    ApiError::new(err.status_code(), err.reason(), err.status_message())
}

pub async fn patch(
    sandbox: &Sandbox,
    target: &Target,
    name: &str,
    requester: &Requester,
    patch_type: PatchType,
    body: &[u8],
    query: &HashMap<String, String>,
) -> Answer {
    let force = query.get("force").is_some_and(|f| f == "true");
    if force && patch_type != PatchType::Apply {
        return Err(ApiError::new(
            422,
            "Invalid",
            "PatchOptions.meta.k8s.io \"\" is invalid: force: Forbidden: may not be specified for non-apply patch",
        ));
    }
    let apply = (patch_type == PatchType::Apply).then(|| ApplyOptions {
        field_manager: query.get("fieldManager").cloned().unwrap_or_default(),
        force,
        time: crate::objects::now(),
        subresource: target.subresource.clone(),
        // Keyed lists and sets of a custom resource merge item by item.
        schema: target.resource.schema.clone(),
    });
    let strategy = certgate_patch::builtin_strategy(&target.resource.group, &target.resource.kind);
    if sandbox.store.get(&key(target, name)).is_none() {
        let Some(options) = &apply else {
            return Err(ApiError::not_found(&target.resource.qualified_plural(), name));
        };
        // Apply creates what does not exist.
        let mut object =
            certgate_patch::apply_patch(&Value::Null, patch_type, body, strategy, Some(options))
                .map_err(|e| patch_error(&e))?;
        check_applied_name(&object, name)?;
        if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
            metadata.insert("name".to_owned(), Value::String(name.to_owned()));
        }
        return writes::create(sandbox, target, requester, object).await;
    }
    writes::update(sandbox, target, name, requester, |current| {
        let patched = certgate_patch::apply_patch(
            &current.object,
            patch_type,
            body,
            strategy,
            apply.as_ref(),
        )
        .map_err(|e| patch_error(&e))?;
        check_applied_name(&patched, name)?;
        Ok(patched)
    })
    .await
}

/// The patched object must still be the one in the URL.
fn check_applied_name(object: &Value, name: &str) -> Result<(), ApiError> {
    match object.pointer("/metadata/name").and_then(Value::as_str) {
        Some(given) if given != name => Err(ApiError::bad_request(format!(
            "the name of the object ({given}) does not match the name on the URL ({name})"
        ))),
        _ => Ok(()),
    }
}
