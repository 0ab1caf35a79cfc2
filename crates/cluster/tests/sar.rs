//! SarAccessChecker against a fake API server: the SubjectAccessReview it sends, how it
//! reads the answer, what it caches and which failures it sends again.

mod support;

use std::collections::BTreeMap;
use std::io;
use std::num::{NonZeroU32, NonZeroUsize};
use std::sync::Arc;
use std::time::Duration;

use certgate_clock::ManualClock;
use certgate_cluster::{Backoff, DEFAULT_SAR_BACKOFF, SarAccessChecker};
use certgate_rbac::{AccessChecker, AccessDecision, AccessReview, ResourceAttributes, UserInfo};
use http::Method;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use support::{FakeApi, Reply, status_body};

const SAR_PATH: &str = "/apis/authorization.k8s.io/v1/subjectaccessreviews";
const TTL: Duration = Duration::from_secs(1);

fn signer_review(username: &str, name: &str) -> AccessReview {
    AccessReview {
        user: UserInfo {
            username: username.to_owned(),
            uid: String::new(),
            groups: vec!["system:authenticated".to_owned()],
            extra: BTreeMap::new(),
        },
        resource: ResourceAttributes {
            verb: "approve".to_owned(),
            group: "cert-manager.io".to_owned(),
            version: "*".to_owned(),
            resource: "signers".to_owned(),
            name: name.to_owned(),
            ..Default::default()
        },
    }
}

/// What the API server returns from a create: the review with a status.
fn answer(api: &FakeApi, status: Value) {
    api.respond(
        Method::POST,
        SAR_PATH,
        201,
        json!({
            "apiVersion": "authorization.k8s.io/v1",
            "kind": "SubjectAccessReview",
            "metadata": {},
            "spec": {},
            "status": status,
        }),
    );
}

/// Upstream's schedule without the waits, so retrying tests do not sleep.
const NO_WAIT: Backoff = Backoff { initial: Duration::ZERO, ..DEFAULT_SAR_BACKOFF };

fn checker(api: &Arc<FakeApi>, ttl: Duration) -> (SarAccessChecker, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::default());
    let entries = NonZeroUsize::new(10_000).unwrap_or(NonZeroUsize::MIN);
    let checker = SarAccessChecker::new(api.client(), ttl)
        .with_cache(entries, clock.clone())
        .with_backoff(NO_WAIT);
    (checker, clock)
}

/// A failed answer queued ahead of whatever the route answers afterwards.
fn fail_once(api: &FakeApi, code: u16, reason: &str, message: &str) {
    api.then(Method::POST, SAR_PATH, Reply::Answer(code, status_body(code, reason, message)));
}

fn post_count(api: &FakeApi) -> usize {
    api.calls().iter().filter(|call| **call == format!("POST {SAR_PATH}")).count()
}

/// The start of every request-failure message for [`signer_review`] ("alice", "issuers.cert-manager.io/*").
const ALICE_FAILED: &str = "SubjectAccessReview (user \"alice\" approve signers \
                            \"issuers.cert-manager.io/*\" in API group \"cert-manager.io\") failed: ";

/// The end of every request-failure message.
const CHECK_ACCESS: &str = "; denying. Check that the API server is reachable and that \
                            certgate's ServiceAccount may create \
                            subjectaccessreviews.authorization.k8s.io";

fn allowed(reason: &str) -> AccessDecision {
    AccessDecision { allowed: true, reason: reason.to_owned() }
}

fn denied(reason: &str) -> AccessDecision {
    AccessDecision { allowed: false, reason: reason.to_owned() }
}

#[tokio::test]
async fn sends_every_review_field_and_returns_the_servers_reason() {
    let api = FakeApi::new();
    answer(&api, json!({"allowed": true, "reason": "RBAC: allowed by ClusterRoleBinding \"a\""}));
    let (checker, _clock) = checker(&api, TTL);
    let review = AccessReview {
        user: UserInfo {
            username: "alice".to_owned(),
            uid: "6c1a".to_owned(),
            groups: vec!["team-a".to_owned(), "system:authenticated".to_owned()],
            extra: BTreeMap::from([("scopes".to_owned(), vec!["x".to_owned(), "y".to_owned()])]),
        },
        resource: ResourceAttributes {
            namespace: "ns1".to_owned(),
            verb: "update".to_owned(),
            group: "cert-manager.io".to_owned(),
            version: "v1".to_owned(),
            resource: "certificaterequests".to_owned(),
            subresource: "status".to_owned(),
            name: "cr-1".to_owned(),
        },
    };

    let decision = checker.check(&review).await;

    assert_eq!(decision, Ok(allowed("RBAC: allowed by ClusterRoleBinding \"a\"")));
    let requests = api.requests();
    assert_eq!(api.calls(), vec![format!("POST {SAR_PATH}")]);
    assert_eq!(
        requests.first().map(|r| r.body.clone()),
        Some(json!({
            "apiVersion": "authorization.k8s.io/v1",
            "kind": "SubjectAccessReview",
            "metadata": {},
            "spec": {
                "user": "alice",
                "uid": "6c1a",
                "groups": ["team-a", "system:authenticated"],
                "extra": {"scopes": ["x", "y"]},
                "resourceAttributes": {
                    "namespace": "ns1",
                    "verb": "update",
                    "group": "cert-manager.io",
                    "version": "v1",
                    "resource": "certificaterequests",
                    "subresource": "status",
                    "name": "cr-1",
                },
            },
        }))
    );
}

#[tokio::test]
async fn empty_fields_are_left_out_of_the_review() {
    let api = FakeApi::new();
    answer(&api, json!({"allowed": true}));
    let (checker, _clock) = checker(&api, TTL);
    let mut review = signer_review("bob", "issuers.cert-manager.io/*");
    review.user.groups.clear();

    assert_eq!(checker.check(&review).await, Ok(allowed("")));
    assert_eq!(
        api.requests().first().map(|r| r.body["spec"].clone()),
        Some(json!({
            "user": "bob",
            "resourceAttributes": {
                "verb": "approve",
                "group": "cert-manager.io",
                "version": "*",
                "resource": "signers",
                "name": "issuers.cert-manager.io/*",
            },
        }))
    );
}

#[tokio::test]
async fn reads_denials_and_evaluation_errors() {
    let cases = [
        (json!({"allowed": false, "denied": true, "reason": "blocked"}), denied("blocked")),
        (
            json!({"allowed": false, "denied": true}),
            denied("denied by the API server's authorizers"),
        ),
        (json!({"allowed": false}), denied("no authorizer allowed it")),
        (
            json!({"allowed": false, "evaluationError": "webhook timed out"}),
            denied("evaluation error: webhook timed out"),
        ),
        (
            json!({"allowed": false, "reason": "no RBAC policy matched", "evaluationError": "x"}),
            denied("no RBAC policy matched; evaluation error: x"),
        ),
    ];
    for (status, expected) in cases {
        let api = FakeApi::new();
        answer(&api, status.clone());
        let (checker, _clock) = checker(&api, TTL);
        let decision = checker.check(&signer_review("alice", "issuers.cert-manager.io/*")).await;
        assert_eq!(decision, Ok(expected), "status {status}");
    }
}

#[tokio::test]
async fn allowed_and_denied_together_is_an_error() {
    let api = FakeApi::new();
    answer(&api, json!({"allowed": true, "denied": true}));
    let (checker, _clock) = checker(&api, TTL);

    let err = checker.check(&signer_review("alice", "issuers.cert-manager.io/*")).await;

    assert_eq!(
        err.map_err(|e| e.0),
        Err(
            "SubjectAccessReview (user \"alice\" approve signers \"issuers.cert-manager.io/*\" in \
             API group \"cert-manager.io\") came back both allowed and denied; denying. Check the \
             cluster's authorization webhooks"
                .to_owned()
        )
    );
}

#[tokio::test]
async fn api_errors_name_the_question_and_the_servers_answer() {
    let api = FakeApi::new();
    api.respond(
        Method::POST,
        SAR_PATH,
        403,
        status_body(
            403,
            "Forbidden",
            "subjectaccessreviews.authorization.k8s.io is forbidden: User \"system:serviceaccount:certgate:certgate\" \
             cannot create resource \"subjectaccessreviews\" in API group \"authorization.k8s.io\" at the cluster scope",
        ),
    );
    let (checker, _clock) = checker(&api, TTL);
    let mut review = signer_review("alice", "cr-1");
    review.resource.namespace = "ns1".to_owned();
    review.resource.subresource = "status".to_owned();

    let err = checker.check(&review).await;

    assert_eq!(post_count(&api), 1, "a 403 is final and must not be sent again");
    assert_eq!(
        err.map_err(|e| e.0),
        Err("SubjectAccessReview (user \"alice\" approve signers/status \"cr-1\" in API group \
             \"cert-manager.io\" in namespace \"ns1\") failed: the API server answered HTTP 403 \
             (Forbidden): subjectaccessreviews.authorization.k8s.io is forbidden: User \
             \"system:serviceaccount:certgate:certgate\" cannot create resource \
             \"subjectaccessreviews\" in API group \"authorization.k8s.io\" at the cluster scope; \
             denying. Check that the API server is reachable and that certgate's ServiceAccount \
             may create subjectaccessreviews.authorization.k8s.io"
            .to_owned())
    );
}

#[tokio::test]
async fn a_response_without_status_is_an_error() {
    let api = FakeApi::new();
    api.respond(
        Method::POST,
        SAR_PATH,
        201,
        json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview", "metadata": {}, "spec": {}}),
    );
    let (checker, _clock) = checker(&api, TTL);

    let err = checker.check(&signer_review("alice", "issuers.cert-manager.io/*")).await;

    assert_eq!(
        err.map_err(|e| e.0),
        Err(
            "SubjectAccessReview (user \"alice\" approve signers \"issuers.cert-manager.io/*\" in \
             API group \"cert-manager.io\") came back without a status; denying. The API server or \
             a proxy in front of it answered with something that is not a SubjectAccessReview"
                .to_owned()
        )
    );
}

#[tokio::test]
async fn answers_are_reused_within_the_ttl_and_asked_again_after_it() {
    for first in
        [json!({"allowed": true, "reason": "first"}), json!({"allowed": false, "reason": "first"})]
    {
        let api = FakeApi::new();
        answer(&api, first.clone());
        let (checker, clock) = checker(&api, TTL);
        let review = signer_review("alice", "issuers.cert-manager.io/*");
        let expected = checker.check(&review).await;
        assert_eq!(expected.as_ref().map(|d| d.reason.as_str()), Ok("first"));

        // The server changes its mind; the cached answer still stands until the TTL ends.
        answer(&api, json!({"allowed": false, "reason": "second"}));
        clock.advance(TTL - Duration::from_millis(1));
        assert_eq!(checker.check(&review).await, expected);
        assert_eq!(api.requests().len(), 1, "cached answer {first} must not be asked again");

        clock.advance(Duration::from_millis(1));
        assert_eq!(checker.check(&review).await, Ok(denied("second")));
        assert_eq!(api.requests().len(), 2);
    }
}

#[tokio::test]
async fn the_cache_is_keyed_by_the_whole_review() {
    let api = FakeApi::new();
    answer(&api, json!({"allowed": true}));
    let (checker, _clock) = checker(&api, TTL);
    let base = signer_review("alice", "issuers.cert-manager.io/*");
    let mut other_group = base.clone();
    other_group.user.groups.push("admins".to_owned());
    let mut other_extra = base.clone();
    other_extra.user.extra.insert("scopes".to_owned(), vec!["x".to_owned()]);
    let mut other_uid = base.clone();
    other_uid.user.uid = "u-2".to_owned();
    let mut other_name = base.clone();
    other_name.resource.name = "issuers.cert-manager.io/ns.ca".to_owned();

    for review in [&base, &other_group, &other_extra, &other_uid, &other_name, &base] {
        assert_eq!(checker.check(review).await, Ok(allowed("")));
    }

    assert_eq!(api.requests().len(), 5);
}

#[tokio::test]
async fn errors_are_not_cached() {
    let api = FakeApi::new();
    api.respond(Method::POST, SAR_PATH, 500, status_body(500, "InternalError", "etcd is down"));
    let (checker, _clock) = checker(&api, TTL);
    let review = signer_review("alice", "issuers.cert-manager.io/*");

    assert!(checker.check(&review).await.is_err());
    answer(&api, json!({"allowed": true, "reason": "ok"}));
    assert_eq!(checker.check(&review).await, Ok(allowed("ok")));
    // Two attempts for the failing check, then one for the next.
    assert_eq!(api.requests().len(), 3);
}

#[tokio::test]
async fn zero_ttl_asks_every_time() {
    let api = FakeApi::new();
    answer(&api, json!({"allowed": true}));
    let (checker, _clock) = checker(&api, Duration::ZERO);
    let review = signer_review("alice", "issuers.cert-manager.io/*");

    for _ in 0..3 {
        assert_eq!(checker.check(&review).await, Ok(allowed("")));
    }

    assert_eq!(api.requests().len(), 3);
}

#[tokio::test]
async fn the_cache_is_bounded() {
    let api = FakeApi::new();
    answer(&api, json!({"allowed": true}));
    let clock = Arc::new(ManualClock::default());
    let checker = SarAccessChecker::new(api.client(), TTL).with_cache(NonZeroUsize::MIN, clock);
    let a = signer_review("alice", "issuers.cert-manager.io/*");
    let b = signer_review("bob", "issuers.cert-manager.io/*");

    for review in [&a, &a, &b, &a] {
        assert_eq!(checker.check(review).await, Ok(allowed("")));
    }

    // The second "a" is a hit; "b" evicts "a", so the last "a" asks again.
    assert_eq!(api.requests().len(), 3);
}

#[tokio::test]
async fn a_transient_server_failure_is_sent_again() {
    let cases = [
        (500, "InternalError", "etcdserver: leader changed"),
        (504, "Timeout", "the request timed out"),
        (504, "", "upstream request timeout"),
        (429, "TooManyRequests", "too many requests, please try again later"),
    ];
    for (code, reason, message) in cases {
        let api = FakeApi::new();
        answer(&api, json!({"allowed": true, "reason": "ok"}));
        fail_once(&api, code, reason, message);
        let (checker, _clock) = checker(&api, TTL);

        let decision = checker.check(&signer_review("alice", "issuers.cert-manager.io/*")).await;

        assert_eq!(decision, Ok(allowed("ok")), "after HTTP {code} {reason:?}");
        let requests = api.requests();
        assert_eq!(post_count(&api), 2, "after HTTP {code} {reason:?}");
        assert_eq!(
            requests.first().map(|r| &r.body),
            requests.last().map(|r| &r.body),
            "the retry must send the same review"
        );
    }
}

#[tokio::test]
async fn a_retry_after_hint_is_honoured_on_any_status() {
    let api = FakeApi::new();
    answer(&api, json!({"allowed": false, "reason": "no"}));
    let mut body = status_body(503, "ServiceUnavailable", "the server is shutting down");
    body["details"] = json!({"retryAfterSeconds": 1});
    api.then(Method::POST, SAR_PATH, Reply::Answer(503, body));
    let (checker, _clock) = checker(&api, TTL);

    let decision = checker.check(&signer_review("alice", "issuers.cert-manager.io/*")).await;

    assert_eq!(decision, Ok(denied("no")));
    assert_eq!(post_count(&api), 2);
}

#[tokio::test]
async fn gives_up_after_the_last_step_and_says_how_often_it_tried() {
    let api = FakeApi::new();
    api.respond(
        Method::POST,
        SAR_PATH,
        429,
        status_body(429, "TooManyRequests", "too many requests, please try again later"),
    );
    let (checker, _clock) = checker(&api, TTL);

    let err = checker.check(&signer_review("alice", "issuers.cert-manager.io/*")).await;

    assert_eq!(post_count(&api), 2, "two steps allow one retry, never a third request");
    assert_eq!(
        err.map_err(|e| e.0),
        Err(format!(
            "{ALICE_FAILED}the API server answered HTTP 429 (TooManyRequests): too many \
             requests, please try again later (after 2 attempts){CHECK_ACCESS}"
        ))
    );
}

#[tokio::test]
async fn the_error_is_the_last_failure_even_when_it_is_final() {
    let api = FakeApi::new();
    api.respond(Method::POST, SAR_PATH, 403, status_body(403, "Forbidden", "not allowed"));
    fail_once(&api, 500, "InternalError", "etcd is down");
    let checker = SarAccessChecker::new(api.client(), TTL)
        .with_backoff(Backoff { steps: NonZeroU32::MAX, ..NO_WAIT });

    let err = checker.check(&signer_review("alice", "issuers.cert-manager.io/*")).await;

    assert_eq!(post_count(&api), 2, "the 403 ends the retries however many steps remain");
    assert_eq!(
        err.map_err(|e| e.0),
        Err(format!(
            "{ALICE_FAILED}the API server answered HTTP 403 (Forbidden): not allowed (after 2 \
             attempts){CHECK_ACCESS}"
        ))
    );
}

#[tokio::test]
async fn the_number_of_steps_bounds_the_attempts() {
    for (steps, posts, decision) in
        [(1, 1, Err(())), (2, 2, Err(())), (3, 3, Ok(allowed(""))), (4, 3, Ok(allowed("")))]
    {
        let api = FakeApi::new();
        answer(&api, json!({"allowed": true}));
        fail_once(&api, 500, "InternalError", "etcd is down");
        fail_once(&api, 500, "InternalError", "etcd is down");
        let steps = NonZeroU32::new(steps).unwrap_or(NonZeroU32::MIN);
        let checker =
            SarAccessChecker::new(api.client(), TTL).with_backoff(Backoff { steps, ..NO_WAIT });

        let got = checker.check(&signer_review("alice", "issuers.cert-manager.io/*")).await;

        assert_eq!(got.map_err(|_| ()), decision, "{steps} steps");
        assert_eq!(post_count(&api), posts, "{steps} steps");
    }
}

#[tokio::test]
async fn a_single_failure_reads_as_before() {
    let api = FakeApi::new();
    api.respond(Method::POST, SAR_PATH, 500, status_body(500, "InternalError", "etcd is down"));
    let checker = SarAccessChecker::new(api.client(), TTL)
        .with_backoff(Backoff { steps: NonZeroU32::MIN, ..NO_WAIT });

    let err = checker.check(&signer_review("alice", "issuers.cert-manager.io/*")).await;

    assert_eq!(
        err.map_err(|e| e.0),
        Err(format!(
            "{ALICE_FAILED}the API server answered HTTP 500 (InternalError): etcd is \
             down{CHECK_ACCESS}"
        ))
    );
}

#[tokio::test]
async fn a_reset_connection_is_sent_again_but_a_refused_one_is_not() {
    let api = FakeApi::new();
    answer(&api, json!({"allowed": true}));
    api.then(Method::POST, SAR_PATH, Reply::Broken(io::ErrorKind::ConnectionReset));
    let (reset, _clock) = checker(&api, TTL);

    let decision = reset.check(&signer_review("alice", "issuers.cert-manager.io/*")).await;

    assert_eq!(decision, Ok(allowed("")));
    assert_eq!(post_count(&api), 2);

    let api = FakeApi::new();
    answer(&api, json!({"allowed": true}));
    api.then(Method::POST, SAR_PATH, Reply::Broken(io::ErrorKind::ConnectionRefused));
    let (refused, _clock) = checker(&api, TTL);

    let err = refused.check(&signer_review("alice", "issuers.cert-manager.io/*")).await;

    assert_eq!(post_count(&api), 1);
    assert_eq!(
        err.map_err(|e| e.0),
        Err(format!(
            "{ALICE_FAILED}ServiceError: the fake API server dropped the connection{CHECK_ACCESS}"
        ))
    );
}

/// `new` retries on upstream's schedule: one retry after 1 s plus up to 20 % jitter. The
/// clock is tokio's paused test clock, which jumps straight to the retry without sleeping.
#[tokio::test(start_paused = true)]
async fn new_retries_once_after_about_a_second() {
    let api = FakeApi::new();
    answer(&api, json!({"allowed": true}));
    fail_once(&api, 500, "InternalError", "etcd is down");
    let checker = SarAccessChecker::new(api.client(), TTL);
    let start = tokio::time::Instant::now();

    let decision = checker.check(&signer_review("alice", "issuers.cert-manager.io/*")).await;

    let waited = start.elapsed();
    assert_eq!(decision, Ok(allowed("")));
    assert_eq!(post_count(&api), 2);
    assert!(
        Duration::from_secs(1) <= waited && waited <= Duration::from_millis(1200),
        "waited {waited:?}"
    );
}
