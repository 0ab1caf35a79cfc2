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

/// `CertificateSpec`: `issuerRef` and `secretName` are required upstream.
pub(crate) fn certificate_spec_required(schema: &mut Schema) {
    require(schema, &["issuerRef", "secretName"]);
}

/// `IssuerReference`: `name` is required upstream.
pub(crate) fn issuer_reference_required(schema: &mut Schema) {
    require(schema, &["name"]);
}

/// `schema_with` for a `serde_json::Value` field holding any object, kept as written
/// (`runtime.RawExtension` and embedded metadata upstream).
pub(crate) fn preserved_object(_: &mut schemars::SchemaGenerator) -> Schema {
    schemars::json_schema!({
        "type": "object",
        "x-kubernetes-preserve-unknown-fields": true,
    })
}

/// Sets `x-kubernetes-list-type: atomic` on `values` in a `metav1.LabelSelectorRequirement`
/// list's item schema, as upstream declares it.
fn atomic_requirement_values(items: Option<&mut Value>) {
    let values = items
        .and_then(|items| items.get_mut("properties"))
        .and_then(|properties| properties.get_mut("values"))
        .and_then(Value::as_object_mut);
    if let Some(values) = values {
        values.insert("x-kubernetes-list-type".into(), Value::from("atomic"));
    }
}

/// For a `[]metav1.LabelSelectorRequirement` field: its items' `values` are atomic lists.
pub(crate) fn requirement_items_atomic_values(schema: &mut Schema) {
    atomic_requirement_values(schema.get_mut("items"));
}

/// For a `metav1.LabelSelector` field: the list and map types upstream's `LabelSelector`
/// declares (the selector and its `matchExpressions` are atomic, and so are their `values`).
pub(crate) fn atomic_label_selector(schema: &mut Schema) {
    schema.insert("x-kubernetes-map-type".into(), Value::from("atomic"));
    let expressions = schema
        .get_mut("properties")
        .and_then(|properties| properties.get_mut("matchExpressions"))
        .and_then(Value::as_object_mut);
    if let Some(expressions) = expressions {
        expressions.insert("x-kubernetes-list-type".into(), Value::from("atomic"));
        atomic_requirement_values(expressions.get_mut("items"));
    }
}

/// The pattern upstream CRDs give a `resource.Quantity` (controller-gen's).
const QUANTITY_PATTERN: &str = r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$";

/// For a `map[...]resource.Quantity` field: the quantity pattern on the map's values.
pub(crate) fn quantity_values(schema: &mut Schema) {
    let values = schema.get_mut("additionalProperties").and_then(Value::as_object_mut);
    if let Some(values) = values {
        values.insert("pattern".into(), Value::from(QUANTITY_PATTERN));
    }
}
