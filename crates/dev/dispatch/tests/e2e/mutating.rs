//! Mutating webhooks: patches applied in order, reinvocation, and patch failures.

use certgate_dispatch::{Configurations, Dispatcher, Operation};
use serde_json::{Value, json};

use crate::support::*;

fn label<'a>(object: &'a Value, key: &str) -> Option<&'a str> {
    object["metadata"]["labels"][key].as_str()
}

#[tokio::test]
async fn patches_apply_in_order_and_later_webhooks_see_them() {
    let first =
        start(|r| patch(r, json!([{ "op": "add", "path": "/metadata/labels/one", "value": "1" }])))
            .await;
    let second = start(|r| {
        // Only patch when the first webhook's label is already there.
        if r["request"]["object"]["metadata"]["labels"]["one"] == "1" {
            patch(r, json!([{ "op": "add", "path": "/metadata/labels/two", "value": "2" }]))
        } else {
            allow(r)
        }
    })
    .await;
    let check = start(allow).await;
    let configs = Configurations::from_objects(
        &[mutating_configuration(
            "m",
            vec![
                webhook("first.example.com", &first.url("/"), &first.ca_pem, json!({})),
                webhook("second.example.com", &second.url("/"), &second.ca_pem, json!({})),
            ],
        )],
        &[validating_configuration(
            "v",
            vec![webhook("check.example.com", &check.url("/"), &check.ca_pem, json!({}))],
        )],
    );
    let dispatcher = Dispatcher::new();
    let mut attributes = pod_create("team", "p", json!({ "app": "web" }));
    dispatcher.mutate(&configs, &mut attributes).await.unwrap();
    let object = attributes.object.clone().unwrap();
    assert_eq!(
        (label(&object, "app"), label(&object, "one"), label(&object, "two")),
        (Some("web"), Some("1"), Some("2"))
    );
    assert_eq!(label(&second.received()[0].body["request"]["object"], "one"), Some("1"));

    dispatcher.validate(&configs, &attributes).await.unwrap();
    assert_eq!(check.received()[0].body["request"]["object"], object);
}

#[tokio::test]
async fn if_needed_webhooks_run_again_once_a_later_webhook_changed_the_object() {
    let reinvoked = start(|r| {
        let object = &r["request"]["object"];
        if object["metadata"]["labels"]["b"] == "yes" && object["metadata"]["annotations"].is_null() {
            patch(r, json!([{ "op": "add", "path": "/metadata/annotations", "value": { "saw-b": "true" } }]))
        } else {
            allow(r)
        }
    })
    .await;
    let never = start(allow).await;
    let labeller = start(|r| {
        if r["request"]["object"]["metadata"]["labels"]["b"].is_null() {
            patch(r, json!([{ "op": "add", "path": "/metadata/labels/b", "value": "yes" }]))
        } else {
            allow(r)
        }
    })
    .await;
    let configs = mutating(vec![
        webhook(
            "reinvoked.example.com",
            &reinvoked.url("/"),
            &reinvoked.ca_pem,
            json!({ "reinvocationPolicy": "IfNeeded" }),
        ),
        webhook(
            "never.example.com",
            &never.url("/"),
            &never.ca_pem,
            json!({ "reinvocationPolicy": "Never" }),
        ),
        webhook("labeller.example.com", &labeller.url("/"), &labeller.ca_pem, json!({})),
    ]);
    let mut attributes = pod_create("team", "p", json!({}));
    Dispatcher::new().mutate(&configs, &mut attributes).await.unwrap();
    assert_eq!((reinvoked.calls(), never.calls(), labeller.calls()), (2, 1, 1));
    let object = attributes.object.unwrap();
    assert_eq!(object["metadata"]["annotations"], json!({ "saw-b": "true" }));
    assert_eq!(label(&object, "b"), Some("yes"));
}

#[tokio::test]
async fn no_reinvocation_without_a_change() {
    let hook = start(allow).await;
    let configs = mutating(vec![webhook(
        "idle.example.com",
        &hook.url("/"),
        &hook.ca_pem,
        json!({ "reinvocationPolicy": "IfNeeded" }),
    )]);
    let mut attributes = pod_create("team", "p", json!({}));
    let before = attributes.object.clone();
    Dispatcher::new().mutate(&configs, &mut attributes).await.unwrap();
    assert_eq!(hook.calls(), 1);
    assert_eq!(attributes.object, before);
}

#[tokio::test]
async fn a_patch_on_delete_is_an_internal_error() {
    let hook = start(|r| patch(r, json!([{ "op": "add", "path": "/x", "value": 1 }]))).await;
    let configs = mutating(vec![webhook(
        "deleter.example.com",
        &hook.url("/"),
        &hook.ca_pem,
        json!({ "rules": [{ "operations": ["DELETE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods"] }] }),
    )]);
    let mut attributes = pod_create("team", "p", json!({}));
    attributes.operation = Operation::Delete;
    attributes.old_object = attributes.object.take();
    let rejection = Dispatcher::new().mutate(&configs, &mut attributes).await.unwrap_err();
    assert_eq!((rejection.code, rejection.reason.as_str()), (500, "InternalError"));
    assert_eq!(
        rejection.message,
        r#"Internal error occurred: admission webhook "deleter.example.com" attempted to modify the object, which is not supported for this operation"#
    );
}

#[tokio::test]
async fn an_undecodable_patch_follows_the_failure_policy() {
    let hook = start(|r| {
        use base64::Engine;
        let encoded = base64::engine::general_purpose::STANDARD.encode("{not a patch");
        respond(r, json!({ "patch": encoded, "patchType": "JSONPatch" }))
    })
    .await;
    let url = hook.url("/");
    let failing = mutating(vec![webhook("broken.example.com", &url, &hook.ca_pem, json!({}))]);
    let mut attributes = pod_create("team", "p", json!({}));
    let rejection = Dispatcher::new().mutate(&failing, &mut attributes).await.unwrap_err();
    assert!(
        rejection.message.starts_with(
            r#"Internal error occurred: failed calling webhook "broken.example.com": received undecodable patch in webhook response: "#
        ),
        "{}",
        rejection.message
    );

    let ignoring = mutating(vec![webhook(
        "broken.example.com",
        &url,
        &hook.ca_pem,
        json!({ "failurePolicy": "Ignore" }),
    )]);
    let before = attributes.object.clone();
    Dispatcher::new().mutate(&ignoring, &mut attributes).await.unwrap();
    assert_eq!(attributes.object, before);
}

#[tokio::test]
async fn a_patch_that_does_not_apply_rejects_even_under_ignore() {
    let hook =
        start(|r| patch(r, json!([{ "op": "remove", "path": "/metadata/annotations/missing" }])))
            .await;
    let configs = mutating(vec![webhook(
        "remover.example.com",
        &hook.url("/"),
        &hook.ca_pem,
        json!({ "failurePolicy": "Ignore" }),
    )]);
    let mut attributes = pod_create("team", "p", json!({}));
    let rejection = Dispatcher::new().mutate(&configs, &mut attributes).await.unwrap_err();
    assert_eq!((rejection.code, rejection.reason.as_str()), (500, "InternalError"));
    assert!(
        rejection.message.starts_with(
            "Internal error occurred: operation '/0' failed at path '/metadata/annotations/missing'"
        ),
        "{}",
        rejection.message
    );
}

#[tokio::test]
async fn patches_may_not_change_the_kind_or_move_the_object_to_another_namespace() {
    let kind =
        start(|r| patch(r, json!([{ "op": "replace", "path": "/kind", "value": "ConfigMap" }])))
            .await;
    let configs =
        mutating(vec![webhook("kind.example.com", &kind.url("/"), &kind.ca_pem, json!({}))]);
    let rejection = Dispatcher::new()
        .mutate(&configs, &mut pod_create("team", "p", json!({})))
        .await
        .unwrap_err();
    assert_eq!(rejection.code, 500);
    assert_eq!(
        rejection.message,
        r#"Internal error occurred: admission webhook "kind.example.com" changed kind from "Pod" to "ConfigMap", which the sandbox does not support"#
    );

    let mover = start(|r| {
        patch(r, json!([{ "op": "replace", "path": "/metadata/namespace", "value": "other" }]))
    })
    .await;
    let configs =
        mutating(vec![webhook("mover.example.com", &mover.url("/"), &mover.ca_pem, json!({}))]);
    let rejection = Dispatcher::new()
        .mutate(&configs, &mut pod_create("team", "p", json!({})))
        .await
        .unwrap_err();
    assert_eq!((rejection.code, rejection.reason.as_str()), (400, "BadRequest"));
    assert_eq!(
        rejection.message,
        "the namespace of the provided object does not match the namespace sent on the request"
    );
}

#[tokio::test]
async fn renaming_on_update_is_invalid() {
    let hook =
        start(|r| patch(r, json!([{ "op": "replace", "path": "/metadata/name", "value": "q" }])))
            .await;
    let configs =
        mutating(vec![webhook("renamer.example.com", &hook.url("/"), &hook.ca_pem, json!({}))]);
    let mut attributes = pod_create("team", "p", json!({}));
    attributes.operation = Operation::Update;
    attributes.old_object = attributes.object.clone();
    let rejection = Dispatcher::new().mutate(&configs, &mut attributes).await.unwrap_err();
    assert_eq!((rejection.code, rejection.reason.as_str()), (422, "Invalid"));
    assert_eq!(
        rejection.message,
        r#"Pod "q" is invalid: metadata.name: Invalid value: "q": field is immutable"#
    );
}

#[tokio::test]
async fn a_mutating_denial_stops_the_chain() {
    let deny = start(|r| {
        respond(r, json!({ "allowed": false, "status": { "message": "no", "code": 422 } }))
    })
    .await;
    let after = start(allow).await;
    let configs = mutating(vec![
        webhook("deny.example.com", &deny.url("/"), &deny.ca_pem, json!({})),
        webhook("after.example.com", &after.url("/"), &after.ca_pem, json!({})),
    ]);
    let rejection = Dispatcher::new()
        .mutate(&configs, &mut pod_create("team", "p", json!({})))
        .await
        .unwrap_err();
    assert_eq!(rejection.code, 422);
    assert_eq!(rejection.message, r#"admission webhook "deny.example.com" denied the request: no"#);
    assert_eq!(after.calls(), 0);
}

#[tokio::test]
async fn a_patch_needs_its_patch_type() {
    let hook = start(|r| {
        use base64::Engine;
        let encoded = base64::engine::general_purpose::STANDARD.encode("[]");
        respond(r, json!({ "patch": encoded }))
    })
    .await;
    let configs =
        mutating(vec![webhook("typeless.example.com", &hook.url("/"), &hook.ca_pem, json!({}))]);
    let rejection = Dispatcher::new()
        .mutate(&configs, &mut pod_create("team", "p", json!({})))
        .await
        .unwrap_err();
    assert_eq!(
        rejection.message,
        r#"Internal error occurred: failed calling webhook "typeless.example.com": received invalid webhook response: webhook returned response.patch but not response.patchType"#
    );
}
