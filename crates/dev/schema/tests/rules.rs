//! `x-kubernetes-validations` and the reporting of pruned fields, with kube-apiserver
//! 1.37's texts (probed on the real server).

use certgate_schema::{Schema, SchemaError};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

fn schema(spec: Value) -> Schema {
    Schema::compile(&json!({"type": "object", "properties": {"spec": spec}})).unwrap()
}

fn errors(schema: &Schema, spec: Value, old: Option<Value>) -> Vec<String> {
    let mut object = json!({"metadata": {"name": "n"}, "spec": spec});
    let old = old.map(|spec| json!({"metadata": {"name": "n"}, "spec": spec}));
    schema
        .validate_update(&mut object, old.as_ref())
        .errors
        .iter()
        .map(ToString::to_string)
        .collect()
}

#[test]
fn pruned_fields_are_reported_sorted_with_list_indexes() {
    let schema = schema(json!({"type": "object", "properties": {
        "items": {"type": "array", "items": {"type": "object", "properties": {"x": {"type": "string"}}}},
        "labels": {"type": "object", "additionalProperties": {"type": "object", "properties": {"v": {"type": "string"}}}}
    }}));
    let object = json!({"metadata": {"name": "n", "kept": 1}, "bogus": 1,
        "spec": {"zeta": 1, "items": [{"x": "a", "y": 1}, {"z": 2}], "labels": {"k": {"v": "a", "w": 1}}, "Bogus": 1}});
    assert_eq!(
        schema.unknown_fields(&object),
        [
            "bogus",
            "spec.Bogus",
            "spec.items[0].y",
            "spec.items[1].z",
            "spec.labels[k].w",
            "spec.zeta"
        ]
    );
    let mut pruned = object.clone();
    let outcome = schema.validate_update(&mut pruned, None);
    assert_eq!(outcome.unknown_fields, schema.unknown_fields(&object));
    assert_eq!(pruned["spec"], json!({"items": [{"x": "a"}, {}], "labels": {"k": {"v": "a"}}}));
}

#[test]
fn rules_report_like_the_api_server() {
    let schema = schema(json!({"type": "object",
    "x-kubernetes-validations": [
        {"rule": "!has(self.a) || has(self.b)", "reason": "FieldValueForbidden", "fieldPath": ".b", "message": "b is required when a is set"},
        {"rule": "!has(self.size) || self.size != 7"}
    ],
    "properties": {
        "a": {"type": "string"}, "b": {"type": "string"},
        "replicas": {"type": "integer", "x-kubernetes-validations": [{"rule": "self >= 0", "message": "replicas must not be negative"}]},
        "size": {"type": "integer", "x-kubernetes-validations": [{"rule": "self < 10", "messageExpression": "'size ' + (self > 100 ? 'far above' : 'above') + ' the limit'"}]},
        "items": {"type": "array", "items": {"type": "string"}, "x-kubernetes-validations": [{"rule": "self.size() <= 2", "message": "at most two items"}]}
    }}));
    assert_eq!(
        errors(&schema, json!({"a": "x", "replicas": -1, "size": 200}), None),
        [
            "spec.b: Forbidden: b is required when a is set",
            "spec.replicas: Invalid value: -1: replicas must not be negative",
            "spec.size: Invalid value: 200: size far above the limit",
        ]
    );
    assert_eq!(
        errors(&schema, json!({"size": 7, "items": ["a", "b", "c"]}), None),
        [
            "spec: Invalid value: failed rule: !has(self.size) || self.size != 7",
            "spec.items: Invalid value: at most two items",
        ]
    );
    assert_eq!(errors(&schema, json!({"a": "x", "b": "y", "size": 3}), None), Vec::<String>::new());
}

#[test]
fn transition_rules_need_an_old_value() {
    let schema = schema(json!({"type": "object", "properties": {
        "name": {"type": "string", "x-kubernetes-validations": [{"rule": "self == oldSelf", "message": "name is immutable"}]}
    }}));
    assert_eq!(errors(&schema, json!({"name": "m"}), None), Vec::<String>::new());
    assert_eq!(errors(&schema, json!({"name": "m"}), Some(json!({}))), Vec::<String>::new());
    assert_eq!(
        errors(&schema, json!({"name": "m"}), Some(json!({"name": "n"}))),
        [r#"spec.name: Invalid value: "m": name is immutable"#]
    );
}

#[test]
fn rules_do_not_run_on_values_of_the_wrong_type() {
    let schema = schema(json!({"type": "object", "properties": {
        "replicas": {"type": "integer", "x-kubernetes-validations": [{"rule": "self >= 0"}]}
    }}));
    assert_eq!(
        errors(&schema, json!({"replicas": "x"}), None),
        [
            r#"spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string""#,
            "<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
        ]
    );
}

#[test]
fn a_runaway_rule_is_stopped_by_the_cost_limit() {
    let schema = schema(json!({"type": "object", "properties": {
        "items": {"type": "array", "items": {"type": "string"}, "x-kubernetes-validations": [
            {"rule": "self.all(a, self.all(b, self.all(c, a + b + c != '')))"}]}
    }}));
    let many: Vec<Value> = (0..300).map(|i| json!(format!("item-{i}"))).collect();
    let found = errors(&schema, json!({"items": many}), None);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("cost limit exceeded"), "{found:?}");
}

#[test]
fn rules_that_do_not_compile_refuse_the_schema() {
    let refused = Schema::compile(&json!({"type": "object", "properties": {"spec": {
        "type": "object", "x-kubernetes-validations": [{"rule": "self.a =="}]}}}));
    assert!(matches!(refused, Err(SchemaError::Rule { .. })), "{refused:?}");
    let refused = Schema::compile(&json!({"type": "object", "properties": {"spec": {
        "type": "object", "x-kubernetes-validations": [{"rule": "true", "reason": "Nope"}]}}}));
    assert!(matches!(refused, Err(SchemaError::Rule { .. })), "{refused:?}");
}

/// Probed: items of a `map` list correlate with the old item of the same key, wherever it
/// was; a new key has no old value.
#[test]
fn transition_rules_correlate_map_list_items_by_key() {
    let schema = schema(json!({"type": "object", "properties": {"ports": {
        "type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
        "items": {"type": "object", "required": ["name"],
            "x-kubernetes-validations": [{"rule": "self.port == oldSelf.port", "message": "port is immutable"}],
            "properties": {"name": {"type": "string"}, "port": {"type": "integer"}}}}}}));
    let old = json!({"ports": [{"name": "a", "port": 1}, {"name": "b", "port": 2}]});
    assert_eq!(
        errors(
            &schema,
            json!({"ports": [{"name": "b", "port": 3}, {"name": "a", "port": 1}, {"name": "c", "port": 9}]}),
            Some(old.clone())
        ),
        ["spec.ports[0]: Invalid value: port is immutable"]
    );
    assert_eq!(
        errors(
            &schema,
            json!({"ports": [{"name": "b", "port": 2}, {"name": "c", "port": 9}]}),
            Some(old)
        ),
        Vec::<String>::new()
    );
}

/// Probed: with `optionalOldSelf` a transition rule runs on creates and where the old object
/// had no value, `oldSelf` being an empty optional there.
#[test]
fn optional_old_self_rules_run_without_an_old_value() {
    let schema = schema(json!({"type": "object", "properties": {"count": {"type": "integer",
        "x-kubernetes-validations": [
            {"rule": "oldSelf.hasValue() || self == 1", "message": "must start at 1", "optionalOldSelf": true},
            {"rule": "!oldSelf.hasValue() || self >= oldSelf.value()", "message": "may only grow", "optionalOldSelf": true}]}}}));
    assert_eq!(
        errors(&schema, json!({"count": 2}), None),
        ["spec.count: Invalid value: 2: must start at 1"]
    );
    assert_eq!(errors(&schema, json!({"count": 1}), None), Vec::<String>::new());
    assert_eq!(
        errors(&schema, json!({"count": 0}), Some(json!({"count": 1}))),
        ["spec.count: Invalid value: 0: may only grow"]
    );
    assert_eq!(
        errors(&schema, json!({"count": 5}), Some(json!({"count": 1}))),
        Vec::<String>::new()
    );
    assert_eq!(
        errors(&schema, json!({"count": 7}), Some(json!({}))),
        ["spec.count: Invalid value: 7: must start at 1"]
    );
}
