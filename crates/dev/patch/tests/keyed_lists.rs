//! Server-side apply of keyed lists (`x-kubernetes-list-type: map`) and sets, checked
//! against what kube-apiserver v1.37.2 answered for the same applies.

use certgate_patch::{ApplyOptions, PatchError, PatchType, apply_patch, builtin_strategy};
use serde_json::{Value, json};

fn schema() -> Value {
    json!({"type": "object", "properties": {
        "status": {"type": "object", "properties": {"conditions": {
            "type": "array", "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["type"], "items": {"type": "object"}}}},
        "spec": {"type": "object", "properties": {
            "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
            "plain": {"type": "array", "items": {"type": "string"}},
            "ports": {"type": "array", "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["protocol", "name"],
                "items": {"type": "object", "properties": {"rules": {
                    "type": "array", "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["id"], "items": {"type": "object"}}}}}}}}})
}

fn options(manager: &str, time: &str) -> ApplyOptions {
    ApplyOptions {
        field_manager: manager.to_owned(),
        time: time.to_owned(),
        schema: Some(schema()),
        ..ApplyOptions::default()
    }
}

fn ssa(live: &Value, body: &Value, options: &ApplyOptions) -> Result<Value, PatchError> {
    apply_patch(live, PatchType::Apply, body.to_string().as_bytes(), None, Some(options))
}

fn widget(spec: Value) -> Value {
    json!({"apiVersion": "probe.io/v1", "kind": "Widget",
           "metadata": {"name": "w", "namespace": "default"}, "spec": spec})
}

fn request(conditions: Value) -> Value {
    json!({"apiVersion": "cert-manager.io/v1", "kind": "CertificateRequest",
           "metadata": {"name": "ssa-tls", "namespace": "payments"},
           "status": {"conditions": conditions}})
}

fn managed(object: &Value) -> Vec<(String, Value)> {
    object["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["manager"].as_str().unwrap().to_owned(), e["fieldsV1"].clone()))
        .collect()
}

/// first applies Ready, second applies Approved.
fn two_conditions() -> Value {
    let first = ssa(
        &Value::Null,
        &request(json!([{"type": "Ready", "status": "False", "reason": "Pending", "message": "waiting"}])),
        &options("first", "2026-01-01T00:00:00Z"),
    )
    .unwrap();
    ssa(
        &first,
        &request(
            json!([{"type": "Approved", "status": "True", "reason": "manual", "message": "ok"}]),
        ),
        &options("second", "2026-01-01T00:00:01Z"),
    )
    .unwrap()
}

#[test]
fn two_managers_keep_their_own_items_recorded_by_key() {
    let object = two_conditions();
    assert_eq!(
        object["status"]["conditions"],
        json!([
        {"type": "Ready", "status": "False", "reason": "Pending", "message": "waiting"},
        {"type": "Approved", "status": "True", "reason": "manual", "message": "ok"}])
    );
    let item = json!({".": {}, "f:message": {}, "f:reason": {}, "f:status": {}, "f:type": {}});
    assert_eq!(
        managed(&object),
        vec![
            (
                "first".to_owned(),
                json!({"f:status": {"f:conditions": {r#"k:{"type":"Ready"}"#: item}}})
            ),
            (
                "second".to_owned(),
                json!({"f:status": {"f:conditions": {r#"k:{"type":"Approved"}"#: item}}})
            ),
        ]
    );
}

#[test]
fn a_field_of_another_managers_item_conflicts_and_force_takes_only_that_field() {
    let object = two_conditions();
    let body = request(json!([{"type": "Ready", "status": "True", "reason": "Done"}]));
    let err = ssa(&object, &body, &options("third", "2026-01-01T00:00:02Z")).unwrap_err();
    assert_eq!(err.status_code(), 409);
    assert_eq!(
        err.status_message(),
        "Apply failed with 2 conflicts: conflicts with \"first\":\n\
         - .status.conditions[type=\"Ready\"].reason\n- .status.conditions[type=\"Ready\"].status"
    );
    let one = request(json!([{"type": "Ready", "status": "True"}]));
    let err = ssa(&object, &one, &options("third", "2026-01-01T00:00:02Z")).unwrap_err();
    assert_eq!(
        err.status_message(),
        "Apply failed with 1 conflict: conflict with \"first\": .status.conditions[type=\"Ready\"].status"
    );

    let forced = ApplyOptions { force: true, ..options("third", "2026-01-01T00:00:02Z") };
    let object = ssa(&object, &one, &forced).unwrap();
    assert_eq!(
        object["status"]["conditions"][0],
        json!({"type": "Ready", "status": "True", "reason": "Pending", "message": "waiting"})
    );
    let managers = managed(&object);
    assert_eq!(
        managers[0].1,
        json!({"f:status": {"f:conditions": {r#"k:{"type":"Ready"}"#:
        {".": {}, "f:message": {}, "f:reason": {}, "f:type": {}}}}})
    );
    assert_eq!(
        managers[2].1,
        json!({"f:status": {"f:conditions": {r#"k:{"type":"Ready"}"#:
        {".": {}, "f:status": {}, "f:type": {}}}}})
    );
}

#[test]
fn conflicts_name_the_other_managers_subresource() {
    let status = |manager: &str| ApplyOptions {
        subresource: Some("status".to_owned()),
        ..options(manager, "2026-01-01T00:00:00Z")
    };
    let object = ssa(
        &Value::Null,
        &request(json!([{"type": "Ready", "status": "False"}])),
        &status("first"),
    )
    .unwrap();
    let err =
        ssa(&object, &request(json!([{"type": "Ready", "status": "True"}])), &status("third"))
            .unwrap_err();
    assert_eq!(
        err.status_message(),
        "Apply failed with 1 conflict: conflict with \"first\" with subresource \"status\": .status.conditions[type=\"Ready\"].status"
    );
}

#[test]
fn a_subset_of_an_item_is_shared_and_dropping_an_item_removes_only_unowned_fields() {
    let object = two_conditions();
    // Same values for a subset of Ready's fields: shared, no conflict, nothing changes,
    // and a manager whose apply changed nothing gets no time.
    let subset = request(json!([{"type": "Ready", "reason": "Pending"}]));
    let object = ssa(&object, &subset, &options("third", "2026-01-01T00:00:02Z")).unwrap();
    let third = &object["metadata"]["managedFields"][0];
    assert_eq!(third["manager"], "third");
    assert_eq!(third.get("time"), None);

    // first stops applying Ready: the fields third shares stay, message goes.
    let empty = json!({"apiVersion": "cert-manager.io/v1", "kind": "CertificateRequest",
        "metadata": {"name": "ssa-tls", "namespace": "payments"}, "status": {}});
    let object = ssa(&object, &empty, &options("first", "2026-01-01T00:00:03Z")).unwrap();
    assert_eq!(
        object["status"]["conditions"],
        json!([
        {"type": "Ready", "reason": "Pending"},
        {"type": "Approved", "status": "True", "reason": "manual", "message": "ok"}])
    );
    let managers = managed(&object);
    assert!(managers.contains(&("first".to_owned(), json!({"f:status": {}}))), "{managers:?}");

    // second stops too: its whole item goes; third's stays.
    let object = ssa(&object, &empty, &options("second", "2026-01-01T00:00:04Z")).unwrap();
    assert_eq!(object["status"]["conditions"], json!([{"type": "Ready", "reason": "Pending"}]));
}

#[test]
fn sets_and_nested_map_lists_merge_in_upstreams_order_and_removal_prunes_empty_lists() {
    let m1 = ssa(
        &Value::Null,
        &widget(json!({
        "tags": ["b", "a"], "plain": ["x"],
        "ports": [{"name": "http", "protocol": "TCP", "port": 80,
                   "rules": [{"id": 2, "action": "allow"}, {"id": 1}]}]})),
        &options("m1", "2026-01-01T00:00:00Z"),
    )
    .unwrap();
    assert_eq!(
        managed(&m1)[0].1,
        json!({"f:spec": {
        "f:plain": {},
        "f:ports": {r#"k:{"name":"http","protocol":"TCP"}"#: {".": {}, "f:name": {}, "f:port": {}, "f:protocol": {},
            "f:rules": {r#"k:{"id":1}"#: {".": {}, "f:id": {}}, r#"k:{"id":2}"#: {".": {}, "f:action": {}, "f:id": {}}}}},
        "f:tags": {r#"v:"a""#: {}, r#"v:"b""#: {}}}})
    );

    let m2 = ssa(
        &m1,
        &widget(json!({
        "tags": ["c", "a"],
        "ports": [{"name": "http", "protocol": "TCP", "rules": [{"id": 3, "action": "deny"}]},
                  {"name": "dns", "protocol": "UDP", "port": 53}]})),
        &options("m2", "2026-01-01T00:00:01Z"),
    )
    .unwrap();
    assert_eq!(
        m2["spec"],
        json!({
        "tags": ["b", "c", "a"], "plain": ["x"],
        "ports": [{"name": "http", "protocol": "TCP", "port": 80,
                   "rules": [{"id": 2, "action": "allow"}, {"id": 1}, {"id": 3, "action": "deny"}]},
                  {"name": "dns", "protocol": "UDP", "port": 53}]})
    );

    let m1_again =
        ssa(&m2, &widget(json!({"tags": ["a"]})), &options("m1", "2026-01-01T00:00:02Z")).unwrap();
    assert_eq!(
        m1_again["spec"],
        json!({
        "tags": ["c", "a"],
        "ports": [{"name": "http", "protocol": "TCP", "rules": [{"id": 3, "action": "deny"}]},
                  {"name": "dns", "protocol": "UDP", "port": 53}]})
    );

    let m2_gone =
        ssa(&m1_again, &widget(json!({})), &options("m2", "2026-01-01T00:00:03Z")).unwrap();
    assert_eq!(m2_gone["spec"], json!({"tags": ["a"]}));
}

#[test]
fn duplicate_and_keyless_items_are_refused_with_upstreams_500() {
    let dup = ssa(
        &Value::Null,
        &widget(json!({"ports": [
        {"name": "x", "protocol": "TCP"}, {"name": "x", "protocol": "TCP"}]})),
        &options("m3", "t"),
    )
    .unwrap_err();
    assert_eq!((dup.status_code(), dup.reason()), (500, ""));
    assert_eq!(
        dup.status_message(),
        "failed to create typed patch object (default/w; probe.io/v1, Kind=Widget): .spec.ports: duplicate entries for key [name=\"x\",protocol=\"TCP\"]"
    );

    let set =
        ssa(&Value::Null, &widget(json!({"tags": ["a", "a"]})), &options("m3", "t")).unwrap_err();
    assert_eq!(
        set.status_message(),
        "failed to create typed patch object (default/w; probe.io/v1, Kind=Widget): .spec.tags: duplicate entries for key [=\"a\"]"
    );

    let keyless = ssa(&Value::Null, &widget(json!({"ports": [{"port": 1}]})), &options("m3", "t"))
        .unwrap_err();
    assert_eq!(
        keyless.status_message(),
        "failed to create typed patch object (default/w; probe.io/v1, Kind=Widget): .spec.ports: element 0: associative list with keys has an element that omits all key fields [\"protocol\" \"name\"] (and doesn't have default values for any key fields)"
    );

    // Built-in kinds: metadata.finalizers is a set, core kinds print an empty group.
    let cm = json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "cmx", "namespace": "default", "finalizers": ["a/b", "a/b"]}});
    let options = ApplyOptions { schema: None, ..options("m3", "t") };
    let err = apply_patch(
        &Value::Null,
        PatchType::Apply,
        cm.to_string().as_bytes(),
        builtin_strategy("", "ConfigMap"),
        Some(&options),
    )
    .unwrap_err();
    assert_eq!(
        err.status_message(),
        "failed to create typed patch object (default/cmx; /v1, Kind=ConfigMap): .metadata.finalizers: duplicate entries for key [=\"a/b\"]"
    );
}

#[test]
fn built_in_keyed_lists_follow_the_strategic_merge_table() {
    let hook = |name: &str| json!({"name": name, "sideEffects": "None"});
    let config = |hooks: Value| {
        json!({"apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingWebhookConfiguration", "metadata": {"name": "vw"}, "webhooks": hooks})
    };
    let strategy =
        builtin_strategy("admissionregistration.k8s.io", "ValidatingWebhookConfiguration");
    let run = |live: &Value, body: Value, manager: &str| {
        let options = ApplyOptions { schema: None, ..options(manager, "t") };
        apply_patch(live, PatchType::Apply, body.to_string().as_bytes(), strategy, Some(&options))
            .unwrap()
    };
    let one = run(&Value::Null, config(json!([hook("a.x.io")])), "a");
    let both = run(&one, config(json!([hook("b.x.io")])), "b");
    assert_eq!(both["webhooks"], json!([hook("a.x.io"), hook("b.x.io")]));
}

/// 10 000 items by two managers, then one manager drops its half: every step indexes the
/// list once (a per-item search would be 10^8 comparisons and time out in debug builds).
#[test]
fn ten_thousand_items_merge_conflict_check_and_remove() {
    let items = |from: usize, to: usize, status: &str| -> Value {
        (from..to).map(|i| json!({"type": format!("T{i:05}"), "status": status})).collect()
    };
    let object =
        ssa(&Value::Null, &request(items(0, 5_000, "True")), &options("first", "t1")).unwrap();
    let object =
        ssa(&object, &request(items(5_000, 10_000, "True")), &options("second", "t2")).unwrap();
    assert_eq!(object["status"]["conditions"].as_array().unwrap().len(), 10_000);
    let err =
        ssa(&object, &request(items(0, 10_000, "False")), &options("third", "t3")).unwrap_err();
    let PatchError::Conflicts(conflicts) = err else { panic!("expected conflicts") };
    assert_eq!(conflicts.len(), 10_000);
    let object = ssa(&object, &request(json!([])), &options("first", "t4")).unwrap();
    let left = object["status"]["conditions"].as_array().unwrap();
    assert_eq!(left.len(), 5_000);
    assert_eq!(left[0]["type"], "T05000");
}
