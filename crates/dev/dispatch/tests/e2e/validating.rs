//! Validating webhooks: allow, deny (message, reason, none), order, selectors, exemptions.

use certgate_dispatch::{Configurations, Dispatcher, GroupVersionKind, Rejection};
use serde_json::json;

use crate::support::*;

#[tokio::test]
async fn an_allowing_webhook_passes_and_its_warnings_are_returned() {
    let hook = start(|r| respond(r, json!({ "warnings": ["first", "", "first", "second"] }))).await;
    let configs = validating(vec![webhook(
        "allow.example.com",
        &hook.url("/validate"),
        &hook.ca_pem,
        json!({}),
    )]);
    let warnings =
        Dispatcher::new().validate(&configs, &pod_create("team", "p", json!({}))).await.unwrap();
    assert_eq!(warnings, ["first", "second"]);
    assert_eq!(hook.calls(), 1);
}

#[tokio::test]
async fn a_denial_with_a_message_keeps_the_webhooks_code_reason_and_details() {
    let hook = start(|r| {
        respond(
            r,
            json!({
                "allowed": false,
                "status": {
                    "code": 403,
                    "reason": "Forbidden",
                    "message": "pods must not run as root",
                    "details": { "name": "p", "kind": "pods" },
                },
                "warnings": ["about to deny"],
            }),
        )
    })
    .await;
    let configs =
        validating(vec![webhook("deny.example.com", &hook.url("/"), &hook.ca_pem, json!({}))]);
    let rejection = Dispatcher::new()
        .validate(&configs, &pod_create("team", "p", json!({})))
        .await
        .unwrap_err();
    assert_eq!(
        rejection,
        Rejection {
            code: 403,
            reason: "Forbidden".into(),
            message: r#"admission webhook "deny.example.com" denied the request: pods must not run as root"#.into(),
            details: Some(json!({ "name": "p", "kind": "pods" })),
            warnings: vec!["about to deny".into()],
        }
    );
}

#[tokio::test]
async fn a_denial_with_only_a_reason_quotes_the_reason() {
    let hook = start(|r| {
        respond(
            r,
            json!({ "allowed": false, "status": { "reason": "NotAllowedHere", "code": 200 } }),
        )
    })
    .await;
    let configs =
        validating(vec![webhook("reason.example.com", &hook.url("/"), &hook.ca_pem, json!({}))]);
    let rejection = Dispatcher::new()
        .validate(&configs, &pod_create("team", "p", json!({})))
        .await
        .unwrap_err();
    assert_eq!(rejection.code, 400, "codes below 400 become 400");
    assert_eq!(rejection.reason, "NotAllowedHere");
    assert_eq!(
        rejection.message,
        r#"admission webhook "reason.example.com" denied the request: NotAllowedHere"#
    );
}

#[tokio::test]
async fn a_denial_without_status_is_a_400_without_explanation() {
    let hook = start(|r| respond(r, json!({ "allowed": false }))).await;
    let configs =
        validating(vec![webhook("bare.example.com", &hook.url("/"), &hook.ca_pem, json!({}))]);
    let rejection = Dispatcher::new()
        .validate(&configs, &pod_create("team", "p", json!({})))
        .await
        .unwrap_err();
    assert_eq!((rejection.code, rejection.reason.as_str()), (400, ""));
    assert_eq!(
        rejection.message,
        r#"admission webhook "bare.example.com" denied the request without explanation"#
    );
    assert_eq!(rejection.details, None);
}

#[tokio::test]
async fn the_first_denial_in_configuration_order_wins_and_all_webhooks_are_called() {
    let a_deny =
        start(|r| respond(r, json!({ "allowed": false, "status": { "message": "from a" } }))).await;
    let b_deny =
        start(|r| respond(r, json!({ "allowed": false, "status": { "message": "from b" } }))).await;
    let allow_hook = start(allow).await;
    // Objects listed out of order: webhooks run ordered by configuration name.
    let configs = Configurations::from_objects(
        &[],
        &[
            validating_configuration(
                "b-config",
                vec![webhook("b.example.com", &b_deny.url("/"), &b_deny.ca_pem, json!({}))],
            ),
            validating_configuration(
                "a-config",
                vec![
                    webhook("a0.example.com", &allow_hook.url("/"), &allow_hook.ca_pem, json!({})),
                    webhook("a1.example.com", &a_deny.url("/"), &a_deny.ca_pem, json!({})),
                ],
            ),
        ],
    );
    let rejection = Dispatcher::new()
        .validate(&configs, &pod_create("team", "p", json!({})))
        .await
        .unwrap_err();
    assert_eq!(
        rejection.message,
        r#"admission webhook "a1.example.com" denied the request: from a"#
    );
    assert_eq!((a_deny.calls(), b_deny.calls(), allow_hook.calls()), (1, 1, 1));
}

#[tokio::test]
async fn a_validating_webhook_may_not_return_a_patch() {
    let hook =
        start(|r| patch(r, json!([{ "op": "add", "path": "/metadata/labels/x", "value": "y" }])))
            .await;
    let configs =
        validating(vec![webhook("patcher.example.com", &hook.url("/"), &hook.ca_pem, json!({}))]);
    let rejection = Dispatcher::new()
        .validate(&configs, &pod_create("team", "p", json!({})))
        .await
        .unwrap_err();
    assert_eq!(rejection.code, 500);
    assert_eq!(
        rejection.message,
        r#"Internal error occurred: failed calling webhook "patcher.example.com": received invalid webhook response: validating webhook may not return response.patch"#
    );
}

#[tokio::test]
async fn namespace_and_object_selectors_skip_webhooks() {
    let hook = start(|r| respond(r, json!({ "allowed": false }))).await;
    let url = hook.url("/");
    let configs = validating(vec![
        webhook(
            "ns.example.com",
            &url,
            &hook.ca_pem,
            json!({ "namespaceSelector": { "matchLabels": { "guarded": "true" } } }),
        ),
        webhook(
            "obj.example.com",
            &url,
            &hook.ca_pem,
            json!({ "objectSelector": { "matchExpressions": [{ "key": "app", "operator": "In", "values": ["db"] }] } }),
        ),
    ]);
    let dispatcher = Dispatcher::new();
    // Neither the namespace nor the pod carries the labels: nothing is called.
    dispatcher.validate(&configs, &pod_create("team", "p", json!({ "app": "web" }))).await.unwrap();
    assert_eq!(hook.calls(), 0);

    // The namespace label selects the first webhook.
    let mut attributes = pod_create("team", "p", json!({ "app": "web" }));
    attributes.namespace_labels = Some([("guarded".to_owned(), "true".to_owned())].into());
    let rejection = dispatcher.validate(&configs, &attributes).await.unwrap_err();
    assert!(
        rejection.message.starts_with(r#"admission webhook "ns.example.com" denied"#),
        "{rejection:?}"
    );

    // The old object's labels count for the object selector.
    let mut update = pod_create("team", "p", json!({ "app": "web" }));
    update.operation = certgate_dispatch::Operation::Update;
    update.old_object = Some(pod("team", "p", json!({ "app": "db" })));
    let rejection = dispatcher.validate(&configs, &update).await.unwrap_err();
    assert!(
        rejection.message.starts_with(r#"admission webhook "obj.example.com" denied"#),
        "{rejection:?}"
    );
    assert_eq!(hook.calls(), 2);
}

#[tokio::test]
async fn webhook_configurations_themselves_never_reach_webhooks() {
    let hook = start(|r| respond(r, json!({ "allowed": false }))).await;
    let configs = validating(vec![webhook(
        "all.example.com",
        &hook.url("/"),
        &hook.ca_pem,
        json!({ "rules": [{ "operations": ["*"], "apiGroups": ["*"], "apiVersions": ["*"], "resources": ["*/*"] }] }),
    )]);
    let mut attributes = pod_create("", "hooks", json!({}));
    attributes.kind = GroupVersionKind {
        group: "admissionregistration.k8s.io".into(),
        version: "v1".into(),
        kind: "ValidatingWebhookConfiguration".into(),
    };
    attributes.resource.group = "admissionregistration.k8s.io".into();
    attributes.resource.resource = "validatingwebhookconfigurations".into();
    attributes.namespaced = false;
    Dispatcher::new().validate(&configs, &attributes).await.unwrap();
    assert_eq!(hook.calls(), 0);

    // The same catch-all rule does reach an ordinary write.
    assert!(
        Dispatcher::new().validate(&configs, &pod_create("team", "p", json!({}))).await.is_err()
    );
}

#[tokio::test]
async fn a_missing_namespace_is_not_found_when_a_namespace_selector_needs_its_labels() {
    let hook = start(allow).await;
    let configs = validating(vec![webhook(
        "ns.example.com",
        &hook.url("/"),
        &hook.ca_pem,
        json!({ "namespaceSelector": { "matchLabels": { "a": "b" } } }),
    )]);
    let mut attributes = pod_create("gone", "p", json!({}));
    attributes.namespace_labels = None;
    let rejection = Dispatcher::new().validate(&configs, &attributes).await.unwrap_err();
    assert_eq!((rejection.code, rejection.reason.as_str()), (404, "NotFound"));
    assert_eq!(rejection.message, r#"namespaces "gone" not found"#);
}
