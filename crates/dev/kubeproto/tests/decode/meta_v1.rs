//! ObjectMeta with every field, DeleteOptions, unknown fields and repeated occurrences.

use certgate_kubeproto::{DecodeError, decode};
use serde_json::{Value, json};

use crate::support::{Msg, envelope, msg, time};

fn config_map(metadata: Msg) -> Value {
    decode(&envelope("v1", "ConfigMap", msg().message(1, metadata))).unwrap()
}

#[test]
fn object_meta_with_every_field() {
    let owner = msg()
        .string(1, "Deployment")
        .string(3, "web")
        .string(4, "0c5e")
        .string(5, "apps/v1")
        .bool(6, true)
        .bool(7, false);
    let managed = msg()
        .string(1, "kubectl-create")
        .string(2, "Update")
        .string(3, "v1")
        .message(4, time(1_700_000_000))
        .string(6, "FieldsV1")
        .message(7, msg().string(1, r#"{"f:data":{".":{},"f:a":{}}}"#))
        .string(8, "");
    let metadata = msg()
        .string(1, "web-config")
        .string(2, "web-")
        .string(3, "prod")
        .string(4, "/api/v1/namespaces/prod/configmaps/web-config")
        .string(5, "7d3f")
        .string(6, "1234")
        .int(7, 3)
        .message(8, time(1_700_000_000))
        .message(9, time(1_700_000_030))
        .int(10, 30)
        .entry(11, "app", b"web")
        .entry(11, "tier", b"front")
        .entry(12, "note", b"hello")
        .message(13, owner)
        .message(13, msg())
        .strings(14, &["example.com/keep", "kubernetes"])
        .message(17, managed);
    assert_eq!(
        config_map(metadata)["metadata"],
        json!({
            "name": "web-config",
            "generateName": "web-",
            "namespace": "prod",
            "selfLink": "/api/v1/namespaces/prod/configmaps/web-config",
            "uid": "7d3f",
            "resourceVersion": "1234",
            "generation": 3,
            "creationTimestamp": "2023-11-14T22:13:20Z",
            "deletionTimestamp": "2023-11-14T22:13:50Z",
            "deletionGracePeriodSeconds": 30,
            "labels": {"app": "web", "tier": "front"},
            "annotations": {"note": "hello"},
            "ownerReferences": [
                {
                    "apiVersion": "apps/v1",
                    "kind": "Deployment",
                    "name": "web",
                    "uid": "0c5e",
                    "controller": true,
                    "blockOwnerDeletion": false,
                },
                // OwnerReference's four strings have no omitempty.
                {"apiVersion": "", "kind": "", "name": "", "uid": ""},
            ],
            "finalizers": ["example.com/keep", "kubernetes"],
            "managedFields": [
                {
                    "manager": "kubectl-create",
                    "operation": "Update",
                    "apiVersion": "v1",
                    "time": "2023-11-14T22:13:20Z",
                    "fieldsType": "FieldsV1",
                    "fieldsV1": {"f:data": {".": {}, "f:a": {}}},
                },
            ],
        })
    );
}

#[test]
fn object_meta_zero_values_follow_go() {
    // generation 0 and empty strings are omitted; an empty deletionTimestamp message is a
    // non-nil pointer to the zero time, which Go writes as null; a Timestamp message with
    // seconds 0 is the Unix epoch, not the zero time; Time drops nanos.
    let metadata = msg()
        .int(7, 0)
        .message(8, msg().int(1, 0).int(2, 999))
        .message(9, msg())
        .int(10, 0)
        .message(17, msg().message(7, msg()));
    assert_eq!(
        config_map(metadata)["metadata"],
        json!({
            "creationTimestamp": "1970-01-01T00:00:00Z",
            "deletionTimestamp": null,
            "deletionGracePeriodSeconds": 0,
            "managedFields": [{"fieldsV1": null}],
        })
    );
}

#[test]
fn negative_int64_values_decode_from_ten_byte_varints() {
    let metadata = msg().int(7, -5).int(10, i64::MIN);
    assert_eq!(
        config_map(metadata)["metadata"],
        json!({"generation": -5, "creationTimestamp": null, "deletionGracePeriodSeconds": i64::MIN})
    );
}

#[test]
fn unknown_fields_of_every_wire_type_are_skipped() {
    // 15 (clusterName) and 16 (initializers) were removed from ObjectMeta; 99, 100, 101 and
    // 536870911 were never used.
    let metadata = msg()
        .string(15, "old-cluster")
        .message(16, msg().string(1, "x"))
        .string(1, "kept")
        .varint(99, 1)
        .fixed32(100, 7)
        .fixed64(101, 9)
        .string(536_870_911, "highest field number");
    let body = envelope("v1", "ConfigMap", msg().message(1, metadata).varint(1000, 5));
    assert_eq!(
        decode(&body).unwrap(),
        json!({"kind": "ConfigMap", "apiVersion": "v1", "metadata": {"name": "kept", "creationTimestamp": null}})
    );
}

#[test]
fn repeated_fields_merge_like_go() {
    // Scalars: last wins. Lists: append. Embedded messages: merge. Times: replace.
    let body = envelope(
        "v1",
        "ConfigMap",
        msg()
            .message(1, msg().string(1, "first").strings(14, &["a"]).message(8, time(0)))
            .message(1, msg().string(1, "second").strings(14, &["b"]).string(3, "ns"))
            .bool(4, true)
            .bool(4, false),
    );
    assert_eq!(
        decode(&body).unwrap(),
        json!({
            "kind": "ConfigMap",
            "apiVersion": "v1",
            "metadata": {
                "name": "second",
                "namespace": "ns",
                "creationTimestamp": "1970-01-01T00:00:00Z",
                "finalizers": ["a", "b"],
            },
            "immutable": false,
        })
    );
}

#[test]
fn invalid_managed_fields_json_is_refused() {
    let metadata = msg().message(17, msg().message(7, msg().string(1, "{not json")));
    let err = decode(&envelope("v1", "ConfigMap", msg().message(1, metadata))).unwrap_err();
    assert_eq!(
        err.to_string(),
        "fieldsV1 of ManagedFieldsEntry at byte 32 is not valid JSON (key must be a string at line 1 \
         column 2); send managedFields as JSON field sets, or leave them out"
    );
}

#[test]
fn delete_options_with_every_field() {
    let object = msg()
        .int(1, 0)
        .message(2, msg().string(1, "7d3f").string(2, "1234"))
        .bool(3, false)
        .string(4, "Foreground")
        .strings(5, &["All"])
        .bool(6, true);
    assert_eq!(
        decode(&envelope("meta.k8s.io/v1", "DeleteOptions", object)).unwrap(),
        json!({
            "kind": "DeleteOptions",
            "apiVersion": "meta.k8s.io/v1",
            "gracePeriodSeconds": 0,
            "preconditions": {"uid": "7d3f", "resourceVersion": "1234"},
            "orphanDependents": false,
            "propagationPolicy": "Foreground",
            "dryRun": ["All"],
            "ignoreStoreReadErrorWithClusterBreakingPotential": true,
        })
    );
}

#[test]
fn empty_delete_options_and_preconditions() {
    let object = msg().message(2, msg());
    assert_eq!(
        decode(&envelope("meta.k8s.io/v1", "DeleteOptions", object)).unwrap(),
        json!({"kind": "DeleteOptions", "apiVersion": "meta.k8s.io/v1", "preconditions": {}})
    );
}

#[test]
fn delete_options_in_a_resource_group_version() {
    // client-go sends DeleteOptions in the group version of the resource being deleted.
    for api_version in ["v1", "rbac.authorization.k8s.io/v1", "apps/v1"] {
        let body = envelope(api_version, "DeleteOptions", msg().string(4, "Background"));
        assert_eq!(
            decode(&body).unwrap(),
            json!({"kind": "DeleteOptions", "apiVersion": api_version, "propagationPolicy": "Background"})
        );
    }
    let body = envelope("meta.k8s.io/v1beta1", "DeleteOptions", msg());
    assert_eq!(
        decode(&body),
        Err(DecodeError::UnsupportedKind {
            api_version: "meta.k8s.io/v1beta1".to_owned(),
            kind: "DeleteOptions".to_owned(),
        })
    );
}

#[test]
fn every_supported_kind_decodes_an_empty_object() {
    for (api_version, kind) in certgate_kubeproto::supported_kinds() {
        let value = decode(&envelope(api_version, kind, msg())).unwrap();
        assert_eq!(value["kind"], kind);
        assert_eq!(value["apiVersion"], api_version);
    }
    assert_eq!(certgate_kubeproto::supported_kinds().count(), 16);
}
