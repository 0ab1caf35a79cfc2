//! x-kubernetes-list-type set / map uniqueness.

mod common;

use common::run;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

fn schema(list: Value) -> Value {
    json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {"list": list,
        "byName": {"type": "object", "additionalProperties": list}}}}})
}

#[test]
fn set_duplicates_reported_once_at_the_second_occurrence() {
    let set =
        json!({"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}});
    let (errors, _) = run(
        schema(set),
        json!({"spec": {"list": ["a", "b", "a", "a", "b"], "byName": {"k": ["x", "x"]}}}),
    );
    assert_eq!(
        errors,
        // Fields in the object's order (upstream walks a Go map: no fixed order).
        [
            r#"spec.list[2]: Duplicate value: "a""#,
            r#"spec.list[4]: Duplicate value: "b""#,
            r#"spec.byName[k][1]: Duplicate value: "x""#
        ]
    );
}

#[test]
fn map_duplicates_compare_the_key_fields_only() {
    let map = json!({"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["type", "port"],
        "items": {"type": "object", "properties": {"type": {"type": "string"}, "port": {"type": "integer"}, "note": {"type": "string"}}}});
    let (errors, _) = run(
        schema(map),
        json!({"spec": {"list": [
            {"type": "A", "port": 1, "note": "x"}, {"type": "A", "port": 2}, {"port": 1, "type": "A", "note": "y"}
        ]}}),
    );
    assert_eq!(errors, [r#"spec.list[2]: Duplicate value: {"port":1,"type":"A"}"#]);
}

#[test]
fn atomic_lists_allow_duplicates() {
    let atomic = json!({"type": "array", "items": {"type": "string"}});
    let (errors, _) = run(schema(atomic), json!({"spec": {"list": ["a", "a"]}}));
    assert_eq!(errors, Vec::<String>::new());
}
