//! allOf / anyOf / oneOf / not as value validations, reported as upstream does: a field-less
//! `<nil>` error naming the path, then the closest branch's errors.

mod common;

use common::run;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

fn spec(extra: Value) -> Value {
    let mut spec = json!({"type": "object", "properties": {
        "ca": {"type": "object"}, "vault": {"type": "object"}, "acme": {"type": "object"},
        "size": {"type": "integer"}}});
    if let (Some(spec), Some(extra)) = (spec.as_object_mut(), extra.as_object()) {
        spec.extend(extra.clone());
    }
    json!({"type": "object", "properties": {"spec": spec}})
}

fn errors(extra: Value, spec_value: Value) -> Vec<String> {
    run(spec(extra), json!({"spec": spec_value})).0
}

#[test]
fn one_of_required() {
    let one_of =
        json!({"oneOf": [{"required": ["ca"]}, {"required": ["vault"]}, {"required": ["acme"]}]});
    assert_eq!(errors(one_of.clone(), json!({"ca": {}})), Vec::<String>::new());
    assert_eq!(
        errors(one_of.clone(), json!({"ca": {}, "vault": {}})),
        [
            r#"<nil>: Invalid value: "": "spec" must validate one and only one schema (oneOf). Found 2 valid alternatives"#
        ]
    );
    assert_eq!(
        errors(one_of, json!({})),
        [
            r#"<nil>: Invalid value: "": "spec" must validate one and only one schema (oneOf). Found none valid"#,
            "spec.ca: Required value"
        ]
    );
}

#[test]
fn any_of_required() {
    let any_of = json!({"anyOf": [{"required": ["ca"]}, {"required": ["vault"]}]});
    assert_eq!(errors(any_of.clone(), json!({"vault": {}})), Vec::<String>::new());
    assert_eq!(
        errors(any_of, json!({"size": 1})),
        [
            r#"<nil>: Invalid value: "": "spec" must validate at least one schema (anyOf)"#,
            "spec.ca: Required value"
        ]
    );
}

#[test]
fn all_of_and_not() {
    let all_of = json!({"allOf": [{"required": ["ca"]}, {"required": ["size"]}]});
    assert_eq!(errors(all_of.clone(), json!({"ca": {}, "size": 1})), Vec::<String>::new());
    assert_eq!(
        errors(all_of.clone(), json!({"ca": {}})),
        [
            "spec.size: Required value",
            r#"<nil>: Invalid value: "": "spec" must validate all the schemas (allOf)"#
        ]
    );
    assert_eq!(
        errors(all_of, json!({})),
        [
            "spec.ca: Required value",
            "spec.size: Required value",
            r#"<nil>: Invalid value: "": "spec" must validate all the schemas (allOf). None validated"#
        ]
    );
    let not = json!({"not": {"required": ["acme"]}});
    assert_eq!(errors(not.clone(), json!({"ca": {}})), Vec::<String>::new());
    assert_eq!(
        errors(not, json!({"acme": {}})),
        [r#"<nil>: Invalid value: "": "spec" must not validate the schema (not)"#]
    );
}

#[test]
fn junctor_branches_may_constrain_nested_properties() {
    let any_of =
        json!({"anyOf": [{"properties": {"size": {"minimum": 10}}}, {"required": ["ca"]}]});
    assert_eq!(errors(any_of.clone(), json!({"size": 20})), Vec::<String>::new());
    assert_eq!(
        errors(any_of, json!({"size": 2})),
        [
            r#"<nil>: Invalid value: "": "spec" must validate at least one schema (anyOf)"#,
            "spec.size: Invalid value: 2: spec.size in body should be greater than or equal to 10"
        ]
    );
}

#[test]
fn issuer_one_of_from_cert_manager_crd() {
    let schema = common::upstream_schema("cert-manager.io_issuers.yaml", "Issuer");
    let mut ok = json!({"apiVersion": "cert-manager.io/v1", "kind": "Issuer", "metadata": {"name": "i"},
        "spec": {"ca": {"secretName": "ca-key"}}});
    assert_eq!(common::texts(&schema.validate(&mut ok)), Vec::<String>::new());
}
