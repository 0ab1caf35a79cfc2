//! Pruning of unknown fields, defaulting and null dropping, as the API server does before
//! validating.

mod common;

use common::run;
use pretty_assertions::assert_eq;
use serde_json::json;

#[test]
fn prunes_unknown_fields_at_every_level() {
    let schema = json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "name": {"type": "string"},
        "nested": {"type": "object", "properties": {"keep": {"type": "integer"}}},
        "list": {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "string"}}}},
        "empty": {"type": "object"}
    }}}});
    let (errors, object) = run(
        schema,
        json!({"apiVersion": "g/v1", "kind": "K", "metadata": {"name": "n", "anything": 1}, "extra": true,
            "spec": {"name": "a", "drop": 1, "nested": {"keep": 1, "drop": {"deep": 2}},
                "list": [{"id": "x", "drop": 1}, {"drop": 2}], "empty": {"all": "gone"}}}),
    );
    assert_eq!(errors, Vec::<String>::new());
    assert_eq!(
        object,
        json!({"apiVersion": "g/v1", "kind": "K", "metadata": {"name": "n", "anything": 1},
            "spec": {"name": "a", "nested": {"keep": 1}, "list": [{"id": "x"}, {}], "empty": {}}})
    );
}

#[test]
fn preserve_unknown_fields_keeps_the_subtree_but_validates_known_fields() {
    let schema = json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true, "properties": {"n": {"type": "integer"}}},
        "raw": {"x-kubernetes-preserve-unknown-fields": true}
    }}}});
    let (errors, object) = run(
        schema,
        json!({"spec": {"free": {"n": "x", "other": {"deep": [1, 2]}}, "raw": {"a": {"b": null}}, "gone": 1}}),
    );
    assert_eq!(
        errors,
        [
            r#"spec.free.n: Invalid value: "string": spec.free.n in body must be of type integer: "string""#
        ]
    );
    assert_eq!(
        object,
        json!({"spec": {"free": {"n": "x", "other": {"deep": [1, 2]}}, "raw": {"a": {"b": null}}}})
    );
}

#[test]
fn additional_properties_maps_keep_every_key_and_prune_inside_values() {
    let schema = json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        "ports": {"type": "object", "additionalProperties": {"type": "object", "properties": {"port": {"type": "integer"}}}},
        "any": {"type": "object", "additionalProperties": true}
    }}}});
    let (errors, object) = run(
        schema,
        json!({"spec": {"labels": {"a": "1", "b": "2"}, "ports": {"http": {"port": 80, "junk": 1}},
            "any": {"x": {"y": 1}}}}),
    );
    assert_eq!(errors, Vec::<String>::new());
    assert_eq!(
        object,
        json!({"spec": {"labels": {"a": "1", "b": "2"}, "ports": {"http": {"port": 80}}, "any": {"x": {"y": 1}}}})
    );
}

#[test]
fn embedded_resources_keep_their_type_meta_and_metadata() {
    let schema = json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "template": {"type": "object", "x-kubernetes-embedded-resource": true, "properties": {"data": {"type": "string"}}}
    }}}});
    let (errors, object) = run(
        schema,
        json!({"spec": {"template": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}, "data": "d", "junk": 1}}}),
    );
    assert_eq!(errors, Vec::<String>::new());
    assert_eq!(
        object,
        json!({"spec": {"template": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}, "data": "d"}}})
    );
}

#[test]
fn defaults_fill_absent_and_non_nullable_null_properties_recursively() {
    let schema = json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "replicas": {"type": "integer", "default": 1},
        "mode": {"type": "string", "default": "auto", "enum": ["auto", "manual"]},
        "keep": {"type": "string", "nullable": true, "default": "d"},
        "nested": {"type": "object", "default": {}, "properties": {"inner": {"type": "boolean", "default": true}}},
        "items": {"type": "array", "items": {"type": "object", "properties": {"w": {"type": "integer", "default": 5}}}},
        "dropped": {"type": "string"}
    }}}});
    let (errors, object) = run(
        schema,
        json!({"spec": {"mode": null, "keep": null, "items": [{}, {"w": 2}], "dropped": null}}),
    );
    assert_eq!(errors, Vec::<String>::new());
    assert_eq!(
        object,
        json!({"spec": {"mode": "auto", "keep": null, "items": [{"w": 5}, {"w": 2}], "replicas": 1, "nested": {"inner": true}}})
    );
}

#[test]
fn defaults_do_not_create_absent_parents() {
    let schema = json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "opt": {"type": "object", "properties": {"x": {"type": "integer", "default": 1}}}}}}});
    let (_, object) = run(schema, json!({"spec": {}}));
    assert_eq!(object, json!({"spec": {}}));
}

#[test]
fn defaulted_values_are_validated() {
    let schema = json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "n": {"type": "integer", "minimum": 5, "default": 1}}}}});
    let (errors, _) = run(schema, json!({"spec": {}}));
    assert_eq!(
        errors,
        ["spec.n: Invalid value: 1: spec.n in body should be greater than or equal to 5"]
    );
}
