//! validate_configuration against upstream's messages.

use serde_json::{Value, json};

use super::*;

fn valid_webhook() -> Value {
    json!({
        "name": "pods.policy.example.com",
        "clientConfig": { "url": "https://hooks.example.com/validate" },
        "rules": [{ "operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods"] }],
        "sideEffects": "None",
        "admissionReviewVersions": ["v1"],
    })
}

fn configuration(kind: &str, webhooks: Vec<Value>) -> Value {
    json!({
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": kind,
        "metadata": { "name": "c" },
        "webhooks": webhooks,
    })
}

/// The rendered errors for one webhook built from the valid one with `changes` merged in
/// (`null` removes a field).
fn errors_for(kind: ConfigurationKind, changes: Value) -> Vec<String> {
    let mut webhook = valid_webhook();
    if let (Some(target), Value::Object(changes)) = (webhook.as_object_mut(), changes) {
        for (key, value) in changes {
            if value.is_null() {
                target.remove(&key);
            } else {
                target.insert(key, value);
            }
        }
    }
    let kind_name = match kind {
        ConfigurationKind::Mutating => "MutatingWebhookConfiguration",
        ConfigurationKind::Validating => "ValidatingWebhookConfiguration",
    };
    validate_configuration(kind, &configuration(kind_name, vec![webhook]))
        .iter()
        .map(ToString::to_string)
        .collect()
}

fn mutating(changes: Value) -> Vec<String> {
    errors_for(ConfigurationKind::Mutating, changes)
}

fn validating(changes: Value) -> Vec<String> {
    errors_for(ConfigurationKind::Validating, changes)
}

const SUBDOMAIN: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

#[test]
fn a_valid_configuration_has_no_errors() {
    assert_eq!(
        mutating(json!({ "reinvocationPolicy": "IfNeeded", "timeoutSeconds": 30 })),
        Vec::<String>::new()
    );
    assert_eq!(
        validating(json!({ "failurePolicy": "Ignore", "matchPolicy": "Exact" })),
        Vec::<String>::new()
    );
}

#[test]
fn names_must_be_fully_qualified_and_unique() {
    assert_eq!(validating(json!({ "name": "" })), ["webhooks[0].name: Required value"]);
    assert_eq!(
        validating(json!({ "name": "example.com" })),
        [
            r#"webhooks[0].name: Invalid value: "example.com": should be a domain with at least three segments separated by dots"#
        ]
    );
    assert_eq!(
        validating(json!({ "name": "Bad.Example.com" })),
        [format!(r#"webhooks[0].name: Invalid value: "Bad.Example.com": {SUBDOMAIN}"#)]
    );

    let config =
        configuration("ValidatingWebhookConfiguration", vec![valid_webhook(), valid_webhook()]);
    let errors: Vec<String> = validate_configuration(ConfigurationKind::Validating, &config)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(errors, [r#"webhooks[1].name: Duplicate value: "pods.policy.example.com""#]);
}

#[test]
fn review_versions_must_include_a_known_one() {
    assert_eq!(
        validating(json!({ "admissionReviewVersions": null })),
        ["webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1"]
    );
    assert_eq!(
        validating(json!({ "admissionReviewVersions": ["v2", "v2"] })),
        [
            r#"webhooks[0].admissionReviewVersions[1]: Invalid value: "v2": duplicate version"#,
            r#"webhooks[0].admissionReviewVersions: Invalid value: []string{"v2", "v2"}: must include at least one of v1, v1beta1"#,
        ]
    );
    assert_eq!(
        validating(json!({ "admissionReviewVersions": ["V1", "v1beta1"] })),
        [
            r#"webhooks[0].admissionReviewVersions[0]: Invalid value: "V1": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"#
        ]
    );
}

#[test]
fn side_effects_timeouts_and_policies() {
    assert_eq!(
        validating(json!({ "sideEffects": null })),
        ["webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun"]
    );
    assert_eq!(
        validating(json!({ "sideEffects": "Some" })),
        [
            r#"webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun""#
        ]
    );
    assert_eq!(
        validating(json!({ "timeoutSeconds": 31 })),
        [
            "webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds"
        ]
    );
    assert_eq!(
        validating(json!({ "timeoutSeconds": 0 })),
        [
            "webhooks[0].timeoutSeconds: Invalid value: 0: the timeout value must be between 1 and 30 seconds"
        ]
    );
    assert_eq!(
        validating(json!({ "failurePolicy": "Maybe", "matchPolicy": "Fuzzy" })),
        [
            r#"webhooks[0].failurePolicy: Unsupported value: "Maybe": supported values: "Fail", "Ignore""#,
            r#"webhooks[0].matchPolicy: Unsupported value: "Fuzzy": supported values: "Equivalent", "Exact""#,
        ]
    );
    assert_eq!(
        mutating(json!({ "reinvocationPolicy": "Always" })),
        [
            r#"webhooks[0].reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never""#
        ]
    );
}

#[test]
fn client_config_needs_exactly_one_https_url_or_service() {
    assert_eq!(
        validating(json!({ "clientConfig": {} })),
        ["webhooks[0].clientConfig: Required value: exactly one of url or service is required"]
    );
    assert_eq!(
        validating(
            json!({ "clientConfig": { "url": "https://a.example.com/", "service": { "name": "s", "namespace": "n" } } })
        ),
        ["webhooks[0].clientConfig: Required value: exactly one of url or service is required"]
    );
    assert_eq!(
        validating(json!({ "clientConfig": { "url": "http://u:p@/x?q=1#f" } })),
        [
            r#"webhooks[0].clientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]"#,
            r#"webhooks[0].clientConfig.url: Invalid value: "": host must be provided; desired format: https://host[/path]"#,
            r#"webhooks[0].clientConfig.url: Invalid value: "u:p": user information is not permitted in the URL"#,
            r#"webhooks[0].clientConfig.url: Invalid value: "f": fragments are not permitted in the URL"#,
            r#"webhooks[0].clientConfig.url: Invalid value: "q=1": query parameters are not permitted in the URL"#,
        ]
    );
    assert_eq!(
        validating(json!({ "clientConfig": { "url": "https://host:port/" } })),
        [
            r#"webhooks[0].clientConfig.url: Required value: url must be a valid URL: parse "https://host:port/": invalid port ":port" after host; desired format: https://host[/path]"#
        ]
    );
    assert_eq!(
        validating(
            json!({ "clientConfig": { "service": { "name": "", "namespace": "", "port": 0, "path": "a//B" } } })
        ),
        [
            "webhooks[0].clientConfig.service.name: Required value: service name is required",
            "webhooks[0].clientConfig.service.namespace: Required value: service namespace is required",
            "webhooks[0].clientConfig.service.port: Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive",
            r#"webhooks[0].clientConfig.service.path: Invalid value: "a//B": must start with a '/'"#,
            r#"webhooks[0].clientConfig.service.path: Invalid value: "a//B": segment[0] may not be empty"#,
            r#"webhooks[0].clientConfig.service.path: Invalid value: "a//B": segment[1] may not be empty"#,
            &format!(
                r#"webhooks[0].clientConfig.service.path: Invalid value: "a//B": segment[2]: {SUBDOMAIN}"#
            ),
        ]
    );
    assert_eq!(
        validating(
            json!({ "clientConfig": { "service": { "name": "s", "namespace": "n", "path": "/validate/pods/" } } })
        ),
        Vec::<String>::new()
    );
}

#[test]
fn rules_are_checked_field_by_field() {
    let rule = |rule: Value| validating(json!({ "rules": [rule] }));
    assert_eq!(
        rule(json!({})),
        [
            "webhooks[0].rules[0].operations: Required value",
            "webhooks[0].rules[0].apiGroups: Required value",
            "webhooks[0].rules[0].apiVersions: Required value",
            "webhooks[0].rules[0].resources: Required value",
        ]
    );
    assert_eq!(
        rule(
            json!({ "operations": ["*", "PATCH"], "apiGroups": ["*", "apps"], "apiVersions": ["*", ""], "resources": ["pods"], "scope": "Everywhere" })
        ),
        [
            r#"webhooks[0].rules[0].operations: Invalid value: []admissionregistration.OperationType{"*", "PATCH"}: if '*' is present, must not specify other operations"#,
            r#"webhooks[0].rules[0].operations[1]: Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE""#,
            r#"webhooks[0].rules[0].apiGroups: Invalid value: []string{"*", "apps"}: if '*' is present, must not specify other API groups"#,
            r#"webhooks[0].rules[0].apiVersions: Invalid value: []string{"*", ""}: if '*' is present, must not specify other API versions"#,
            "webhooks[0].rules[0].apiVersions[1]: Required value",
            r#"webhooks[0].rules[0].scope: Unsupported value: "Everywhere": supported values: "*", "Cluster", "Namespaced""#,
        ]
    );
    let resources = |list: Value| {
        rule(
            json!({ "operations": ["*"], "apiGroups": [""], "apiVersions": ["v1"], "resources": list }),
        )
    };
    assert_eq!(
        resources(json!(["pods/*", "pods/status", "*/scale", "deployments/scale", ""])),
        [
            r#"webhooks[0].rules[0].resources[1]: Invalid value: "pods/status": if 'pods/*' is present, must not specify pods/status"#,
            r#"webhooks[0].rules[0].resources[3]: Invalid value: "deployments/scale": if '*/scale' is present, must not specify deployments/scale"#,
            "webhooks[0].rules[0].resources[4]: Required value",
        ]
    );
    assert_eq!(
        resources(json!(["*/*", "pods"])),
        [
            r#"webhooks[0].rules[0].resources: Invalid value: []string{"*/*", "pods"}: if '*/*' is present, must not specify other resources"#
        ]
    );
    assert_eq!(
        resources(json!(["*", "pods"])),
        [
            r#"webhooks[0].rules[0].resources: Invalid value: []string{"*", "pods"}: if '*' is present, must not specify other resources without subresources"#
        ]
    );
    // Upstream only remembers the last plain resource: this list passes.
    assert_eq!(resources(json!(["pods", "*"])), Vec::<String>::new());
}

#[test]
fn selectors_are_validated() {
    assert_eq!(
        validating(json!({
            "namespaceSelector": { "matchLabels": { "bad key": "ok" } },
            "objectSelector": { "matchExpressions": [
                { "key": "a", "operator": "In" },
                { "key": "b", "operator": "Exists", "values": ["x"] },
                { "key": "c", "operator": "Like", "values": ["-bad"] },
            ] },
        })),
        [
            r#"webhooks[0].namespaceSelector.matchLabels: Invalid value: "bad key": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"#,
            "webhooks[0].objectSelector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
            "webhooks[0].objectSelector.matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
            r#"webhooks[0].objectSelector.matchExpressions[2].operator: Invalid value: "Like": not a valid selector operator"#,
            r#"webhooks[0].objectSelector.matchExpressions[2].values[0]: Invalid value: "-bad": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"#,
        ]
    );
}

#[test]
fn match_conditions_are_checked_and_compiled() {
    assert_eq!(
        validating(json!({ "matchConditions": [
            { "name": "ok", "expression": "true" },
            { "name": "ok", "expression": "  " },
            { "name": "", "expression": " 'abc' " },
            { "name": "typed", "expression": "request.foo == 'a'" },
        ] })),
        [
            "webhooks[0].matchConditions[1].expression: Required value",
            r#"webhooks[0].matchConditions[1].name: Duplicate value: "ok""#,
            r#"webhooks[0].matchConditions[2].expression: Invalid value: "'abc'": must evaluate to bool but got string"#,
            "webhooks[0].matchConditions[2].name: Required value",
            "webhooks[0].matchConditions[3].expression: Invalid value: \"request.foo == 'a'\": compilation failed: ERROR: <input>:1:8: undefined field 'foo'\n | request.foo == 'a'\n | .......^",
        ]
    );
    let many: Vec<Value> =
        (0..65).map(|i| json!({ "name": format!("c{i}"), "expression": "true" })).collect();
    assert_eq!(
        validating(json!({ "matchConditions": many })),
        ["webhooks[0].matchConditions: Too many: 65: must have at most 64 items"]
    );
}

#[test]
fn undecodable_objects_are_reported_once() {
    let errors = validate_configuration(
        ConfigurationKind::Mutating,
        &json!({ "apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingWebhookConfiguration", "webhooks": [{ "timeoutSeconds": "ten" }] }),
    );
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].field, "");
    assert!(errors[0].detail.starts_with("Invalid value: "), "{:?}", errors[0]);
}
