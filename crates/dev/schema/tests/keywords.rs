//! One table row per keyword: the schema, the value, the exact errors the API server reports.

mod common;

use common::run;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

/// A root schema with `spec.field` described by `field`.
fn spec(field: Value) -> Value {
    json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {"field": field}}}})
}

fn errors_for(field: Value, value: Value) -> Vec<String> {
    run(spec(field), json!({"apiVersion": "v1", "kind": "K", "metadata": {"name": "n"}, "spec": {"field": value}})).0
}

#[test]
fn keyword_table() {
    let rows: Vec<(Value, Value, Vec<&str>)> = vec![
        // type
        (
            json!({"type": "integer"}),
            json!("3"),
            vec![
                r#"spec.field: Invalid value: "string": spec.field in body must be of type integer: "string""#,
            ],
        ),
        (
            json!({"type": "integer"}),
            json!(1.5),
            vec![
                r#"spec.field: Invalid value: "number": spec.field in body must be of type integer: "number""#,
            ],
        ),
        (json!({"type": "integer"}), json!(2.0), vec![]),
        (json!({"type": "number"}), json!(2), vec![]),
        (
            json!({"type": "string"}),
            json!(true),
            vec![
                r#"spec.field: Invalid value: "boolean": spec.field in body must be of type string: "boolean""#,
            ],
        ),
        (
            json!({"type": "boolean"}),
            json!({}),
            vec![
                r#"spec.field: Invalid value: "object": spec.field in body must be of type boolean: "object""#,
            ],
        ),
        (
            json!({"type": "object"}),
            json!([]),
            vec![
                r#"spec.field: Invalid value: "array": spec.field in body must be of type object: "array""#,
            ],
        ),
        (
            json!({"type": "array", "items": {"type": "string"}}),
            json!("x"),
            vec![
                r#"spec.field: Invalid value: "string": spec.field in body must be of type array: "string""#,
            ],
        ),
        (
            json!({"type": "array", "items": {"type": "string"}}),
            json!(["a", 1]),
            vec![
                r#"spec.field[1]: Invalid value: "integer": spec.field[1] in body must be of type string: "integer""#,
            ],
        ),
        // A type mismatch on a number with a format names the format (upstream quirk).
        (
            json!({"type": "integer", "format": "int32"}),
            json!(true),
            vec![r#"spec.field: Invalid value: "": spec.field in body must be of type int32: """#],
        ),
        (
            json!({"type": "integer", "format": "int32"}),
            json!("7"),
            vec![
                r#"spec.field: Invalid value: "string": spec.field in body must be of type integer: "string""#,
            ],
        ),
        // int32/int64 are not range-checked by the API server.
        (json!({"type": "integer", "format": "int32"}), json!(4_294_967_296_i64), vec![]),
        (json!({"type": "integer", "format": "int64"}), json!(-5), vec![]),
        // formats on strings
        (json!({"type": "string", "format": "date-time"}), json!("2026-01-02T03:04:05Z"), vec![]),
        (
            json!({"type": "string", "format": "date-time"}),
            json!("2026-01-02T03:04:05.123+02:00"),
            vec![],
        ),
        (
            json!({"type": "string", "format": "date-time"}),
            json!("yesterday"),
            vec![
                r#"spec.field: Invalid value: "yesterday": spec.field in body must be of type date-time: "yesterday""#,
            ],
        ),
        (
            json!({"type": "string", "format": "date"}),
            json!("2026-02-30"),
            vec![
                r#"spec.field: Invalid value: "2026-02-30": spec.field in body must be of type date: "2026-02-30""#,
            ],
        ),
        (json!({"type": "string", "format": "byte"}), json!("aGVsbG8=\n"), vec![]),
        (
            json!({"type": "string", "format": "byte"}),
            json!("%%%"),
            vec![
                r#"spec.field: Invalid value: "%%%": spec.field in body must be of type byte: "%%%""#,
            ],
        ),
        (json!({"type": "string", "format": "int32"}), json!("anything"), vec![]),
        (json!({"type": "string", "format": "hostname-ish"}), json!("anything"), vec![]),
        // enum
        (
            json!({"type": "string", "enum": ["a", "b"]}),
            json!("x"),
            vec![r#"spec.field: Unsupported value: "x": supported values: "a", "b""#],
        ),
        (
            json!({"type": "integer", "enum": [1, 2]}),
            json!(3),
            vec![r#"spec.field: Unsupported value: 3: supported values: "1", "2""#],
        ),
        (json!({"type": "integer", "enum": [1, 2]}), json!(2), vec![]),
        // numeric bounds
        (
            json!({"type": "integer", "minimum": 1}),
            json!(0),
            vec![
                "spec.field: Invalid value: 0: spec.field in body should be greater than or equal to 1",
            ],
        ),
        (
            json!({"type": "integer", "minimum": 1, "exclusiveMinimum": true}),
            json!(1),
            vec!["spec.field: Invalid value: 1: spec.field in body should be greater than 1"],
        ),
        (
            json!({"type": "integer", "maximum": 65535}),
            json!(65536),
            vec![
                "spec.field: Invalid value: 65536: spec.field in body should be less than or equal to 65535",
            ],
        ),
        (
            json!({"type": "integer", "maximum": 10, "exclusiveMaximum": true}),
            json!(10),
            vec!["spec.field: Invalid value: 10: spec.field in body should be less than 10"],
        ),
        (
            json!({"type": "integer", "maximum": 1000000}),
            json!(1000001),
            vec![
                "spec.field: Invalid value: 1000001: spec.field in body should be less than or equal to 1000000",
            ],
        ),
        (
            json!({"type": "number", "maximum": 1000000}),
            json!(1000000.5),
            vec![
                "spec.field: Invalid value: 1000000.5: spec.field in body should be less than or equal to 1e+06",
            ],
        ),
        (
            json!({"type": "number", "minimum": 0.5}),
            json!(0.25),
            vec![
                "spec.field: Invalid value: 0.25: spec.field in body should be greater than or equal to 0.5",
            ],
        ),
        (
            json!({"type": "integer", "multipleOf": 5}),
            json!(12),
            vec!["spec.field: Invalid value: 12: spec.field in body should be a multiple of 5"],
        ),
        (json!({"type": "number", "multipleOf": 0.5}), json!(1.5), vec![]),
        (
            json!({"type": "number", "multipleOf": 0.5}),
            json!(1.25),
            vec!["spec.field: Invalid value: 1.25: spec.field in body should be a multiple of 0.5"],
        ),
        // string length and pattern: the first failure only
        (
            json!({"type": "string", "maxLength": 3}),
            json!("abcd"),
            vec!["spec.field: Too long: may not be more than 3 bytes"],
        ),
        (
            json!({"type": "string", "maxLength": 1}),
            json!("ab"),
            vec!["spec.field: Too long: may not be more than 1 byte"],
        ),
        (json!({"type": "string", "maxLength": 3}), json!("äöü"), vec![]),
        (
            json!({"type": "string", "minLength": 3}),
            json!("ab"),
            vec![
                r#"spec.field: Invalid value: "ab": spec.field in body should be at least 3 chars long"#,
            ],
        ),
        (
            json!({"type": "string", "pattern": "^[a-z]+$"}),
            json!("A1"),
            vec![r#"spec.field: Invalid value: "A1": spec.field in body should match '^[a-z]+$'"#],
        ),
        (json!({"type": "string", "pattern": "[0-9]"}), json!("ab1"), vec![]),
        (
            json!({"type": "string", "maxLength": 2, "pattern": "^z"}),
            json!("abc"),
            vec!["spec.field: Too long: may not be more than 2 bytes"],
        ),
        // items counts: items first, then the count
        (
            json!({"type": "array", "items": {"type": "string"}, "minItems": 2}),
            json!(["a"]),
            vec![
                r#"spec.field: Invalid value: 1: spec.field in body should have at least 2 items"#,
            ],
        ),
        (
            json!({"type": "array", "items": {"type": "string"}, "maxItems": 1}),
            json!(["a", "b", 3]),
            vec![
                r#"spec.field[2]: Invalid value: "integer": spec.field[2] in body must be of type string: "integer""#,
                "spec.field: Too many: 3: must have at most 1 item",
            ],
        ),
        (
            json!({"type": "array", "items": {"type": "string"}, "maxItems": 2}),
            json!(["a", "b", "c"]),
            vec!["spec.field: Too many: 3: must have at most 2 items"],
        ),
        // property counts end the object's validation
        (
            json!({"type": "object", "additionalProperties": {"type": "string"}, "minProperties": 1}),
            json!({}),
            vec![
                "spec.field: Invalid value: 0: spec.field in body should have at least 1 properties",
            ],
        ),
        (
            json!({"type": "object", "additionalProperties": {"type": "string"}, "maxProperties": 1}),
            json!({"a": "x", "b": 2}),
            vec!["spec.field: Too many: 2: must have at most 1 item"],
        ),
        // required
        (
            json!({"type": "object", "required": ["b", "a"], "properties": {"a": {"type": "string"}, "b": {"type": "string"}}}),
            json!({}),
            vec!["spec.field.b: Required value", "spec.field.a: Required value"],
        ),
        // additionalProperties values are validated, with dotted names
        (
            json!({"type": "object", "additionalProperties": {"type": "integer"}}),
            json!({"x": 1, "y": "2"}),
            vec![
                r#"spec.field.y: Invalid value: "string": spec.field.y in body must be of type integer: "string""#,
            ],
        ),
        // int-or-string
        (json!({"x-kubernetes-int-or-string": true}), json!(3), vec![]),
        (json!({"x-kubernetes-int-or-string": true}), json!("25%"), vec![]),
        (
            json!({"x-kubernetes-int-or-string": true}),
            json!(true),
            vec![
                r#"spec.field: Invalid value: "boolean": spec.field in body must be of type integer,string: "boolean""#,
            ],
        ),
        (
            json!({"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}], "pattern": "^[0-9]+%?$"}),
            json!("12%"),
            vec![],
        ),
        (
            json!({"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}], "pattern": "^[0-9]+%?$"}),
            json!(12),
            vec![],
        ),
        (
            json!({"x-kubernetes-int-or-string": true, "pattern": "^[0-9]+%?$"}),
            json!("lots"),
            vec![
                r#"spec.field: Invalid value: "lots": spec.field in body should match '^[0-9]+%?$'"#,
            ],
        ),
        // preserve-unknown-fields without a type accepts anything
        (json!({"x-kubernetes-preserve-unknown-fields": true}), json!([1, {"a": null}]), vec![]),
    ];
    for (field, value, expected) in rows {
        assert_eq!(
            errors_for(field.clone(), value.clone()),
            expected,
            "schema {field} value {value}"
        );
    }
}

#[test]
fn nulls_in_items_and_nullable_fields() {
    let items = json!({"type": "array", "items": {"type": "string"}});
    assert_eq!(
        errors_for(items, json!(["a", null])),
        [
            r#"spec.field[1]: Invalid value: "null": spec.field[1] in body must be of type string: "null""#
        ]
    );
    let nullable_items = json!({"type": "array", "items": {"type": "string", "nullable": true}});
    assert_eq!(errors_for(nullable_items, json!(["a", null])), Vec::<String>::new());
    let nullable_enum = json!({"type": "string", "nullable": true, "enum": ["a"]});
    let (errors, object) = run(spec(nullable_enum), json!({"spec": {"field": null}}));
    assert_eq!(errors, Vec::<String>::new());
    assert_eq!(object["spec"]["field"], Value::Null, "a nullable null is kept");
}

#[test]
fn errors_come_in_upstream_order_across_fields() {
    let schema = json!({"type": "object", "properties": {"spec": {"type": "object", "required": ["z"],
        "properties": {"b": {"type": "string", "enum": ["x"]}, "a": {"type": "integer", "minimum": 5}, "z": {"type": "string"}}}}});
    let (errors, _) = run(schema, json!({"spec": {"b": 1, "a": 2}}));
    assert_eq!(
        errors,
        [
            "spec.a: Invalid value: 2: spec.a in body should be greater than or equal to 5",
            r#"spec.b: Invalid value: "integer": spec.b in body must be of type string: "integer""#,
            r#"spec.b: Unsupported value: 1: supported values: "x""#,
            "spec.z: Required value",
        ]
    );
}

#[test]
fn root_metadata_and_type_meta_are_not_validated() {
    let schema = json!({"type": "object", "required": ["spec"], "properties": {
        "apiVersion": {"type": "string"}, "kind": {"type": "string"},
        "metadata": {"type": "object", "properties": {"name": {"type": "string", "maxLength": 3}}},
        "spec": {"type": "object"}}});
    let object = json!({"apiVersion": "g/v1", "kind": "K", "metadata": {"name": "long-name", "labels": {"a": "b"}}});
    let (errors, after) = run(schema, object.clone());
    assert_eq!(errors, ["spec: Required value"]);
    assert_eq!(after, object, "metadata kept whole");
}
