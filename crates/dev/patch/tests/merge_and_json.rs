//! JSON merge patch (RFC 7386) and JSON patch (RFC 6902) behaviour and error mapping.

use certgate_patch::{GENERIC_UNPROCESSABLE, PatchError, PatchType, apply_patch};
use serde_json::{Value, json};

fn merge(live: Value, patch: &str) -> Result<Value, PatchError> {
    apply_patch(&live, PatchType::Merge, patch.as_bytes(), None, None)
}

fn json_patch(live: Value, patch: &str) -> Result<Value, PatchError> {
    apply_patch(&live, PatchType::Json, patch.as_bytes(), None, None)
}

#[test]
fn content_types_map_to_patch_types() {
    let cases = [
        ("application/json-patch+json", Some(PatchType::Json)),
        ("application/merge-patch+json", Some(PatchType::Merge)),
        ("application/strategic-merge-patch+json", Some(PatchType::StrategicMerge)),
        ("application/apply-patch+yaml", Some(PatchType::Apply)),
        ("application/apply-patch+yaml; charset=utf-8", Some(PatchType::Apply)),
        ("application/json", None),
        ("", None),
    ];
    for (header, expected) in cases {
        assert_eq!(PatchType::from_content_type(header), expected, "{header}");
    }
}

#[test]
fn rfc7386_examples() {
    // Test cases from RFC 7386 appendix A.
    let cases = [
        (json!({"a": "b"}), r#"{"a":"c"}"#, json!({"a": "c"})),
        (json!({"a": "b"}), r#"{"b":"c"}"#, json!({"a": "b", "b": "c"})),
        (json!({"a": "b"}), r#"{"a":null}"#, json!({})),
        (json!({"a": "b", "b": "c"}), r#"{"a":null}"#, json!({"b": "c"})),
        (json!({"a": ["b"]}), r#"{"a":"c"}"#, json!({"a": "c"})),
        (json!({"a": "c"}), r#"{"a":["b"]}"#, json!({"a": ["b"]})),
        (json!({"a": {"b": "c"}}), r#"{"a":{"b":"d","c":null}}"#, json!({"a": {"b": "d"}})),
        (json!({"a": [{"b": "c"}]}), r#"{"a":[1]}"#, json!({"a": [1]})),
        (json!({"e": null}), r#"{"a":1}"#, json!({"e": null, "a": 1})),
        (json!({}), r#"{"a":{"bb":{"ccc":null}}}"#, json!({"a": {"bb": {}}})),
    ];
    for (live, patch, expected) in cases {
        assert_eq!(merge(live, patch).unwrap(), expected, "patch {patch}");
    }
}

#[test]
fn merge_patch_errors() {
    let bad = merge(json!({}), "{not json").unwrap_err();
    assert_eq!((bad.status_code(), bad.to_string().as_str()), (400, "Invalid JSON Patch"));
    let null = merge(json!({}), "null").unwrap_err();
    assert_eq!(null.status_code(), 400);
    let list = merge(json!({}), "[1]").unwrap_err();
    assert_eq!((list.status_code(), list.reason()), (422, "Invalid"));
}

#[test]
fn json_patch_operations() {
    let live = json!({"metadata": {"labels": {"a": "1"}}, "data": {"k": "v"}});
    let patched = json_patch(
        live,
        r#"[
            {"op": "test", "path": "/data/k", "value": "v"},
            {"op": "add", "path": "/metadata/labels/b", "value": "2"},
            {"op": "remove", "path": "/metadata/labels/a"},
            {"op": "replace", "path": "/data/k", "value": "w"},
            {"op": "copy", "from": "/data/k", "path": "/data/c"},
            {"op": "move", "from": "/data/c", "path": "/data/m"}
        ]"#,
    )
    .unwrap();
    assert_eq!(patched, json!({"metadata": {"labels": {"b": "2"}}, "data": {"k": "w", "m": "w"}}));
}

#[test]
fn json_patch_test_failure_is_422_with_generic_status_message() {
    let err = json_patch(
        json!({"data": {"k": "v"}}),
        r#"[{"op": "test", "path": "/data/k", "value": "other"}]"#,
    )
    .unwrap_err();
    assert_eq!(err.status_code(), 422);
    assert_eq!(err.reason(), "Invalid");
    assert_eq!(err.to_string(), "testing value /data/k failed: test failed");
    assert_eq!(err.status_message(), GENERIC_UNPROCESSABLE);
    assert_eq!(
        err.status_message(),
        "the server rejected our request due to an error in our request"
    );
}

#[test]
fn json_patch_missing_paths_are_422() {
    let cases = [
        (
            r#"[{"op": "remove", "path": "/data/missing"}]"#,
            "remove operation does not apply: doc is missing path: \"/data/missing\": missing value",
        ),
        (
            r#"[{"op": "replace", "path": "/data/missing", "value": 1}]"#,
            "replace operation does not apply: doc is missing key: /data/missing: missing value",
        ),
        (
            r#"[{"op": "add", "path": "/nope/x", "value": 1}]"#,
            "add operation does not apply: doc is missing path: \"/nope/x\": missing value",
        ),
    ];
    for (patch, message) in cases {
        let err = json_patch(json!({"data": {}}), patch).unwrap_err();
        assert_eq!(err.status_code(), 422, "{patch}");
        assert_eq!(err.to_string(), message);
    }
}

#[test]
fn json_patch_malformed_is_400() {
    for patch in [r#"{"op": "add"}"#, r#"[{"op": "frobnicate", "path": "/a"}]"#, "[{"] {
        let err = json_patch(json!({}), patch).unwrap_err();
        assert_eq!((err.status_code(), err.reason()), (400, "BadRequest"), "{patch}");
    }
}

#[test]
fn json_patch_operation_limit_is_413() {
    let op = r#"{"op": "test", "path": "/a", "value": 1}"#;
    let body = format!("[{}]", vec![op; 10_001].join(","));
    let err = json_patch(json!({"a": 1}), &body).unwrap_err();
    assert_eq!(err.status_code(), 413);
    assert_eq!(
        err.to_string(),
        "Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001"
    );
}

#[test]
fn oversized_and_deep_bodies_are_rejected() {
    let big = vec![b' '; certgate_patch::MAX_BODY_BYTES + 1];
    let err = apply_patch(&json!({}), PatchType::Merge, &big, None, None).unwrap_err();
    assert_eq!(err.status_code(), 413);
    assert_eq!(err.to_string(), "Request entity too large: limit is 3145728");

    let deep = format!("{}1{}", "{\"a\":".repeat(101), "}".repeat(101));
    let err = merge(json!({}), &deep).unwrap_err();
    assert_eq!(err, PatchError::TooDeep { max: 100 });
    assert_eq!(err.status_code(), 400);
    let ok = format!("{}1{}", "{\"a\":".repeat(99), "}".repeat(99));
    assert!(merge(json!({}), &ok).is_ok());
}
