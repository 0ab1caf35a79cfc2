//! Malformed and non-structural schemas are refused with errors saying where and why.

use certgate_schema::{MAX_DEPTH, Schema, SchemaError};
use serde_json::{Value, json};

fn error(schema: Value) -> String {
    match Schema::compile(&schema) {
        Ok(_) => panic!("{schema} compiled"),
        Err(e) => e.to_string(),
    }
}

fn under_spec(field: Value) -> Value {
    json!({"type": "object", "properties": {"spec": field}})
}

#[test]
fn refusals() {
    let rows = [
        (
            json!({"type": "string"}),
            "openAPIV3Schema: not a structural schema: the root must have type: object; fix the CRD's openAPIV3Schema",
        ),
        (json!("object"), "openAPIV3Schema: must be a JSON object (a schema), found string"),
        (
            under_spec(json!({"properties": {}})),
            "openAPIV3Schema.properties[spec]: not a structural schema: `type` is required (unless x-kubernetes-int-or-string or x-kubernetes-preserve-unknown-fields is true); fix the CRD's openAPIV3Schema",
        ),
        (
            under_spec(json!({"type": "map"})),
            r#"openAPIV3Schema.properties[spec]: unsupported type "map"; use object, array, string, integer, number or boolean"#,
        ),
        (
            under_spec(json!({"type": "array"})),
            "openAPIV3Schema.properties[spec]: not a structural schema: `items` is required for type: array; fix the CRD's openAPIV3Schema",
        ),
        (
            under_spec(json!({"type": "array", "items": [{"type": "string"}]})),
            "openAPIV3Schema.properties[spec]: not a structural schema: `items` must be a single schema, not a list; fix the CRD's openAPIV3Schema",
        ),
        (
            under_spec(json!({"type": "object", "additionalProperties": false})),
            "openAPIV3Schema.properties[spec]: not a structural schema: `additionalProperties: false` is not allowed; fix the CRD's openAPIV3Schema",
        ),
        (
            under_spec(
                json!({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "string"}}),
            ),
            "openAPIV3Schema.properties[spec]: not a structural schema: `properties` and `additionalProperties` are mutually exclusive; fix the CRD's openAPIV3Schema",
        ),
        (
            under_spec(json!({"$ref": "#/definitions/x"})),
            "openAPIV3Schema.properties[spec]: not a structural schema: `$ref` is not allowed in a CRD schema; fix the CRD's openAPIV3Schema",
        ),
        (
            under_spec(json!({"type": "array", "items": {"type": "string"}, "uniqueItems": true})),
            "openAPIV3Schema.properties[spec]: not a structural schema: `uniqueItems: true` is not allowed; use x-kubernetes-list-type: set; fix the CRD's openAPIV3Schema",
        ),
        (
            under_spec(json!({"type": "object", "anyOf": [{"type": "object"}]})),
            "openAPIV3Schema.properties[spec].anyOf[0]: not a structural schema: `type` is not allowed inside allOf, anyOf, oneOf or not; fix the CRD's openAPIV3Schema",
        ),
        (
            under_spec(json!({"type": "object", "oneOf": [{"default": {}}]})),
            "openAPIV3Schema.properties[spec].oneOf[0]: not a structural schema: `default` is not allowed inside allOf, anyOf, oneOf or not; fix the CRD's openAPIV3Schema",
        ),
        (
            under_spec(json!({"type": "string", "maxLength": -1})),
            "openAPIV3Schema.properties[spec]: `maxLength` must be a non-negative integer",
        ),
        (
            under_spec(json!({"type": "string", "required": "a"})),
            "openAPIV3Schema.properties[spec]: `required` must be an array",
        ),
        (
            under_spec(json!({"type": "integer", "multipleOf": 0})),
            "openAPIV3Schema.properties[spec]: `multipleOf` must be a number greater than 0",
        ),
        (
            under_spec(
                json!({"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "map"}),
            ),
            "openAPIV3Schema.properties[spec]: not a structural schema: x-kubernetes-list-type: map needs x-kubernetes-list-map-keys; fix the CRD's openAPIV3Schema",
        ),
        (
            under_spec(
                json!({"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "bag"}),
            ),
            "openAPIV3Schema.properties[spec]: `x-kubernetes-list-type` must be one of atomic, set or map",
        ),
    ];
    for (schema, expected) in rows {
        assert_eq!(error(schema.clone()), expected, "{schema}");
    }
}

#[test]
fn bad_patterns_name_the_pattern() {
    let err = Schema::compile(&under_spec(json!({"type": "string", "pattern": "(unclosed"})))
        .expect_err("bad pattern");
    assert!(
        matches!(&err, SchemaError::Pattern { pattern, .. } if pattern == "(unclosed"),
        "{err}"
    );
    assert!(
        err.to_string().starts_with(
            r#"openAPIV3Schema.properties[spec]: pattern "(unclosed" does not compile"#
        ),
        "{err}"
    );
}

#[test]
fn nesting_is_bounded() {
    let mut schema = json!({"type": "string"});
    for _ in 0..MAX_DEPTH {
        schema = json!({"type": "object", "properties": {"a": schema}});
    }
    assert!(Schema::compile(&schema).is_ok(), "{MAX_DEPTH} levels compile");
    let deeper = json!({"type": "object", "properties": {"a": schema}});
    let err = Schema::compile(&deeper).expect_err("too deep");
    assert!(matches!(err, SchemaError::TooDeep { max: MAX_DEPTH, .. }), "{err}");
}

#[test]
fn compiled_schemas_can_be_shared_between_request_threads() {
    fn shareable<T: Send + Sync + Clone>() {}
    shareable::<Schema>();
}
