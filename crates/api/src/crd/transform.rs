//! `#[schemars(transform = ...)]` functions used by the resource types.

use schemars::Schema;
use serde_json::{Value, json};

/// For Go `int` fields: upstream CRDs declare them as plain `integer` without the `int64`
/// format schemars derives for `i64`.
pub(crate) fn go_int(schema: &mut Schema) {
    schema.remove("format");
}

/// For a `[]metav1.Condition` field: the per-field validation that `metav1.Condition`
/// declares upstream (and k8s-openapi's schema does not carry), on the list's items.
pub(crate) fn metav1_condition_items(schema: &mut Schema) {
    let properties = schema
        .get_mut("items")
        .and_then(|items| items.get_mut("properties"))
        .and_then(Value::as_object_mut);
    let Some(properties) = properties else {
        return;
    };
    let constraints = [
        ("status", json!({"enum": ["True", "False", "Unknown"]})),
        (
            "type",
            json!({
                "maxLength": 316,
                "pattern": r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$",
            }),
        ),
        (
            "reason",
            json!({
                "maxLength": 1024,
                "minLength": 1,
                "pattern": r"^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$",
            }),
        ),
        ("message", json!({"maxLength": 32768})),
        ("observedGeneration", json!({"minimum": 0})),
    ];
    for (name, extra) in constraints {
        let property = properties.get_mut(name).and_then(Value::as_object_mut);
        if let (Some(property), Value::Object(extra)) = (property, extra) {
            property.extend(extra);
        }
    }
}

/// Marks `names` required. For fields the CRD requires but serde decodes with a default (Go's
/// zero value, so that a request without them still decodes), which schemars would otherwise
/// leave out of `required`.
fn require(schema: &mut Schema, names: &[&str]) {
    let Some(object) = schema.as_object_mut() else { return };
    let required = object.entry("required").or_insert_with(|| Value::Array(Vec::new()));
    if let Value::Array(list) = required {
        for name in names {
            if !list.iter().any(|v| v.as_str() == Some(name)) {
                list.push(Value::from(*name));
            }
        }
    }
}

/// `CertificateRequestSpec`: `issuerRef` and `request` are required upstream.
pub(crate) fn certificate_request_spec_required(schema: &mut Schema) {
    require(schema, &["issuerRef", "request"]);
}

/// `IssuerReference`: `name` is required upstream.
pub(crate) fn issuer_reference_required(schema: &mut Schema) {
    require(schema, &["name"]);
}
