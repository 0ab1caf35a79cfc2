//! Hostile input never panics, and the answers keep their invariants.

use std::sync::OnceLock;

use certgate_access::{
    Authenticator, Impersonation, RequestAttributes, ServiceAccounts, StaticUsers, TokenSigner,
    forbidden_message, is_read_only, request_attributes, subject_access_review, token_request,
};
use certgate_rbac::{RbacAuthorizer, RbacObjects};
use chrono::{TimeZone, Utc};
use proptest::prelude::*;
use serde_json::{Value, json};

struct NoObjects;

impl ServiceAccounts for NoObjects {
    fn service_account_uid(&self, _: &str, _: &str) -> Option<String> {
        None
    }
    fn secret_uid(&self, _: &str, _: &str) -> Option<String> {
        None
    }
}

fn authenticator() -> &'static Authenticator {
    static AUTHENTICATOR: OnceLock<Authenticator> = OnceLock::new();
    AUTHENTICATOR.get_or_init(|| {
        let users = StaticUsers::from_yaml("users: [{token: t0ken, username: u}]").expect("users");
        Authenticator::new("admin", users, TokenSigner::generate().expect("key"))
            .expect("authenticator")
    })
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        "[a-z/.:= ]{0,12}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::btree_map(
                prop_oneof![
                    Just("spec".to_owned()),
                    Just("metadata".to_owned()),
                    Just("resourceAttributes".to_owned()),
                    Just("nonResourceAttributes".to_owned()),
                    Just("boundObjectRef".to_owned()),
                    Just("expirationSeconds".to_owned()),
                    Just("user".to_owned()),
                    Just("groups".to_owned()),
                    Just("name".to_owned()),
                    "[a-z]{1,6}",
                ],
                inner,
                0..5
            )
            .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

proptest! {
    #[test]
    fn request_attributes_are_total(
        method in prop_oneof![
            Just("GET".to_owned()),
            Just("POST".to_owned()),
            Just("DELETE".to_owned()),
            Just("OPTIONS".to_owned()),
            "[A-Za-z]{0,7}",
        ],
        path in "(/(api|apis|v1|namespaces|watch|proxy|ns|x|%2F|%zz|[a-z.]{0,5})){0,8}",
        query in "[a-zA-Z=&%;.0-9+]{0,24}",
    ) {
        if let Ok(attributes) = request_attributes(&method, &path, &query) {
            let message = forbidden_message("u", &attributes);
            prop_assert!(message.starts_with("User \"u\" cannot "));
            if is_read_only(&attributes) {
                prop_assert!(matches!(attributes.verb(), "get" | "list" | "watch"));
            }
            if let RequestAttributes::Resource(resource) = &attributes {
                prop_assert!(path.starts_with("/api") || path.contains("/api"));
                if resource.verb == "deletecollection" {
                    prop_assert!(resource.name.is_empty());
                }
            }
        }
    }

    #[test]
    fn authentication_is_total(header in prop::collection::vec(any::<u8>(), 0..64)) {
        let now = Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0).single().expect("time");
        match authenticator().authenticate(Some(&header), now, &NoObjects) {
            Ok(user) => prop_assert!(!user.username.is_empty()),
            Err(error) => {
                let token = String::from_utf8_lossy(&header).to_string();
                let token = token.trim().trim_start_matches("Bearer ").trim_start_matches("bearer ");
                if token.len() > 3 {
                    prop_assert!(!error.detail().contains(token));
                }
            }
        }
    }

    #[test]
    fn impersonation_parsing_is_total(
        headers in prop::collection::vec(
            (prop_oneof![
                Just("impersonate-user".to_owned()),
                Just("Impersonate-Group".to_owned()),
                Just("impersonate-uid".to_owned()),
                "impersonate-extra-[a-z%0-9]{0,6}",
                "[a-z-]{1,8}",
            ], prop::collection::vec(any::<u8>(), 0..12)),
            0..6,
        ),
    ) {
        let pairs = headers.iter().map(|(name, value)| (name.as_str(), value.as_slice()));
        if let Ok(Some(impersonation)) = Impersonation::from_headers(pairs) {
            let user = impersonation.user_info();
            prop_assert!(!user.username.is_empty());
            let checks = impersonation.checks();
            prop_assert!(checks.iter().all(|check| check.verb == "impersonate"));
        }
    }

    #[test]
    fn users_files_are_total(text in "[a-z:\\[\\]{}\\-, \n'\"0-9]{0,80}") {
        let _ = StaticUsers::from_yaml(&text);
    }

    #[test]
    fn review_and_token_handlers_are_total(body in json_value()) {
        let rbac = RbacAuthorizer::new(RbacObjects::default());
        let _ = subject_access_review(&body, &rbac);
        let signer = authenticator().signer();
        let now = Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0).single().expect("time");
        let _ = token_request(signer, &body, "ns", "sa", "uid", None, now);
        let _ = certgate_access::token_review(&body, authenticator(), &NoObjects, now);
        let _ = certgate_access::local_subject_access_review(&body, "ns", &rbac);
        let _ = certgate_access::self_subject_access_review(&body, &certgate_access::anonymous(), &rbac);
        let _ = certgate_access::self_subject_rules_review(&body, &certgate_access::anonymous(), &rbac);
    }
}

#[test]
fn large_numbers_do_not_overflow() {
    let signer = authenticator().signer();
    let now = Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0).single().expect("time");
    let body = json!({"spec": {"expirationSeconds": i64::MAX}});
    let error = token_request(signer, &body, "ns", "sa", "uid", None, now).expect_err("too long");
    assert_eq!(error.status().code, 422);
}
