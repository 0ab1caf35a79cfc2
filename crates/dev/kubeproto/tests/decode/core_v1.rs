//! `v1` Namespace, ConfigMap, Secret, ServiceAccount.

use certgate_kubeproto::decode;
use serde_json::{Value, json};

use crate::support::{envelope, go_object_meta, msg, time};

fn decoded(kind: &str, object: crate::support::Msg) -> Value {
    decode(&envelope("v1", kind, object)).unwrap()
}

#[test]
fn kubectl_create_namespace() {
    // Namespace{ObjectMeta{Name}} as Go marshals it: empty spec and status are still written.
    let object = msg()
        .message(1, go_object_meta("team-a", ""))
        .message(2, msg())
        .message(3, msg().string(1, ""));
    assert_eq!(
        decoded("Namespace", object),
        json!({
            "kind": "Namespace",
            "apiVersion": "v1",
            "metadata": {"name": "team-a", "creationTimestamp": null},
            "spec": {},
            "status": {},
        })
    );
}

#[test]
fn namespace_with_finalizers_and_conditions() {
    let condition = msg()
        .string(1, "NamespaceDeletionContentFailure")
        .string(2, "False")
        .message(4, time(1_700_000_000))
        .string(5, "ContentDeleted")
        .string(6, "All content successfully deleted");
    let object = msg()
        .message(1, msg().string(1, "team-b"))
        .message(2, msg().strings(1, &["kubernetes", "example.com/cleanup"]))
        .message(3, msg().string(1, "Terminating").message(2, condition).message(2, msg()));
    assert_eq!(
        decoded("Namespace", object),
        json!({
            "kind": "Namespace",
            "apiVersion": "v1",
            "metadata": {"name": "team-b", "creationTimestamp": null},
            "spec": {"finalizers": ["kubernetes", "example.com/cleanup"]},
            "status": {
                "phase": "Terminating",
                "conditions": [
                    {
                        "type": "NamespaceDeletionContentFailure",
                        "status": "False",
                        "lastTransitionTime": "2023-11-14T22:13:20Z",
                        "reason": "ContentDeleted",
                        "message": "All content successfully deleted",
                    },
                    // type and status have no omitempty; lastTransitionTime is a struct.
                    {"type": "", "status": "", "lastTransitionTime": null},
                ],
            },
        })
    );
}

#[test]
fn kubectl_create_configmap_with_literals_and_a_binary_file() {
    // Entries arrive in any order; JSON keys come out sorted, as Go writes maps.
    let object = msg()
        .message(1, go_object_meta("settings", "default"))
        .entry(2, "mode", b"fast")
        .entry(2, "level", b"3")
        .entry(3, "logo.png", &[0x89, b'P', b'N', b'G', 0x00, 0xff])
        .bool(4, true);
    let value = decoded("ConfigMap", object);
    assert_eq!(
        value,
        json!({
            "kind": "ConfigMap",
            "apiVersion": "v1",
            "metadata": {"name": "settings", "namespace": "default", "creationTimestamp": null},
            "immutable": true,
            "data": {"level": "3", "mode": "fast"},
            "binaryData": {"logo.png": "iVBORwD/"},
        })
    );
    assert_eq!(
        serde_json::to_string(&value).unwrap(),
        r#"{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"settings","namespace":"default","creationTimestamp":null},"immutable":true,"data":{"level":"3","mode":"fast"},"binaryData":{"logo.png":"iVBORwD/"}}"#
    );
}

#[test]
fn configmap_map_entries_follow_go() {
    // A repeated key keeps the last value; a missing value is ""; a missing key is "".
    let object = msg()
        .entry(2, "a", b"first")
        .entry(2, "a", b"second")
        .message(2, msg().string(1, "no-value"))
        .message(2, msg().string(2, "no-key"))
        .message(3, msg().string(1, "empty"));
    assert_eq!(
        decoded("ConfigMap", object),
        json!({
            "kind": "ConfigMap",
            "apiVersion": "v1",
            "metadata": {"creationTimestamp": null},
            "data": {"": "no-key", "a": "second", "no-value": ""},
            "binaryData": {"empty": ""},
        })
    );
}

#[test]
fn kubectl_create_secret_generic() {
    let object = msg()
        .message(1, go_object_meta("db", "prod"))
        .entry(2, "password", b"s3cr3t\x00\xfe")
        .string(3, "Opaque")
        .entry(4, "user", b"admin")
        .bool(5, false);
    assert_eq!(
        decoded("Secret", object),
        json!({
            "kind": "Secret",
            "apiVersion": "v1",
            "metadata": {"name": "db", "namespace": "prod", "creationTimestamp": null},
            // A pointer on the wire is written even when false.
            "immutable": false,
            "data": {"password": "czNjcjN0AP4="},
            "stringData": {"user": "admin"},
            "type": "Opaque",
        })
    );
}

#[test]
fn secret_with_an_empty_type_leaves_it_out() {
    let object = msg().message(1, go_object_meta("empty", "")).string(3, "");
    assert_eq!(
        decoded("Secret", object),
        json!({
            "kind": "Secret",
            "apiVersion": "v1",
            "metadata": {"name": "empty", "creationTimestamp": null},
        })
    );
}

#[test]
fn kubectl_create_serviceaccount_with_every_field() {
    let secret = msg()
        .string(1, "Secret")
        .string(2, "ci")
        .string(3, "builder-token")
        .string(4, "8f1c")
        .string(5, "v1")
        .string(6, "42")
        .string(7, "data.token");
    let object = msg()
        .message(1, go_object_meta("builder", "ci"))
        .message(2, secret)
        .message(2, msg().string(3, "other"))
        .message(3, msg().string(1, "registry"))
        .message(3, msg())
        .bool(4, false);
    assert_eq!(
        decoded("ServiceAccount", object),
        json!({
            "kind": "ServiceAccount",
            "apiVersion": "v1",
            "metadata": {"name": "builder", "namespace": "ci", "creationTimestamp": null},
            "secrets": [
                {
                    "kind": "Secret",
                    "namespace": "ci",
                    "name": "builder-token",
                    "uid": "8f1c",
                    "apiVersion": "v1",
                    "resourceVersion": "42",
                    "fieldPath": "data.token",
                },
                {"name": "other"},
            ],
            "imagePullSecrets": [{"name": "registry"}, {}],
            "automountServiceAccountToken": false,
        })
    );
}

#[test]
fn kubectl_create_serviceaccount_minimal() {
    let object = msg().message(1, go_object_meta("default", "ci"));
    assert_eq!(
        decoded("ServiceAccount", object),
        json!({
            "kind": "ServiceAccount",
            "apiVersion": "v1",
            "metadata": {"name": "default", "namespace": "ci", "creationTimestamp": null},
        })
    );
}
