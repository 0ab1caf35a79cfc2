//! `crd_rule_errors`: what kube-apiserver v1.37.2 answers when a CRD's
//! `x-kubernetes-validations` do not type-check or cost too much (texts probed on it).

use certgate_api::field::Path;
use certgate_schema::{causes, crd_rule_errors, invalid_message};
use serde_json::{Value, json};

mod common;

const AT: &str = "spec.validation.openAPIV3Schema";

/// A schema whose `spec` has `rules` and the properties `replicas`, `name` and `tags`
/// (all unbounded).
fn schema(rules: Value) -> Value {
    json!({"type": "object", "properties": {"spec": {
        "type": "object",
        "x-kubernetes-validations": rules,
        "properties": {
            "replicas": {"type": "integer"},
            "name": {"type": "string"},
            "tags": {"type": "array", "items": {"type": "string"}}
        }
    }}})
}

fn message(schema: &Value) -> String {
    let errors = crd_rule_errors(schema, &Path::new(AT));
    invalid_message(
        "CustomResourceDefinition",
        "apiextensions.k8s.io",
        "widgets.example.com",
        &errors,
    )
}

const PREFIX: &str =
    r#"CustomResourceDefinition.apiextensions.k8s.io "widgets.example.com" is invalid: "#;
const RULE0: &str = "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0]";
const HINT: &str = "(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)";

#[test]
fn correct_rules_are_accepted() {
    for rules in [
        json!([{"rule": "self.replicas > 0 && self.name != 'x'"}]),
        json!([{"rule": "self.replicas > 0", "messageExpression": "'replicas are ' + self.name"}]),
        json!([{"rule": "self.tags.all(t, t != '')"}]),
        json!([{"rule": "!has(self.name) || self.name == oldSelf.name"}]),
        json!([{"rule": "self.metadata.name.size() < 10"}]),
    ] {
        let mut s = schema(rules.clone());
        if rules[0]["rule"].as_str().is_some_and(|r| r.contains("metadata")) {
            s = json!({"type": "object", "x-kubernetes-validations": rules});
        }
        assert_eq!(crd_rule_errors(&s, &Path::new(AT)), vec![], "{rules}");
    }
}

/// certgate's CEL parser words the expected tokens `an expression` where cel-go's ANTLR
/// parser lists them (`{'[', '{', '(', ...}`, docs/cel.md); the rest is upstream's text.
#[test]
fn a_syntax_error_is_refused() {
    assert_eq!(
        message(&schema(json!([{"rule": "self.replicas >"}]))),
        format!(
            "{PREFIX}{RULE0}.rule: Invalid value: {{\"Rule\":\"self.replicas \\u003e\",\"Message\":\"\",\"MessageExpression\":\"\",\"Reason\":null,\"FieldPath\":\"\",\"OptionalOldSelf\":null}}: compilation failed: ERROR: <input>:1:16: Syntax error: mismatched input '<EOF>' expecting {{'[', '{{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}}\n | self.replicas >\n | ...............^"
        )
    );
}

#[test]
fn an_unknown_field_of_self_is_refused() {
    assert_eq!(
        message(&schema(json!([{"rule": "self.nosuchfield == 1"}]))),
        format!(
            "{PREFIX}{RULE0}.rule: Invalid value: {{\"Rule\":\"self.nosuchfield == 1\",\"Message\":\"\",\"MessageExpression\":\"\",\"Reason\":null,\"FieldPath\":\"\",\"OptionalOldSelf\":null}}: compilation failed: ERROR: <input>:1:5: undefined field 'nosuchfield'\n | self.nosuchfield == 1\n | ....^"
        )
    );
}

#[test]
fn a_type_mismatch_is_refused() {
    assert_eq!(
        message(&schema(json!([{"rule": "self.replicas + \"x\" == \"y\""}]))),
        format!(
            "{PREFIX}{RULE0}.rule: Invalid value: {{\"Rule\":\"self.replicas + \\\"x\\\" == \\\"y\\\"\",\"Message\":\"\",\"MessageExpression\":\"\",\"Reason\":null,\"FieldPath\":\"\",\"OptionalOldSelf\":null}}: compilation failed: ERROR: <input>:1:15: found no matching overload for '_+_' applied to '(int, string)'\n | self.replicas + \"x\" == \"y\"\n | ..............^"
        )
    );
}

#[test]
fn rules_and_messages_of_the_wrong_type_are_refused() {
    assert_eq!(
        message(&schema(json!([{"rule": "self.replicas"}]))),
        format!(
            "{PREFIX}{RULE0}.rule: Invalid value: {{\"Rule\":\"self.replicas\",\"Message\":\"\",\"MessageExpression\":\"\",\"Reason\":null,\"FieldPath\":\"\",\"OptionalOldSelf\":null}}: cel expression must evaluate to a bool"
        )
    );
    assert_eq!(
        message(&schema(
            json!([{"rule": "self.replicas > 0", "messageExpression": "self.replicas"}])
        )),
        format!(
            "{PREFIX}{RULE0}.messageExpression: Invalid value: {{\"Rule\":\"self.replicas \\u003e 0\",\"Message\":\"\",\"MessageExpression\":\"self.replicas\",\"Reason\":null,\"FieldPath\":\"\",\"OptionalOldSelf\":null}}: messageExpression must evaluate to a string"
        )
    );
}

#[test]
fn an_unbounded_quadratic_rule_is_over_budget() {
    let s = schema(json!([{"rule": "self.tags.all(x, self.tags.all(y, x.contains(y)))"}]));
    let errors = crd_rule_errors(&s, &Path::new(AT));
    let causes = causes(&errors);
    let got: Vec<(&str, &str, &str)> =
        causes.iter().map(|c| (c.reason.as_str(), c.message.as_str(), c.field.as_str())).collect();
    let rule = format!("{RULE0}.rule");
    assert_eq!(
        got,
        vec![
            (
                "FieldValueForbidden",
                &*format!(
                    "Forbidden: estimated rule cost exceeds budget by factor of more than 100x {HINT}"
                ),
                rule.as_str()
            ),
            (
                "FieldValueForbidden",
                "Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema",
                rule.as_str()
            ),
            (
                "FieldValueForbidden",
                &*format!(
                    "Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x {HINT}"
                ),
                AT
            ),
        ]
    );
    // Bounded, the same rule fits.
    let mut bounded = s.clone();
    bounded["properties"]["spec"]["properties"]["tags"]["maxItems"] = json!(10);
    bounded["properties"]["spec"]["properties"]["tags"]["items"]["maxLength"] = json!(10);
    assert_eq!(crd_rule_errors(&bounded, &Path::new(AT)), vec![]);
}

#[test]
fn a_quadratic_message_over_unbounded_lists_is_over_budget() {
    // Only the message's own error: upstream does not count it in the schema's total.
    let s = schema(json!([{"rule": "true",
        "messageExpression": "self.tags.all(x, self.tags.all(y, x.contains(y))) ? 'a' : 'b'"}]));
    assert_eq!(
        crd_rule_errors(&s, &Path::new(AT)).iter().map(ToString::to_string).collect::<Vec<_>>(),
        vec![format!(
            "{RULE0}.messageExpression: Forbidden: estimated messageExpression cost exceeds budget by factor of more than 100x {HINT}"
        )]
    );
}

#[test]
fn nested_rules_come_first_and_are_typed_by_their_node() {
    let s = json!({"type": "object", "x-kubernetes-validations": [{"rule": "self.nope == 1"}],
        "properties": {"spec": {"type": "object",
            "x-kubernetes-validations": [{"rule": "self.nope2 == 1"}],
            "properties": {
                "b": {"type": "integer", "x-kubernetes-validations": [{"rule": "self.nope3 == 1"}]},
                "a": {"type": "array", "items": {"type": "object",
                    "x-kubernetes-validations": [{"rule": "self.nope4 == 1"}]}},
                "m": {"type": "object", "additionalProperties": {"type": "string",
                    "x-kubernetes-validations": [{"rule": "self.nope5 == 1"}]}}}}}});
    let errors = crd_rule_errors(&s, &Path::new(AT));
    let fields: Vec<String> = errors.iter().map(|e| e.path.to_string()).collect();
    let spec = "spec.validation.openAPIV3Schema.properties[spec]";
    assert_eq!(
        fields,
        vec![
            format!("{spec}.properties[a].items.x-kubernetes-validations[0].rule"),
            format!("{spec}.properties[b].x-kubernetes-validations[0].rule"),
            format!("{spec}.properties[m].additionalProperties.x-kubernetes-validations[0].rule"),
            format!("{spec}.x-kubernetes-validations[0].rule"),
            format!("{AT}.x-kubernetes-validations[0].rule"),
        ]
    );
    assert!(errors[1].detail.ends_with(
        "compilation failed: ERROR: <input>:1:5: type 'int' does not support field selection\n | self.nope3 == 1\n | ....^"
    ), "{}", errors[1].detail);
    assert!(errors[2].detail.contains("type 'string' does not support field selection"));
    assert!(errors[0].detail.contains("undefined field 'nope4'"));
}

/// No false refusals: every upstream CRD (cert-manager, Contour, ...) and every certgate CRD
/// is accepted by the real API server, so its rules must pass here.
#[test]
fn every_upstream_and_certgate_crd_passes() {
    let certgate = certgate_api::crd::all()
        .into_iter()
        .map(|crd| serde_json::to_value(&crd).unwrap_or(Value::Null));
    let upstream = common::upstream_files().into_iter().flat_map(|f| common::upstream_crds(&f));
    let mut checked = 0;
    for crd in certgate.chain(upstream) {
        for (name, schema) in common::version_schemas(&crd) {
            assert_eq!(crd_rule_errors(&schema, &Path::new(AT)), vec![], "{name}");
            checked += 1;
        }
    }
    assert!(checked > 12, "only {checked} schemas checked");
}

/// Probed: below a list that is not a `map` list nothing has an old value, so a rule naming
/// `oldSelf` there is refused (after its cost); the highest such list is named. (`ports` is
/// bounded here so that its cost is far from the 1% that would list it as a contributor.)
#[test]
fn transition_rules_below_uncorrelatable_lists_are_refused() {
    let item_rule = |ty: &str| json!({"type": ty, "x-kubernetes-validations": [{"rule": "self == oldSelf", "message": "m"}]});
    let s = json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"], "maxItems": 10,
            "items": {"type": "object", "required": ["name"],
                "x-kubernetes-validations": [{"rule": "self.port == oldSelf.port"}],
                "properties": {"name": {"type": "string"}, "port": {"type": "integer"}}}},
        "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": item_rule("string")},
        "plain": {"type": "array", "items": item_rule("integer")}}}}});
    let spec = "spec.validation.openAPIV3Schema.properties[spec]";
    let uncorrelatable = |list: &str| {
        format!(
            "{spec}.properties[{list}].items.x-kubernetes-validations[0].rule: Invalid value: \"self == oldSelf\": \
             oldSelf cannot be used on the uncorrelatable portion of the schema within {spec}.properties[{list}]"
        )
    };
    let contributed = |list: &str| {
        format!(
            "{spec}.properties[{list}].items.x-kubernetes-validations[0].rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema"
        )
    };
    assert_eq!(
        crd_rule_errors(&s, &Path::new(AT)).iter().map(ToString::to_string).collect::<Vec<_>>(),
        vec![
            uncorrelatable("plain"),
            format!(
                "{spec}.properties[tags].items.x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x {HINT}"
            ),
            uncorrelatable("tags"),
            contributed("tags"),
            contributed("plain"),
            format!(
                "{AT}: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x {HINT}"
            ),
        ]
    );
}

/// Probed: `optionalOldSelf` on a rule that does not use `oldSelf` (or does not compile) is
/// refused after the rule's own error; with `oldSelf` it types `oldSelf` as an optional.
#[test]
fn optional_old_self_needs_a_rule_using_old_self() {
    let s = schema(json!([
        {"rule": "self.replicas == oldSelf", "optionalOldSelf": true},
        {"rule": "self.replicas > 0", "optionalOldSelf": false},
        {"rule": "!oldSelf.hasValue() || self.replicas >= oldSelf.value().replicas", "optionalOldSelf": true}
    ]));
    let errors: Vec<String> =
        crd_rule_errors(&s, &Path::new(AT)).iter().map(ToString::to_string).collect();
    let spec = "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations";
    assert_eq!(errors.len(), 3, "{errors:#?}");
    assert!(
        errors[0].starts_with(&format!(
            "{spec}[0].rule: Invalid value: {{\"Rule\":\"self.replicas == oldSelf\""
        )),
        "{errors:#?}"
    );
    assert!(errors[0].contains("compilation failed: ERROR: <input>:1:15: found no matching overload for '_==_' applied to '(int, "), "{errors:#?}");
    assert_eq!(
        errors[1],
        format!(
            "{spec}[0].optionalOldSelf: Invalid value: true: may not be set if oldSelf is not used in rule"
        )
    );
    assert_eq!(
        errors[2],
        format!(
            "{spec}[1].optionalOldSelf: Invalid value: false: may not be set if oldSelf is not used in rule"
        )
    );
}
