//! Arbitrary bytes as a PATCH body of every patch type, against a ConfigMap (strategic merge
//! with the built-in strategy) and a custom resource (none): `apply_patch` never panics and
//! answers with a patched object or an error carrying an HTTP status. A JSON patch under a
//! small copy budget never grows the object by more than its body plus that budget (the
//! bound that stops copy bombs).
#![no_main]

use certgate_patch::{
    ApplyOptions, JsonPatchLimits, PatchType, apply_json_patch, apply_patch, builtin_strategy,
};
use libfuzzer_sys::fuzz_target;
use serde_json::json;

fuzz_target!(|body: &[u8]| {
    let live = json!({
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "demo", "namespace": "default", "labels": {"a": "b"}, "finalizers": ["x"]},
        "data": {"k": "v"},
    });
    let apply = ApplyOptions { field_manager: "fuzz".to_owned(), ..ApplyOptions::default() };
    for patch_type in [PatchType::Json, PatchType::Merge, PatchType::StrategicMerge, PatchType::Apply] {
        for strategy in [builtin_strategy("", "ConfigMap"), None] {
            let options = (patch_type == PatchType::Apply).then_some(&apply);
            if let Err(err) = apply_patch(&live, patch_type, body, strategy, options) {
                assert!((400..600).contains(&err.status_code()));
            }
        }
    }
    let limits = JsonPatchLimits { max_copy_bytes: 4096, ..JsonPatchLimits::default() };
    if let Ok(patched) = apply_json_patch(&live, body, &limits) {
        let size = |v: &serde_json::Value| serde_json::to_vec(v).map_or(0, |b| b.len());
        assert!(size(&patched) <= size(&live) + body.len() + limits.max_copy_bytes);
    }
});
