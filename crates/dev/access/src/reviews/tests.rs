use chrono::{DateTime, TimeZone, Utc};
use serde_json::{Value, json};

use super::*;
use crate::{
    AccessDecision, Authenticator, RequestAttributes, RequestAuthorizer, ServiceAccounts,
    StaticUsers, TokenSigner, UserInfo,
};

/// Allows `alice` (or members of `devs`) to get configmaps and `/healthz`; says who asked.
struct Fake;

impl RequestAuthorizer for Fake {
    fn authorize(&self, user: &UserInfo, attributes: &RequestAttributes) -> AccessDecision {
        let who = user.username == "alice" || user.groups.iter().any(|g| g == "devs");
        let what = match attributes {
            RequestAttributes::Resource(a) => a.verb == "get" && a.resource == "configmaps",
            RequestAttributes::NonResource(a) => a.path == "/healthz",
        };
        AccessDecision {
            allowed: who && what,
            reason: if who && what {
                format!("allowed for {}", user.username)
            } else {
                String::new()
            },
        }
    }
}

fn message(result: Result<Value, ReviewError>) -> String {
    result.expect_err("refused").to_string()
}

#[test]
fn subject_access_review_answers_and_echoes() {
    let body = json!({
        "apiVersion": "authorization.k8s.io/v1",
        "kind": "SubjectAccessReview",
        "spec": {
            "resourceAttributes": {"namespace": "ns", "verb": "get", "resource": "configmaps", "unknown": 1},
            "user": "alice",
            "groups": ["g"],
            "extra": {"scopes": ["read"]},
            "uid": "1",
        },
    });
    assert_eq!(
        subject_access_review(&body, &Fake).expect("answered"),
        json!({
            "kind": "SubjectAccessReview",
            "apiVersion": "authorization.k8s.io/v1",
            "metadata": {"creationTimestamp": null},
            "spec": {
                "resourceAttributes": {"namespace": "ns", "verb": "get", "resource": "configmaps"},
                "user": "alice",
                "groups": ["g"],
                "extra": {"scopes": ["read"]},
                "uid": "1",
            },
            "status": {"allowed": true, "reason": "allowed for alice"},
        })
    );
    let denied = json!({"spec": {"nonResourceAttributes": {"path": "/metrics", "verb": "get"}, "groups": ["devs"]}});
    assert_eq!(
        subject_access_review(&denied, &Fake).expect("answered")["status"],
        json!({"allowed": false})
    );
}

#[test]
fn subject_access_review_validation_messages() {
    #[rustfmt::skip]
    let cases: &[(Value, &str)] = &[
        (json!({}), r#".authorization.k8s.io "" is invalid: [spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified, spec.user: Invalid value: "": at least one of user or group must be specified]"#),
        (json!({"spec": {"user": "bob"}}), r#".authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified"#),
        (json!({"spec": {"resourceAttributes": {}}}), r#".authorization.k8s.io "" is invalid: spec.user: Invalid value: "": at least one of user or group must be specified"#),
        (
            json!({"spec": {"user": "bob", "resourceAttributes": {}, "nonResourceAttributes": {"path": "/x", "verb": "get"}}}),
            r#".authorization.k8s.io "" is invalid: spec.nonResourceAttributes: Invalid value: authorization.NonResourceAttributes{Path:"/x", Verb:"get"}: cannot be specified in combination with resourceAttributes"#,
        ),
        (
            json!({"metadata": {"name": "x"}, "spec": {"user": "bob", "resourceAttributes": {}}}),
            r#".authorization.k8s.io "" is invalid: metadata: Invalid value: v1.ObjectMeta{Name:"x", GenerateName:"", Namespace:"", SelfLink:"", UID:"", ResourceVersion:"", Generation:0, CreationTimestamp:time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC), DeletionTimestamp:<nil>, DeletionGracePeriodSeconds:(*int64)(nil), Labels:map[string]string(nil), Annotations:map[string]string(nil), OwnerReferences:[]v1.OwnerReference(nil), Finalizers:[]string(nil), ManagedFields:[]v1.ManagedFieldsEntry(nil)}: must be empty"#,
        ),
        (
            json!({"spec": {"user": "bob", "resourceAttributes": {"fieldSelector": {}}}}),
            r#".authorization.k8s.io "" is invalid: spec.resourceAttributes.fieldSelector.requirements: Required value: when spec.resourceAttributes.fieldSelector is specified, requirements or rawSelector is required"#,
        ),
        (
            json!({"spec": {"user": "bob", "resourceAttributes": {"labelSelector": {"rawSelector": "a=b", "requirements": [{"key": "a", "operator": "In", "values": ["b"]}]}}}}),
            r#".authorization.k8s.io "" is invalid: spec.resourceAttributes.labelSelector.rawSelector: Invalid value: "a=b": may not specified at the same time as requirements"#,
        ),
    ];
    for (body, expected) in cases {
        let result = subject_access_review(body, &Fake);
        assert_eq!(message(result.clone()), *expected, "{body}");
        let status = result.expect_err("refused").status();
        assert_eq!((status.code, status.reason), (422, "Invalid"));
    }
    // Empty metadata maps and a namespace (cleared by the handler for cluster-scoped kinds)
    // are fine.
    let body = json!({"metadata": {"labels": {}, "namespace": "ns"}, "spec": {"user": "alice", "nonResourceAttributes": {"path": "/healthz", "verb": "get"}}});
    assert_eq!(
        subject_access_review(&body, &Fake).expect("answered")["status"]["allowed"],
        json!(true)
    );
    let status = subject_access_review(&json!({"spec": {"user": 7}}), &Fake).unwrap_err().status();
    assert_eq!(
        (status.code, status.message.as_str()),
        (
            400,
            r#"SubjectAccessReview in version "v1" cannot be handled as a SubjectAccessReview: json: cannot unmarshal number into Go struct field SubjectAccessReviewSpec.spec.user of type string"#
        )
    );
}

#[test]
fn local_subject_access_review_is_confined_to_its_namespace() {
    let body = |meta: Value, attributes: Value| json!({"metadata": meta, "spec": {"user": "alice", "resourceAttributes": attributes}});
    let ok = local_subject_access_review(
        &body(json!({}), json!({"namespace": "ns", "verb": "get", "resource": "configmaps"})),
        "ns",
        &Fake,
    )
    .expect("answered");
    assert_eq!(ok["kind"], "LocalSubjectAccessReview");
    assert_eq!(ok["metadata"], json!({"namespace": "ns", "creationTimestamp": null}));
    assert_eq!(ok["status"], json!({"allowed": true, "reason": "allowed for alice"}));

    let status = local_subject_access_review(
        &body(json!({"namespace": "other"}), json!({"namespace": "other"})),
        "ns",
        &Fake,
    )
    .unwrap_err()
    .status();
    assert_eq!(
        (status.code, status.message.as_str()),
        (
            400,
            "the namespace of the provided object does not match the namespace sent on the request"
        )
    );
    assert_eq!(
        message(local_subject_access_review(
            &body(json!({}), json!({"namespace": "other"})),
            "ns",
            &Fake
        )),
        r#".authorization.k8s.io "" is invalid: spec.resourceAttributes.namespace: Invalid value: "other": must match metadata.namespace"#
    );
    let non_resource = json!({"spec": {"user": "alice", "nonResourceAttributes": {"path": "/healthz", "verb": "get"}}});
    assert_eq!(
        message(local_subject_access_review(&non_resource, "ns", &Fake)),
        r#".authorization.k8s.io "" is invalid: spec.nonResourceAttributes: Invalid value: authorization.NonResourceAttributes{Path:"/healthz", Verb:"get"}: disallowed on this kind of request"#
    );
    let named = body(json!({"name": "x", "namespace": "ns"}), json!({"namespace": "ns"}));
    let text = message(local_subject_access_review(&named, "ns", &Fake));
    assert!(text.starts_with(r#".authorization.k8s.io "" is invalid: metadata: Invalid value: v1.ObjectMeta{Name:"x", GenerateName:"", Namespace:"ns","#), "{text}");
    assert!(text.ends_with(": must be empty except for namespace"), "{text}");
}

#[test]
fn self_subject_access_review_asks_for_the_requester() {
    let body = json!({"spec": {"resourceAttributes": {"namespace": "ns", "verb": "get", "resource": "configmaps"}}});
    let alice = UserInfo { username: "alice".into(), ..UserInfo::default() };
    let bob = UserInfo { username: "bob".into(), ..UserInfo::default() };
    let answer = self_subject_access_review(&body, &alice, &Fake).expect("answered");
    assert_eq!(
        answer,
        json!({
            "kind": "SelfSubjectAccessReview",
            "apiVersion": "authorization.k8s.io/v1",
            "metadata": {"creationTimestamp": null},
            "spec": {"resourceAttributes": {"namespace": "ns", "verb": "get", "resource": "configmaps"}},
            "status": {"allowed": true, "reason": "allowed for alice"},
        })
    );
    assert_eq!(
        self_subject_access_review(&body, &bob, &Fake).expect("answered")["status"],
        json!({"allowed": false})
    );
    // No subject to validate; the spec fields of SubjectAccessReview are not read.
    let with_user = json!({"spec": {"user": "alice", "nonResourceAttributes": {"path": "/healthz", "verb": "get"}}});
    let answer = self_subject_access_review(&with_user, &bob, &Fake).expect("answered");
    assert_eq!(
        answer["spec"],
        json!({"nonResourceAttributes": {"path": "/healthz", "verb": "get"}})
    );
    assert_eq!(answer["status"]["allowed"], json!(false));
    assert_eq!(
        message(self_subject_access_review(&json!({"spec": {}}), &bob, &Fake)),
        r#".authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified"#
    );
}

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2025, 1, 2, 3, 4, 5).single().expect("valid time")
}

#[test]
fn self_subject_review_reports_the_requester() {
    let mut user = UserInfo::service_account("ns", "sa", "u1");
    user.extra.insert("k".into(), vec!["v".into()]);
    assert_eq!(
        self_subject_review(&user, now()),
        json!({
            "kind": "SelfSubjectReview",
            "apiVersion": "authentication.k8s.io/v1",
            "metadata": {"creationTimestamp": "2025-01-02T03:04:05Z"},
            "status": {"userInfo": {
                "username": "system:serviceaccount:ns:sa",
                "uid": "u1",
                "groups": ["system:serviceaccounts", "system:serviceaccounts:ns", "system:authenticated"],
                "extra": {"k": ["v"]},
            }},
        })
    );
    let anonymous = self_subject_review(&crate::anonymous(), now());
    assert_eq!(
        anonymous["status"],
        json!({"userInfo": {"username": "system:anonymous", "groups": ["system:unauthenticated"]}})
    );
}

struct NoObjects;

impl ServiceAccounts for NoObjects {
    fn service_account_uid(&self, _: &str, _: &str) -> Option<String> {
        None
    }
    fn secret_uid(&self, _: &str, _: &str) -> Option<String> {
        None
    }
}

#[test]
fn token_review_authenticates_the_token() {
    let users =
        StaticUsers::from_yaml("users: [{token: alice-token, username: alice}]").expect("users");
    let authenticator =
        Authenticator::new("admin-token", users, TokenSigner::generate().expect("key"))
            .expect("authenticator");
    let review = |body: Value| token_review(&body, &authenticator, &NoObjects, now());
    assert_eq!(
        review(json!({"spec": {"token": "alice-token"}})).expect("reviewed"),
        json!({
            "kind": "TokenReview",
            "apiVersion": "authentication.k8s.io/v1",
            "metadata": {"creationTimestamp": null},
            "spec": {"token": "alice-token"},
            "status": {
                "authenticated": true,
                "user": {"username": "alice", "groups": ["system:authenticated"]},
                "audiences": ["https://kubernetes.default.svc.cluster.local"],
            },
        })
    );
    assert_eq!(
        review(json!({"spec": {"token": "wrong"}})).expect("reviewed")["status"],
        json!({"user": {}, "error": "invalid bearer token"})
    );
    assert_eq!(
        review(json!({"spec": {"token": "alice-token", "audiences": ["vault"]}}))
            .expect("reviewed")["status"],
        json!({"user": {}, "error": "invalid bearer token"})
    );
    let status = review(json!({"spec": {}})).unwrap_err().status();
    assert_eq!(
        (status.code, status.message.as_str()),
        (400, "token is required for TokenReview in authentication")
    );
    // A token starting with a space reads as no token at all: anonymous, which has no audience.
    let status = review(json!({"spec": {"token": " alice-token"}})).unwrap_err().status();
    assert_eq!(
        (status.code, status.message.as_str()),
        (500, "Internal error occurred: error validating audiences")
    );
}
