//! matchConditions: a false condition keeps the webhook from being called, true ones let
//! the call through, and an evaluation error follows the failure policy.

use certgate_dispatch::{Dispatcher, Rejection};
use serde_json::json;

use crate::support::*;

fn conditions(expressions: &[&str]) -> serde_json::Value {
    let list: Vec<_> = expressions
        .iter()
        .enumerate()
        .map(|(i, e)| json!({ "name": format!("c{i}"), "expression": e }))
        .collect();
    json!({ "matchConditions": list })
}

#[tokio::test]
async fn only_webhooks_whose_conditions_all_hold_are_called() {
    let hook = start(allow).await;
    let url = hook.url("/validate");
    let configs = validating(vec![
        webhook(
            "skipped.example.com",
            &url,
            &hook.ca_pem,
            conditions(&["true", "object.metadata.name == 'other'"]),
        ),
        webhook(
            "called.example.com",
            &url,
            &hook.ca_pem,
            conditions(&[
                "request.userInfo.username == 'alice'",
                "object.metadata.labels.app == 'web'",
            ]),
        ),
    ]);
    Dispatcher::new()
        .validate(&configs, &pod_create("team", "p", json!({ "app": "web" })))
        .await
        .unwrap();
    assert_eq!(hook.calls(), 1);

    let mutating_configs = mutating(vec![webhook(
        "m.example.com",
        &url,
        &hook.ca_pem,
        conditions(&["request.operation == 'UPDATE'"]),
    )]);
    let mut attributes = pod_create("team", "p", json!({}));
    Dispatcher::new().mutate(&mutating_configs, &mut attributes).await.unwrap();
    assert_eq!(hook.calls(), 1, "a CREATE does not reach a webhook conditioned on UPDATE");
}

#[tokio::test]
async fn an_evaluation_error_refuses_under_fail_and_skips_under_ignore() {
    let hook = start(allow).await;
    let url = hook.url("/validate");
    let missing = conditions(&["object.metadata.labels.missing == 'x'"]);
    let attributes = pod_create("team", "p", json!({ "app": "web" }));

    let ignore = {
        let mut overrides = missing.clone();
        overrides["failurePolicy"] = json!("Ignore");
        validating(vec![webhook("ignore.example.com", &url, &hook.ca_pem, overrides)])
    };
    Dispatcher::new().validate(&ignore, &attributes).await.unwrap();

    let fail = validating(vec![webhook("fail.example.com", &url, &hook.ca_pem, missing)]);
    let rejection = Dispatcher::new().validate(&fail, &attributes).await.unwrap_err();
    assert_eq!(
        rejection,
        Rejection {
            code: 403,
            reason: "Forbidden".into(),
            message: r#"pods "p" is forbidden: expression 'object.metadata.labels.missing == 'x'' resulted in error: no such key: missing"#.into(),
            details: Some(json!({ "name": "p", "kind": "pods" })),
            warnings: vec![],
        }
    );
    assert_eq!(hook.calls(), 0);
}
