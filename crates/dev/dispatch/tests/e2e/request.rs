//! The exact request a webhook receives.

use std::collections::BTreeMap;

use certgate_dispatch::{Dispatcher, Operation};
use serde_json::json;

use crate::support::*;

#[tokio::test]
async fn a_status_update_arrives_as_kube_apiserver_sends_it() {
    let hook = start(allow).await;
    let configs = validating(vec![webhook(
        "status.example.com",
        &hook.url("/hooks/status/"),
        &hook.ca_pem,
        json!({
            "timeoutSeconds": 7,
            "rules": [{ "operations": ["UPDATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods/status"] }],
        }),
    )]);
    let mut attributes = pod_create("team", "p", json!({ "app": "web" }));
    attributes.operation = Operation::Update;
    attributes.subresource = "status".into();
    attributes.old_object = Some(pod("team", "p", json!({ "app": "old" })));
    attributes.user = certgate_rbac::UserInfo {
        username: "system:serviceaccount:team:ctl".into(),
        uid: "u-1".into(),
        groups: vec!["system:serviceaccounts".into(), "system:authenticated".into()],
        extra: BTreeMap::from([("scopes".to_owned(), vec!["a".to_owned(), "b".to_owned()])]),
    };
    attributes.options = json!({ "kind": "UpdateOptions", "apiVersion": "meta.k8s.io/v1", "fieldManager": "kubectl" });
    Dispatcher::new().validate(&configs, &attributes).await.unwrap();

    let received = hook.received();
    assert_eq!(received.len(), 1);
    let call = &received[0];
    assert_eq!(call.path_and_query, "/hooks/status?timeout=7s");
    assert_eq!(call.headers["content-type"], "application/json");
    assert_eq!(call.headers["accept"], "application/json");
    let sent_uid = uid(&call.body);
    assert_eq!(sent_uid.len(), 36);
    let expected = json!({
        "kind": "AdmissionReview",
        "apiVersion": "admission.k8s.io/v1",
        "request": {
            "uid": sent_uid,
            "kind": { "group": "", "version": "v1", "kind": "Pod" },
            "resource": { "group": "", "version": "v1", "resource": "pods" },
            "subResource": "status",
            "requestKind": { "group": "", "version": "v1", "kind": "Pod" },
            "requestResource": { "group": "", "version": "v1", "resource": "pods" },
            "requestSubResource": "status",
            "name": "p",
            "namespace": "team",
            "operation": "UPDATE",
            "userInfo": {
                "username": "system:serviceaccount:team:ctl",
                "uid": "u-1",
                "groups": ["system:serviceaccounts", "system:authenticated"],
                "extra": { "scopes": ["a", "b"] },
            },
            "object": pod("team", "p", json!({ "app": "web" })),
            "oldObject": pod("team", "p", json!({ "app": "old" })),
            "dryRun": false,
            "options": { "kind": "UpdateOptions", "apiVersion": "meta.k8s.io/v1", "fieldManager": "kubectl" },
        },
    });
    assert_eq!(call.body, expected);
    // Field order and omitted empties, as Go's encoder writes them.
    let keys: Vec<&str> =
        call.body["request"].as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "uid",
            "kind",
            "resource",
            "subResource",
            "requestKind",
            "requestResource",
            "requestSubResource",
            "name",
            "namespace",
            "operation",
            "userInfo",
            "object",
            "oldObject",
            "dryRun",
            "options"
        ]
    );
}

#[tokio::test]
async fn a_create_by_a_user_without_uid_or_extra_omits_them_and_sends_a_null_old_object() {
    let hook = start(allow).await;
    let configs =
        validating(vec![webhook("create.example.com", &hook.url("/"), &hook.ca_pem, json!({}))]);
    Dispatcher::new().validate(&configs, &pod_create("team", "p", json!({}))).await.unwrap();
    let request = &hook.received()[0].body["request"];
    assert_eq!(
        request["userInfo"],
        json!({ "username": "alice", "groups": ["system:authenticated"] })
    );
    assert_eq!(request["oldObject"], json!(null));
    assert!(request.get("subResource").is_none());
    assert_eq!(request["operation"], "CREATE");
    assert_eq!(hook.received()[0].path_and_query, "/?timeout=10s");
}

#[tokio::test]
async fn the_first_known_review_version_listed_is_used() {
    // v1beta1 responses are not checked for uid or kind, as upstream.
    let hook = start(|_| Answer::Json(json!({ "response": { "allowed": true } }))).await;
    let configs = validating(vec![webhook(
        "legacy.example.com",
        &hook.url("/"),
        &hook.ca_pem,
        json!({ "admissionReviewVersions": ["v2", "v1beta1", "v1"] }),
    )]);
    Dispatcher::new().validate(&configs, &pod_create("team", "p", json!({}))).await.unwrap();
    assert_eq!(hook.received()[0].body["apiVersion"], "admission.k8s.io/v1beta1");
}

#[tokio::test]
async fn equivalent_versions_match_without_conversion_and_exact_ones_do_not() {
    let hook = start(allow).await;
    let url = hook.url("/");
    let rule = json!({ "rules": [{ "operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1beta1"], "resources": ["pods"] }] });
    let dispatcher = Dispatcher::new();
    dispatcher
        .validate(
            &validating(vec![webhook("eq.example.com", &url, &hook.ca_pem, rule.clone())]),
            &pod_create("team", "p", json!({})),
        )
        .await
        .unwrap();
    assert_eq!(hook.calls(), 1);
    // Sent in the served version: the object is not converted.
    assert_eq!(hook.received()[0].body["request"]["kind"]["version"], "v1");

    let mut exact = rule;
    exact["matchPolicy"] = json!("Exact");
    dispatcher
        .validate(
            &validating(vec![webhook("exact.example.com", &url, &hook.ca_pem, exact)]),
            &pod_create("team", "p", json!({})),
        )
        .await
        .unwrap();
    assert_eq!(hook.calls(), 1);
}

#[tokio::test]
async fn calls_reuse_a_kept_alive_connection() {
    let hook = start(allow).await;
    let configs =
        validating(vec![webhook("pooled.example.com", &hook.url("/"), &hook.ca_pem, json!({}))]);
    let dispatcher = Dispatcher::new();
    for _ in 0..3 {
        dispatcher.validate(&configs, &pod_create("team", "p", json!({}))).await.unwrap();
    }
    let peers: Vec<_> = hook.received().iter().map(|r| r.peer).collect();
    assert_eq!(peers.len(), 3);
    assert!(peers.iter().all(|p| *p == peers[0]), "one connection for all calls: {peers:?}");
}

/// The pipeline runs admission inside axum handlers, which need `Send` futures and a
/// shareable dispatcher.
#[test]
fn dispatch_futures_are_send_and_the_dispatcher_is_shareable() {
    fn send<T: Send>(_: &T) {}
    fn shareable<T: Send + Sync>() {}
    shareable::<Dispatcher>();
    shareable::<certgate_dispatch::Configurations>();
    let dispatcher = Dispatcher::new();
    let configs = validating(vec![]);
    let mut attributes = pod_create("team", "p", json!({}));
    send(&dispatcher.validate(&configs, &attributes));
    send(&dispatcher.mutate(&configs, &mut attributes));
}
