//! Patch application bounds and errors.

use std::collections::BTreeMap;

use serde_json::json;

use super::*;
use crate::attributes::{GroupVersionKind, GroupVersionResource};

fn attributes(object: Value) -> AdmissionAttributes {
    AdmissionAttributes {
        operation: Operation::Create,
        kind: GroupVersionKind::new("apps", "v1", "Deployment"),
        resource: GroupVersionResource::new("apps", "v1", "deployments"),
        subresource: String::new(),
        namespaced: true,
        name: "d".into(),
        namespace: "team".into(),
        user: Default::default(),
        object: Some(object),
        old_object: None,
        dry_run: false,
        options: Value::Null,
        namespace_labels: Some(BTreeMap::new()),
    }
}

fn deployment() -> Value {
    json!({ "apiVersion": "apps/v1", "kind": "Deployment", "metadata": { "name": "d", "namespace": "team" }, "spec": {} })
}

fn response(patch: Value) -> VerifiedResponse {
    VerifiedResponse {
        allowed: true,
        patch: patch.to_string().into_bytes(),
        patch_type: "JSONPatch".into(),
        ..Default::default()
    }
}

fn rejected(result: Result<Option<Value>, HookError>) -> Rejection {
    match result {
        Err(HookError::Rejected(rejection)) => *rejection,
        other => panic!("expected a rejection, got {other:?}"),
    }
}

fn calling(result: Result<Option<Value>, HookError>) -> String {
    match result {
        Err(HookError::Calling(error)) => error.to_string(),
        other => panic!("expected a call failure, got {other:?}"),
    }
}

#[test]
fn applies_operations_in_order() {
    let patch = json!([
        { "op": "add", "path": "/spec/replicas", "value": 2 },
        { "op": "copy", "from": "/spec/replicas", "path": "/spec/minReadySeconds" },
        { "op": "test", "path": "/spec/minReadySeconds", "value": 2 },
    ]);
    let patched = apply("w", &response(patch), &attributes(deployment())).unwrap().unwrap();
    assert_eq!(patched["spec"], json!({ "replicas": 2, "minReadySeconds": 2 }));
}

#[test]
fn empty_patches_change_nothing() {
    assert_eq!(apply("w", &response(json!([])), &attributes(deployment())).unwrap(), None);
    let mut none = response(json!([]));
    none.patch.clear();
    assert_eq!(apply("w", &none, &attributes(deployment())).unwrap(), None);
}

#[test]
fn names_the_failing_operation() {
    let patch = json!([
        { "op": "add", "path": "/spec/a", "value": 1 },
        { "op": "replace", "path": "/spec/missing/deeper", "value": 1 },
    ]);
    let rejection = rejected(apply("w", &response(patch), &attributes(deployment())));
    assert_eq!(rejection.code, 500);
    assert!(
        rejection.message.starts_with(
            "Internal error occurred: operation '/1' failed at path '/spec/missing/deeper'"
        ),
        "{}",
        rejection.message
    );
}

#[test]
fn unknown_operations_fail_when_applied_not_when_decoded() {
    let rejection = rejected(apply(
        "w",
        &response(json!([{ "op": "frobnicate", "path": "/x" }])),
        &attributes(deployment()),
    ));
    assert!(
        rejection.message.starts_with("Internal error occurred: unknown variant `frobnicate`"),
        "{}",
        rejection.message
    );
    assert_eq!(
        calling(apply("w", &response(json!({ "op": "add" })), &attributes(deployment()))),
        "received undecodable patch in webhook response: invalid type: map, expected a sequence at line 1 column 0"
    );
}

#[test]
fn bounds_operations_and_copied_bytes() {
    let many: Vec<Value> = (0..=MAX_OPERATIONS)
        .map(|_| json!({ "op": "test", "path": "/kind", "value": "Deployment" }))
        .collect();
    assert_eq!(
        calling(apply("w", &response(Value::Array(many)), &attributes(deployment()))),
        "received undecodable patch in webhook response: the patch has 10001 operations; the sandbox applies at most 10000"
    );

    // Each copy doubles the document: without the bound this would not fit in memory.
    let mut doubling =
        vec![json!({ "op": "add", "path": "/spec/blob", "value": ["x".repeat(1024)] })];
    for _ in 0..64 {
        doubling.push(json!({ "op": "copy", "from": "/spec/blob", "path": "/spec/blob/-" }));
        doubling.push(json!({ "op": "copy", "from": "/spec", "path": "/metadata/annotations" }));
    }
    let rejection =
        rejected(apply("w", &response(Value::Array(doubling)), &attributes(deployment())));
    assert!(
        rejection
            .message
            .ends_with("copies more than the 3145728 bytes the sandbox allows a patch to copy"),
        "{}",
        rejection.message
    );
}

#[test]
fn the_patch_type_must_be_json_patch() {
    let mut merge = response(json!([{ "op": "add", "path": "/spec/x", "value": 1 }]));
    merge.patch_type = "MergePatch".into();
    assert_eq!(
        calling(apply("w", &merge, &attributes(deployment()))),
        r#"unsupported patch type "MergePatch""#
    );
}

#[test]
fn the_result_must_remain_an_object_of_the_same_kind() {
    let rejection = rejected(apply(
        "w",
        &response(json!([{ "op": "replace", "path": "", "value": [1] }])),
        &attributes(deployment()),
    ));
    assert_eq!(
        rejection.message,
        r#"Internal error occurred: admission webhook "w" patched the object into something that is not a JSON object"#
    );
    let rejection = rejected(apply(
        "w",
        &response(json!([{ "op": "replace", "path": "/apiVersion", "value": "apps/v2" }])),
        &attributes(deployment()),
    ));
    assert_eq!(
        rejection.message,
        r#"Internal error occurred: admission webhook "w" changed apiVersion from "apps/v1" to "apps/v2", which the sandbox does not support"#
    );
}

#[test]
fn renaming_is_allowed_on_create_but_invalid_on_update() {
    let rename = response(json!([{ "op": "replace", "path": "/metadata/name", "value": "e" }]));
    let created = apply("w", &rename, &attributes(deployment())).unwrap().unwrap();
    assert_eq!(created["metadata"]["name"], "e");

    let mut update = attributes(deployment());
    update.operation = Operation::Update;
    let rejection = rejected(apply("w", &rename, &update));
    assert_eq!(
        rejection.message,
        r#"Deployment.apps "e" is invalid: metadata.name: Invalid value: "e": field is immutable"#
    );
    assert_eq!(
        rejection.details,
        Some(json!({
            "name": "e",
            "group": "apps",
            "kind": "Deployment",
            "causes": [{ "reason": "FieldValueInvalid", "message": "Invalid value: \"e\": field is immutable", "field": "metadata.name" }],
        }))
    );
}
