//! Simplified server-side apply: ownership, removal, idempotence, conflicts.

use certgate_patch::{ApplyOptions, PatchError, PatchType, apply_create, apply_patch};
use serde_json::{Value, json};

fn options(manager: &str, time: &str) -> ApplyOptions {
    ApplyOptions {
        field_manager: manager.to_owned(),
        force: false,
        time: time.to_owned(),
        subresource: None,
        schema: None,
    }
}

fn ssa(live: &Value, body: &str, options: &ApplyOptions) -> Result<Value, PatchError> {
    apply_patch(live, PatchType::Apply, body.as_bytes(), None, Some(options))
}

const CONFIG_YAML: &str = "
apiVersion: v1
kind: ConfigMap
metadata:
  name: cm
  namespace: default
  labels:
    app: demo
data:
  a: '1'
  b: '2'
";

#[test]
fn create_records_managed_fields_in_fields_v1_notation() {
    let created = ssa(&Value::Null, CONFIG_YAML, &options("ctrl", "2026-01-01T00:00:00Z")).unwrap();
    assert_eq!(
        created,
        json!({
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {
                "name": "cm", "namespace": "default", "labels": {"app": "demo"},
                "managedFields": [{
                    "manager": "ctrl",
                    "operation": "Apply",
                    "apiVersion": "v1",
                    "time": "2026-01-01T00:00:00Z",
                    "fieldsType": "FieldsV1",
                    "fieldsV1": {
                        "f:data": {"f:a": {}, "f:b": {}},
                        "f:metadata": {"f:labels": {"f:app": {}}}
                    }
                }]
            },
            "data": {"a": "1", "b": "2"}
        })
    );
    let applied = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm", "namespace": "default", "labels": {"app": "demo"}}, "data": {"a": "1", "b": "2"}});
    assert_eq!(apply_create(&applied, &options("ctrl", "2026-01-01T00:00:00Z")).unwrap(), created);
}

#[test]
fn repeated_apply_by_the_same_manager_is_idempotent() {
    let first = ssa(&Value::Null, CONFIG_YAML, &options("ctrl", "t1")).unwrap();
    let second = ssa(&first, CONFIG_YAML, &options("ctrl", "t2")).unwrap();
    assert_eq!(second, first, "a no-op apply must not even bump the timestamp");
}

#[test]
fn fields_dropped_by_the_same_manager_are_removed() {
    let first = ssa(&Value::Null, CONFIG_YAML, &options("ctrl", "t1")).unwrap();
    let smaller = "{apiVersion: v1, kind: ConfigMap, metadata: {name: cm, namespace: default}, data: {a: '1'}}";
    let second = ssa(&first, smaller, &options("ctrl", "t2")).unwrap();
    assert_eq!(second["data"], json!({"a": "1"}));
    assert_eq!(second["metadata"].get("labels"), None, "empty labels map is pruned");
    assert_eq!(second["metadata"]["managedFields"][0]["time"], "t2");
    assert_eq!(second["metadata"]["managedFields"][0]["fieldsV1"], json!({"f:data": {"f:a": {}}}));
}

#[test]
fn fields_set_by_others_are_kept() {
    let mut live = ssa(&Value::Null, CONFIG_YAML, &options("ctrl", "t1")).unwrap();
    live["data"]["other"] = json!("kept");
    let smaller = r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"a":"1","b":"2"}}"#;
    let next = ssa(&live, smaller, &options("ctrl", "t2")).unwrap();
    assert_eq!(next["data"], json!({"a": "1", "b": "2", "other": "kept"}));
}

#[test]
fn status_and_spec_are_owned_per_subresource() {
    let spec = "{apiVersion: example.io/v1, kind: Widget, metadata: {name: w}, spec: {size: 1}}";
    let status =
        "{apiVersion: example.io/v1, kind: Widget, metadata: {name: w}, status: {ready: true}}";
    let live = ssa(&Value::Null, spec, &options("ctrl", "t1")).unwrap();
    let mut on_status = options("ctrl", "t2");
    on_status.subresource = Some("status".to_owned());
    let live = ssa(&live, status, &on_status).unwrap();
    assert_eq!(live["spec"], json!({"size": 1}));
    assert_eq!(live["status"], json!({"ready": true}));
    let entries = live["metadata"]["managedFields"].as_array().unwrap();
    assert_eq!(entries.len(), 2);
    assert_eq!(entries[1]["subresource"], "status");
    assert_eq!(entries[1]["fieldsV1"], json!({"f:status": {"f:ready": {}}}));
    // Re-applying status again changes nothing.
    assert_eq!(ssa(&live, status, &on_status).unwrap(), live);
}

#[test]
fn conflicting_value_from_another_manager_is_409_unless_forced() {
    let live = ssa(&Value::Null, CONFIG_YAML, &options("ctrl", "t1")).unwrap();
    let other =
        "{apiVersion: v1, kind: ConfigMap, metadata: {name: cm}, data: {a: changed, b: '2'}}";
    let err = ssa(&live, other, &options("other", "t2")).unwrap_err();
    assert_eq!((err.status_code(), err.reason()), (409, "Conflict"));
    assert_eq!(err.to_string(), "Apply failed with 1 conflict: conflict with \"ctrl\": .data.a");

    let mut forced = options("other", "t2");
    forced.force = true;
    let taken = ssa(&live, other, &forced).unwrap();
    assert_eq!(taken["data"]["a"], "changed");
    let entries = taken["metadata"]["managedFields"].as_array().unwrap();
    assert_eq!(
        entries[0]["fieldsV1"],
        json!({"f:data": {"f:b": {}}, "f:metadata": {"f:labels": {"f:app": {}}}}),
        "the forced field leaves the previous owner"
    );
    assert_eq!(entries[1]["fieldsV1"], json!({"f:data": {"f:a": {}, "f:b": {}}}));
}

#[test]
fn several_conflicts_are_grouped_by_manager() {
    let live = ssa(&Value::Null, CONFIG_YAML, &options("ctrl", "t1")).unwrap();
    let other = "{apiVersion: v1, kind: ConfigMap, metadata: {name: cm}, data: {a: x, b: y}}";
    let err = ssa(&live, other, &options("other", "t2")).unwrap_err();
    assert_eq!(
        err.to_string(),
        "Apply failed with 2 conflicts: conflicts with \"ctrl\":\n- .data.a\n- .data.b"
    );
}

#[test]
fn same_value_from_another_manager_is_shared_not_a_conflict() {
    let live = ssa(&Value::Null, CONFIG_YAML, &options("ctrl", "t1")).unwrap();
    let shared = "{apiVersion: v1, kind: ConfigMap, metadata: {name: cm}, data: {a: '1'}}";
    let next = ssa(&live, shared, &options("other", "t2")).unwrap();
    // ctrl dropping `a` later must not delete it: `other` still owns it.
    let ctrl_without_a = "{apiVersion: v1, kind: ConfigMap, metadata: {name: cm}, data: {b: '2'}}";
    let after = ssa(&next, ctrl_without_a, &options("ctrl", "t3")).unwrap();
    assert_eq!(after["data"], json!({"a": "1", "b": "2"}));
}

#[test]
fn missing_or_invalid_field_manager_is_422() {
    let err = apply_patch(&json!({}), PatchType::Apply, b"{}", None, None).unwrap_err();
    assert_eq!((err.status_code(), err.reason()), (422, "Invalid"));
    assert_eq!(
        err.to_string(),
        "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch"
    );
    let long = options(&"m".repeat(129), "t");
    assert_eq!(ssa(&json!({}), "{}", &long).unwrap_err().status_code(), 422);
    // The manager is quoted as Go's %q quotes it (`\x01`), not as Rust's Debug (`\u{1}`).
    let control = options("ctl\u{1}é", "t");
    assert_eq!(
        ssa(&json!({}), "{}", &control).unwrap_err().to_string(),
        "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Invalid value: \"ctl\\x01é\": invalid character U+0001 (at position 3)"
    );
}

#[test]
fn malformed_apply_bodies_are_400() {
    for body in ["[1, 2]", "a: [", "a: &x 1\nb: *y"] {
        let err = ssa(&json!({}), body, &options("m", "t")).unwrap_err();
        assert_eq!(err.status_code(), 400, "{body}");
    }
    let err = ssa(&json!({}), "[1]", &options("m", "t")).unwrap_err();
    assert_eq!(
        err.to_string(),
        "json: cannot unmarshal array into Go value of type map[string]interface {}"
    );
}

#[test]
fn update_managers_are_named_with_their_api_version() {
    let live = json!({
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "cm", "managedFields": [{
            "manager": "kubectl-edit", "operation": "Update", "apiVersion": "v1",
            "time": "t0", "fieldsType": "FieldsV1",
            "fieldsV1": {"f:data": {".": {}, "f:a": {}}}
        }]},
        "data": {"a": "old"}
    });
    let err = ssa(&live, "{data: {a: new}}", &options("ctrl", "t1")).unwrap_err();
    assert_eq!(
        err.to_string(),
        "Apply failed with 1 conflict: conflict with \"kubectl-edit\" using v1: .data.a"
    );
}

#[test]
fn kube_rs_json_bodies_are_accepted() {
    // kube-rs serializes Patch::Apply as one line of JSON; long values must still parse.
    let long = "x".repeat(5000);
    let body = json!({
        "apiVersion": "v1", "kind": "Secret",
        "metadata": {"name": "s", "annotations": {"note": long}},
        "stringData": {"k": "v"}
    })
    .to_string();
    let created = ssa(&Value::Null, &body, &options("kube-rs", "t")).unwrap();
    assert_eq!(created["metadata"]["annotations"]["note"], json!(long));
    assert_eq!(created["stringData"], json!({"k": "v"}));
}
