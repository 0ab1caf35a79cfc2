//! `/mutate`: CREATE of a CertificateRequest gets the requester's identity stamped as an
//! RFC 6902 patch (cert-manager-requests spec §2.1).

mod common;

use certgate_admission::review::Endpoint;
use common::webhook::*;
use common::{cr, valid_spec};
use pretty_assertions::assert_eq;
use proptest::prelude::*;
use serde_json::{Value, json};

/// Applies the patch of `answer` to `object`.
fn patched(object: &Value, patch: Option<Value>) -> Value {
    let mut object = object.clone();
    if let Some(patch) = patch {
        let patch: json_patch::Patch = serde_json::from_value(patch).unwrap();
        json_patch::patch(&mut object, &patch).unwrap();
    }
    object
}

fn create(user: Value, object: &Value) -> Value {
    review(Target::CertificateRequests, "CREATE", user, object.clone(), None)
}

#[test]
fn a_user_gets_uid_username_and_groups_and_no_extra() {
    let object = cr_object(&cr(valid_spec()));
    let answer = answer(&permissive(), Endpoint::Mutate, &create(alice(), &object));
    assert!(answer.allowed);
    assert_eq!(answer.handled.resource, "cert-manager.io/v1/certificaterequests");
    assert_eq!(answer.handled.operation, "CREATE");
    let spec = patched(&object, answer.patch)["spec"].clone();
    assert_eq!(spec["uid"], "4bd9b4d0-5a07-4d6b-b5c8-4c5b0f8d2a11");
    assert_eq!(spec["username"], "alice");
    assert_eq!(spec["groups"], json!(["developers", "system:authenticated"]));
    assert_eq!(spec.get("extra"), None);
    // Nothing else changed.
    assert_eq!(spec["request"], object["spec"]["request"]);
    assert_eq!(spec["issuerRef"], object["spec"]["issuerRef"]);
}

#[test]
fn a_service_account_gets_its_extras() {
    let object = cr_object(&cr(valid_spec()));
    let answer = answer(&permissive(), Endpoint::Mutate, &create(service_account(), &object));
    let spec = patched(&object, answer.patch)["spec"].clone();
    let sa = service_account();
    assert_eq!(spec["username"], "system:serviceaccount:cert-manager:cert-manager");
    assert_eq!(spec["uid"], sa["uid"]);
    assert_eq!(spec["groups"], sa["groups"]);
    assert_eq!(spec["extra"], sa["extra"]);
}

#[test]
fn supplied_identity_is_overwritten_and_stale_extra_removed() {
    let mut object = cr_object(&cr(valid_spec()));
    object["spec"]["uid"] = json!("forged");
    object["spec"]["username"] = json!("system:admin");
    object["spec"]["groups"] = json!(["system:masters"]);
    object["spec"]["extra"] = json!({"scopes": ["all"]});
    let answer = answer(&permissive(), Endpoint::Mutate, &create(alice(), &object));
    let spec = patched(&object, answer.patch)["spec"].clone();
    assert_eq!(spec["username"], "alice");
    assert_eq!(spec["groups"], json!(["developers", "system:authenticated"]));
    assert_eq!(spec.get("extra"), None);
}

#[test]
fn an_empty_identity_is_written_as_empty_values() {
    let object = cr_object(&cr(valid_spec()));
    let answer = answer(&permissive(), Endpoint::Mutate, &create(json!({}), &object));
    let spec = patched(&object, answer.patch)["spec"].clone();
    assert_eq!(spec["uid"], "");
    assert_eq!(spec["username"], "");
    assert_eq!(spec["groups"], json!([]));
    assert_eq!(spec.get("extra"), None);
}

#[test]
fn an_object_already_carrying_the_identity_gets_no_patch() {
    let mut object = cr_object(&cr(valid_spec()));
    let sa = service_account();
    for field in ["uid", "username", "groups", "extra"] {
        object["spec"][field] = sa[field].clone();
    }
    let answer = answer(&permissive(), Endpoint::Mutate, &create(sa, &object));
    assert!(answer.allowed);
    assert_eq!(answer.patch, None);
}

#[test]
fn mutation_then_validation_admits_the_create() {
    let admission = permissive();
    for user in [alice(), service_account(), json!({"username": "bob"})] {
        let object = cr_object(&cr(valid_spec()));
        let answer = answer(&admission, Endpoint::Mutate, &create(user.clone(), &object));
        let object = patched(&object, answer.patch);
        assert_allowed(&admission, Endpoint::Validate, &create(user, &object));
    }
}

/// A valid object, built once: generating CSRs is slow.
fn base_object() -> &'static Value {
    static OBJECT: std::sync::OnceLock<Value> = std::sync::OnceLock::new();
    OBJECT.get_or_init(|| cr_object(&cr(valid_spec())))
}

fn arb_strings() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec("[a-z:]{0,6}", 0..4)
}

fn arb_extra() -> impl Strategy<Value = std::collections::BTreeMap<String, Vec<String>>> {
    prop::collection::btree_map("[a-z./-]{1,8}", arb_strings(), 0..3)
}

/// An identity as JSON, each field present or not.
fn arb_identity() -> impl Strategy<Value = Value> {
    (
        prop::option::of(".{0,8}"),
        prop::option::of(".{0,8}"),
        prop::option::of(arb_strings()),
        prop::option::of(arb_extra()),
    )
        .prop_map(|(uid, username, groups, extra)| {
            let mut identity = serde_json::Map::new();
            let mut put = |key: &str, value: Option<Value>| {
                if let Some(value) = value {
                    identity.insert(key.to_owned(), value);
                }
            };
            put("uid", uid.map(Value::from));
            put("username", username.map(Value::from));
            put("groups", groups.map(|g| json!(g)));
            put("extra", extra.map(|e| json!(e)));
            Value::Object(identity)
        })
}

/// Any small JSON value: what a CREATE may carry in an identity field, mistyped or not.
fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        ".{0,8}".prop_map(Value::from),
    ];
    leaf.prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::from),
            prop::collection::btree_map("[a-z]{1,3}", inner, 0..3)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Identity fields as a CREATE may carry them: each present or not, well typed or any JSON.
fn arb_carried() -> impl Strategy<Value = Value> {
    let field = || prop::option::of(arb_json());
    (arb_identity(), field(), field(), field(), field()).prop_map(
        |(mut identity, uid, username, groups, extra)| {
            for (key, value) in
                [("uid", uid), ("username", username), ("groups", groups), ("extra", extra)]
            {
                if let Some(value) = value {
                    identity[key] = value;
                }
            }
            identity
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Whatever identity the CREATE carries, the patched object carries the requester's,
    /// and validation of that object by the same requester finds nothing to reject.
    #[test]
    fn the_patched_object_carries_the_requesters_identity(
        carried in arb_carried(),
        requester in arb_identity(),
    ) {
        let mut object = base_object().clone();
        for (key, value) in carried.as_object().unwrap() {
            object["spec"][key] = value.clone();
        }
        let admission = permissive();
        let mutated = answer(&admission, Endpoint::Mutate, &create(requester.clone(), &object));
        prop_assert!(mutated.allowed);
        let spec = patched(&object, mutated.patch)["spec"].clone();

        let text = |key: &str| requester.get(key).cloned().unwrap_or(json!(""));
        prop_assert_eq!(&spec["uid"], &text("uid"));
        prop_assert_eq!(&spec["username"], &text("username"));
        prop_assert_eq!(&spec["groups"], &requester.get("groups").cloned().unwrap_or(json!([])));
        let extra = requester.get("extra").filter(|e| e.as_object().is_some_and(|m| !m.is_empty()));
        prop_assert_eq!(spec.get("extra"), extra);

        let mut stamped = object.clone();
        stamped["spec"] = spec;
        let validated = answer(&admission, Endpoint::Validate, &create(requester, &stamped));
        prop_assert!(validated.allowed, "{:?}", validated.message);
    }
}
