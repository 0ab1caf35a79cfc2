//! Webhooks that cannot be consulted: failure policies, transport and TLS errors, timeouts,
//! hostile responses, dry runs.

use certgate_dispatch::{Dispatcher, Rejection};
use serde_json::json;

use crate::support::*;

async fn validate_one(hook: serde_json::Value) -> Result<Vec<String>, Rejection> {
    Dispatcher::new().validate(&validating(vec![hook]), &pod_create("team", "p", json!({}))).await
}

/// A webhook answering `answer` to everything, and the rejection validating through it gives.
async fn rejection_for(answer: fn(&serde_json::Value) -> Answer) -> Rejection {
    let hook = start(answer).await;
    validate_one(webhook("hostile.example.com", &hook.url("/"), &hook.ca_pem, json!({})))
        .await
        .unwrap_err()
}

const PREFIX: &str = r#"Internal error occurred: failed calling webhook "hostile.example.com": "#;

#[tokio::test]
async fn an_unreachable_webhook_fails_closed_with_gos_wording_or_is_ignored() {
    install_provider();
    let port = closed_port();
    let url = format!("https://127.0.0.1:{port}/check");
    let rejection =
        validate_one(webhook("down.example.com", &url, "", json!({}))).await.unwrap_err();
    assert_eq!((rejection.code, rejection.reason.as_str()), (500, "InternalError"));
    let cause = format!(
        r#"failed calling webhook "down.example.com": failed to call webhook: Post "https://127.0.0.1:{port}/check?timeout=10s": dial tcp 127.0.0.1:{port}: connect: connection refused"#
    );
    assert_eq!(rejection.message, format!("Internal error occurred: {cause}"));
    assert_eq!(rejection.details, Some(json!({ "causes": [{ "message": cause }] })));

    let warnings =
        validate_one(webhook("down.example.com", &url, "", json!({ "failurePolicy": "Ignore" })))
            .await
            .unwrap();
    assert!(warnings.is_empty());
}

#[tokio::test]
async fn a_webhook_that_never_answers_times_out() {
    let hook = start(|_| Answer::Hang).await;
    let rejection = validate_one(webhook(
        "slow.example.com",
        &hook.url("/hang"),
        &hook.ca_pem,
        json!({ "timeoutSeconds": 1 }),
    ))
    .await
    .unwrap_err();
    assert_eq!(
        rejection.message,
        format!(
            r#"Internal error occurred: failed calling webhook "slow.example.com": failed to call webhook: Post "{}": context deadline exceeded"#,
            hook.url("/hang?timeout=1s")
        )
    );
}

#[tokio::test]
async fn the_server_certificate_must_chain_to_the_ca_bundle() {
    let hook = start(allow).await;
    let other_ca = certgate_serving::DevCertificates::generate(&[]).unwrap().ca_pem;
    let rejection = validate_one(webhook("tls.example.com", &hook.url("/"), &other_ca, json!({})))
        .await
        .unwrap_err();
    assert!(
        rejection.message.ends_with(
            ": tls: failed to verify certificate: x509: certificate signed by unknown authority"
        ),
        "{}",
        rejection.message
    );
    assert_eq!(hook.calls(), 0);

    let rejection =
        validate_one(webhook("tls.example.com", &hook.url("/"), "", json!({}))).await.unwrap_err();
    assert!(
        rejection
            .message
            .contains("x509: certificate signed by unknown authority (the webhook has no caBundle"),
        "{}",
        rejection.message
    );

    let rejection =
        validate_one(webhook("tls.example.com", &hook.url("/"), "not a certificate", json!({})))
            .await
            .unwrap_err();
    assert_eq!(
        rejection.message,
        r#"Internal error occurred: failed calling webhook "tls.example.com": could not get REST client: unable to load root certificates: unable to parse bytes as PEM block"#
    );
}

#[tokio::test]
async fn a_response_for_another_request_is_refused() {
    let hook = start(|r| {
        let mut answer = match respond(r, json!({})) {
            Answer::Json(v) => v,
            _ => unreachable!(),
        };
        answer["response"]["uid"] = json!("someone-else");
        Answer::Json(answer)
    })
    .await;
    let rejection =
        validate_one(webhook("hostile.example.com", &hook.url("/"), &hook.ca_pem, json!({})))
            .await
            .unwrap_err();
    let sent = uid(&hook.received()[0].body);
    assert_eq!(
        rejection.message,
        format!(
            r#"{PREFIX}received invalid webhook response: expected response.uid="{sent}", got "someone-else""#
        )
    );
}

#[tokio::test]
async fn a_v1_response_must_say_what_it_is() {
    let rejection =
        rejection_for(|r| Answer::Json(json!({ "response": { "uid": uid(r), "allowed": true } })))
            .await;
    assert_eq!(
        rejection.message,
        format!(
            "{PREFIX}received invalid webhook response: expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got /, Kind="
        )
    );
}

#[tokio::test]
async fn garbage_bodies_and_error_statuses_fail_the_call() {
    let rejection = rejection_for(|_| Answer::Raw {
        status: 200,
        content_type: Some("application/json"),
        body: b"garbage".to_vec(),
    })
    .await;
    assert!(
        rejection.message.starts_with(&format!(
            "{PREFIX}failed to call webhook: couldn't get version/kind; json parse error: "
        )),
        "{}",
        rejection.message
    );

    let rejection = rejection_for(|_| Answer::Raw {
        status: 500,
        content_type: Some("text/plain"),
        body: b" boom \n".to_vec(),
    })
    .await;
    assert_eq!(
        rejection.message,
        format!(
            r#"{PREFIX}failed to call webhook: an error on the server ("boom") has prevented the request from succeeding"#
        )
    );

    let rejection = rejection_for(|_| Answer::Raw {
        status: 404,
        content_type: Some("text/html"),
        body: b"<h1>no</h1>".to_vec(),
    })
    .await;
    assert_eq!(
        rejection.message,
        format!("{PREFIX}failed to call webhook: the server could not find the requested resource")
    );

    let rejection = rejection_for(|_| Answer::Raw {
        status: 200,
        content_type: Some("text/plain"),
        body: b"ok".to_vec(),
    })
    .await;
    assert_eq!(
        rejection.message,
        format!("{PREFIX}failed to call webhook: serializer for text/plain doesn't exist")
    );

    let rejection = rejection_for(|_| Answer::Raw {
        status: 200,
        content_type: Some("application/json"),
        body: Vec::new(),
    })
    .await;
    assert_eq!(
        rejection.message,
        format!(
            "{PREFIX}failed to call webhook: 0-length response with status code: 200 and content type: application/json"
        )
    );
}

#[tokio::test]
async fn an_oversized_body_is_not_read_past_the_bound() {
    let rejection = rejection_for(|_| Answer::Raw {
        status: 200,
        content_type: Some("application/json"),
        body: vec![b' '; 4 * 1024 * 1024],
    })
    .await;
    assert!(
        rejection.message.ends_with(
            "the response body is larger than the 3145728 bytes the sandbox reads from a webhook"
        ),
        "{}",
        rejection.message
    );
}

#[tokio::test]
async fn service_references_cannot_be_resolved_in_the_sandbox() {
    install_provider();
    let hook = json!({
        "name": "svc.example.com",
        "clientConfig": { "service": { "name": "hook", "namespace": "system", "path": "/validate" } },
        "rules": [{ "operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods"] }],
        "sideEffects": "None",
        "admissionReviewVersions": ["v1"],
    });
    let rejection = validate_one(hook).await.unwrap_err();
    assert_eq!(
        rejection.message,
        r#"Internal error occurred: failed calling webhook "svc.example.com": failed to call webhook: Post "https://hook.system.svc:443/validate?timeout=10s": service "hook" not found (the certgate sandbox runs no Services, so clientConfig.service cannot be resolved; use clientConfig.url)"#
    );
}

#[tokio::test]
async fn dry_runs_only_reach_webhooks_without_side_effects() {
    let hook = start(allow).await;
    let url = hook.url("/");
    let mut attributes = pod_create("team", "p", json!({}));
    attributes.dry_run = true;
    let dispatcher = Dispatcher::new();

    let some = validating(vec![webhook(
        "effects.example.com",
        &url,
        &hook.ca_pem,
        json!({ "sideEffects": "Some" }),
    )]);
    let rejection = dispatcher.validate(&some, &attributes).await.unwrap_err();
    assert_eq!(
        rejection,
        Rejection {
            code: 400,
            reason: "BadRequest".into(),
            message: r#"admission webhook "effects.example.com" does not support dry run"#.into(),
            details: None,
            warnings: vec![],
        }
    );
    // Not a call failure: Ignore does not let the dry run through either.
    let some_ignored = validating(vec![webhook(
        "effects.example.com",
        &url,
        &hook.ca_pem,
        json!({ "sideEffects": "Unknown", "failurePolicy": "Ignore" }),
    )]);
    assert!(dispatcher.validate(&some_ignored, &attributes).await.is_err());
    assert_eq!(hook.calls(), 0);

    for class in ["None", "NoneOnDryRun"] {
        let none = validating(vec![webhook(
            "pure.example.com",
            &url,
            &hook.ca_pem,
            json!({ "sideEffects": class }),
        )]);
        dispatcher.validate(&none, &attributes).await.unwrap();
    }
    let received = hook.received();
    assert_eq!(received.len(), 2);
    assert_eq!(received[0].body["request"]["dryRun"], json!(true));
}

#[tokio::test]
async fn webhooks_without_a_known_review_version_cannot_be_called() {
    let hook = start(allow).await;
    let rejection = validate_one(webhook(
        "future.example.com",
        &hook.url("/"),
        &hook.ca_pem,
        json!({ "admissionReviewVersions": ["v2"] }),
    ))
    .await
    .unwrap_err();
    assert_eq!(
        rejection.message,
        r#"Internal error occurred: failed calling webhook "future.example.com": could not create admission objects: webhook does not accept known AdmissionReview versions (v1, v1beta1)"#
    );
}
