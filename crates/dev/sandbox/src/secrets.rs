//! What kube-apiserver does to every Secret it is given: `stringData` folded into `data` and
//! `type` defaulted when the body is decoded (so admission webhooks and readers only ever see
//! `data`), and `immutable: true` enforced on updates.

use base64::Engine as _;
use serde_json::{Value, json};

use crate::status::ApiError;
use crate::target::Target;

/// The one message upstream gives for every change to an immutable Secret.
const IMMUTABLE: &str = "field is immutable when `immutable` is set";

pub(crate) fn is_secret(target: &Target) -> bool {
    target.resource.group.is_empty() && target.resource.plural == "secrets"
}

/// Decoding of a Secret body: each `stringData` entry replaces the `data` entry of the same
/// key (base64 of its bytes), `stringData` itself is not stored, and an absent or empty `type`
/// is `Opaque`. A `stringData` value that is not a string is left for the typed decoding's
/// error.
pub(crate) fn decode(object: &mut Value) {
    let Some(map) = object.as_object_mut() else { return };
    if let Some(Value::Object(strings)) = map.get("stringData") {
        let strings: Vec<(String, String)> = strings
            .iter()
            .filter_map(|(key, value)| Some((key.clone(), value.as_str()?.to_owned())))
            .collect();
        let data = map.entry("data").or_insert_with(|| json!({}));
        if data.is_null() {
            *data = json!({});
        }
        if let Some(data) = data.as_object_mut() {
            for (key, text) in strings {
                let encoded = base64::engine::general_purpose::STANDARD.encode(text.as_bytes());
                data.insert(key, Value::String(encoded));
            }
        }
        map.shift_remove("stringData");
    }
    if map.get("type").and_then(Value::as_str).is_none_or(str::is_empty) {
        map.insert("type".to_owned(), json!("Opaque"));
    }
}

/// Updates of a Secret whose stored form has `immutable: true`: neither `immutable` nor
/// `data` may change (upstream's field errors, in its order).
pub(crate) fn check_update(new: &Value, old: &Value) -> Result<(), ApiError> {
    if old.get("immutable") != Some(&Value::Bool(true)) {
        return Ok(());
    }
    let mut fields = Vec::new();
    if new.get("immutable") != Some(&Value::Bool(true)) {
        fields.push("immutable");
    }
    if new.get("data") != old.get("data") {
        fields.push("data");
    }
    if fields.is_empty() {
        return Ok(());
    }
    let texts: Vec<String> =
        fields.iter().map(|f| format!("{f}: Forbidden: {IMMUTABLE}")).collect();
    let Some(aggregate) = certgate_api::field::aggregate_texts(texts) else { return Ok(()) };
    let causes = fields
        .iter()
        .map(|f| json!({"reason": "FieldValueForbidden", "message": format!("Forbidden: {IMMUTABLE}"), "field": f}))
        .collect();
    let name = new.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default();
    Err(ApiError::invalid("Secret", "", "Secret", name, &aggregate, Some(causes)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_data_replaces_data_keys_and_type_defaults_to_opaque() {
        let mut secret = json!({"kind": "Secret", "data": {"a": "eA==", "b": "eQ=="},
            "stringData": {"b": "hunter2", "c": ""}});
        decode(&mut secret);
        assert_eq!(
            secret,
            json!({"kind": "Secret", "data": {"a": "eA==", "b": "aHVudGVyMg==", "c": ""}, "type": "Opaque"})
        );
        let mut typed =
            json!({"type": "kubernetes.io/tls", "data": null, "stringData": {"k": "v"}});
        decode(&mut typed);
        assert_eq!(typed, json!({"type": "kubernetes.io/tls", "data": {"k": "dg=="}}));
    }

    #[test]
    fn an_immutable_secret_keeps_its_data_and_its_immutability() {
        let old = json!({"metadata": {"name": "frozen"}, "immutable": true, "data": {"k": "dg=="}});
        assert!(check_update(&old, &old).is_ok());
        let mutable = json!({"metadata": {"name": "frozen"}, "data": {"k": "dg=="}});
        assert!(check_update(&mutable, &mutable).is_ok());
        let changed =
            json!({"metadata": {"name": "frozen"}, "immutable": false, "data": {"k": "dw=="}});
        let error = check_update(&changed, &old).unwrap_err();
        let body = error.body();
        assert_eq!(
            body["message"],
            "Secret \"frozen\" is invalid: [immutable: Forbidden: field is immutable when `immutable` is set, data: Forbidden: field is immutable when `immutable` is set]"
        );
        assert_eq!(body["details"]["causes"][1]["field"], "data");
    }
}
