use serde_json::{Value, json};

use super::{Resource, invalid_message, validate};

fn policy(spec: Value) -> Value {
    json!({"apiVersion": "policy.cert-manager.io/v1alpha1", "kind": "CertificateRequestPolicy",
        "metadata": {"name": "p"}, "spec": spec})
}

fn request(spec: Value, status: Value) -> Value {
    json!({"apiVersion": "cert-manager.io/v1", "kind": "CertificateRequest",
        "metadata": {"name": "r", "namespace": "n"}, "spec": spec, "status": status})
}

fn errors(resource: Resource, mut object: Value) -> Vec<String> {
    validate(resource, &mut object).iter().map(ToString::to_string).collect()
}

#[test]
fn an_unknown_enum_value_is_unsupported_with_the_allowed_values() {
    let object = policy(json!({"selector": {"issuerRef": {}},
        "constraints": {"privateKey": {"algorithm": "DSA"}}}));
    assert_eq!(
        errors(Resource::CertificateRequestPolicy, object),
        [
            r#"spec.constraints.privateKey.algorithm: Unsupported value: "DSA": supported values: "RSA", "ECDSA", "Ed25519""#
        ]
    );
}

#[test]
fn enums_of_list_items_name_the_index() {
    let object = policy(json!({"selector": {"namespace": {}},
        "allowed": {"usages": ["server auth", "flying"]}}));
    let found = errors(Resource::CertificateRequestPolicy, object);
    assert_eq!(found.len(), 1);
    assert!(
        found[0].starts_with(r#"spec.allowed.usages[1]: Unsupported value: "flying": supported values: "signing", "digital signature", "#),
        "{found:?}"
    );
}

#[test]
fn missing_required_fields_are_required_values() {
    let object = policy(json!({"allowed": {"otherNames": [{"values": ["a"]}],
        "dnsNames": {"validations": [{"message": "m"}]}}}));
    assert_eq!(
        errors(Resource::CertificateRequestPolicy, object),
        [
            "spec.allowed.dnsNames.validations[0].rule: Required value",
            "spec.allowed.otherNames[0].oid: Required value",
            "spec.selector: Required value",
        ]
    );
    let bare = json!({"apiVersion": "policy.cert-manager.io/v1alpha1",
        "kind": "CertificateRequestPolicy", "metadata": {"name": "p"}});
    assert_eq!(errors(Resource::CertificateRequestPolicy, bare), ["spec: Required value"]);
}

#[test]
fn wrong_types_name_the_expected_and_found_type() {
    let object = policy(json!({"selector": {"issuerRef": {"name": ["a"]}},
        "constraints": {"privateKey": {"minSize": "2048", "maxSize": 4096.0}},
        "allowed": {"isCA": "yes"}}));
    assert_eq!(
        errors(Resource::CertificateRequestPolicy, object),
        [
            r#"spec.allowed.isCA: Invalid value: "string": spec.allowed.isCA in body must be of type boolean: "string""#,
            r#"spec.constraints.privateKey.minSize: Invalid value: "string": spec.constraints.privateKey.minSize in body must be of type integer: "string""#,
            r#"spec.selector.issuerRef.name: Invalid value: "array": spec.selector.issuerRef.name in body must be of type string: "array""#,
        ]
    );
}

#[test]
fn nulls_of_optional_fields_are_dropped_and_nulls_in_lists_are_errors() {
    let mut object = policy(json!({"selector": {"issuerRef": {"name": null}},
        "allowed": {"dnsNames": {"values": ["a", null]}}, "constraints": null}));
    let found = validate(Resource::CertificateRequestPolicy, &mut object);
    assert_eq!(object["spec"]["selector"]["issuerRef"], json!({}));
    assert!(object["spec"].get("constraints").is_none());
    let found: Vec<String> = found.iter().map(ToString::to_string).collect();
    assert_eq!(
        found,
        [
            r#"spec.allowed.dnsNames.values[1]: Invalid value: "null": spec.allowed.dnsNames.values[1] in body must be of type string: "null""#
        ]
    );
    // A required field given as null is dropped, then missing.
    let object = policy(json!(null));
    assert_eq!(errors(Resource::CertificateRequestPolicy, object), ["spec: Required value"]);
}

#[test]
fn map_values_are_checked_under_their_key() {
    let object = policy(json!({"selector": {"namespace": {"matchLabels": {"a.b/c": 1}}}}));
    assert_eq!(
        errors(Resource::CertificateRequestPolicy, object),
        [
            r#"spec.selector.namespace.matchLabels.a.b/c: Invalid value: "integer": spec.selector.namespace.matchLabels.a.b/c in body must be of type string: "integer""#
        ]
    );
}

#[test]
fn a_status_condition_without_optional_fields_is_valid() {
    let object = request(
        json!({"issuerRef": {"name": "ca"}, "request": "YWJj"}),
        json!({"conditions": [{"type": "Approved", "status": "True"}]}),
    );
    assert_eq!(errors(Resource::CertificateRequest, object), Vec::<String>::new());
}

#[test]
fn request_formats_and_condition_enums_are_checked() {
    let object = request(
        json!({"issuerRef": {"name": "ca"}, "request": "YWJ"}),
        json!({"conditions": [{"type": "Approved", "status": "Maybe",
            "lastTransitionTime": "yesterday"}]}),
    );
    assert_eq!(
        errors(Resource::CertificateRequest, object),
        [
            r#"spec.request: Invalid value: "YWJ": spec.request in body must be of type byte: "YWJ""#,
            r#"status.conditions[0].lastTransitionTime: Invalid value: "yesterday": status.conditions[0].lastTransitionTime in body must be of type date-time: "yesterday""#,
            r#"status.conditions[0].status: Unsupported value: "Maybe": supported values: "True", "False", "Unknown""#,
        ]
    );
}

#[test]
fn a_request_without_spec_passes_the_schema() {
    // Upstream's CRD does not require `spec`; cert-manager's webhook reports what is missing.
    let object = json!({"apiVersion": "cert-manager.io/v1", "kind": "CertificateRequest",
        "metadata": {"name": "r"}});
    assert_eq!(errors(Resource::CertificateRequest, object), Vec::<String>::new());
}

#[test]
fn the_invalid_message_is_the_api_servers() {
    let mut object = policy(json!({"allowed": {"isCA": 1}}));
    let found = validate(Resource::CertificateRequestPolicy, &mut object);
    assert_eq!(
        invalid_message(Resource::CertificateRequestPolicy, "p", &found),
        r#"CertificateRequestPolicy.policy.cert-manager.io "p" is invalid: [spec.allowed.isCA: Invalid value: "integer": spec.allowed.isCA in body must be of type boolean: "integer", spec.selector: Required value]"#
    );
}

#[test]
fn what_the_schema_accepts_decodes() {
    use crate::{CertificateRequest, CertificateRequestPolicy};
    // Integral floats in integer fields (YAML `2048.0`), nulls, a status condition without
    // lastTransitionTime, and a request without spec: all accepted upstream.
    let mut object = policy(json!({"selector": {"issuerRef": null, "namespace": {}},
        "constraints": {"privateKey": {"minSize": 2048.0, "algorithm": null}}}));
    assert!(validate(Resource::CertificateRequestPolicy, &mut object).is_empty());
    let decoded: CertificateRequestPolicy = serde_json::from_value(object).unwrap();
    let key = decoded.spec.constraints.and_then(|c| c.private_key).unwrap();
    assert_eq!((key.min_size, key.algorithm), (Some(2048), None));

    let mut object = request(
        json!({"issuerRef": {"name": "ca"}, "request": "YWJj", "duration": null}),
        json!({"conditions": [{"type": "Ready", "status": "False"}]}),
    );
    assert!(validate(Resource::CertificateRequest, &mut object).is_empty());
    let decoded: CertificateRequest = serde_json::from_value(object).unwrap();
    assert_eq!(decoded.spec.request, b"abc");
    assert_eq!(decoded.status.unwrap().conditions.unwrap()[0].last_transition_time, None);

    let decoded: CertificateRequest = serde_json::from_value(json!({"apiVersion":
        "cert-manager.io/v1", "kind": "CertificateRequest", "metadata": {"name": "r"},
        "spec": {}}))
    .unwrap();
    assert_eq!((decoded.spec.issuer_ref.name.as_str(), decoded.spec.request.len()), ("", 0));
}
