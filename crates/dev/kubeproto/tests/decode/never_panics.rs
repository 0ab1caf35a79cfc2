//! Arbitrary bytes never panic: as a whole body, as the object inside a valid envelope of
//! every supported kind, and as single-byte corruptions of a valid body.

use certgate_kubeproto::{Limits, MAGIC, decode, decode_with_limits, supported_kinds};
use proptest::prelude::*;

use crate::support::{envelope, go_object_meta, msg};

fn kinds() -> Vec<(&'static str, &'static str)> {
    supported_kinds().collect()
}

/// A body that reaches deep into the tables: a ClusterRole with rules, labels and selectors.
fn valid_body() -> Vec<u8> {
    let selector = msg()
        .entry(1, "k", b"v")
        .message(2, msg().string(1, "tier").string(2, "In").strings(3, &["a"]));
    let object = msg()
        .message(
            1,
            go_object_meta("x", "")
                .entry(11, "a", b"b")
                .message(17, msg().message(7, msg().string(1, "{}"))),
        )
        .message(2, msg().strings(1, &["get"]).strings(3, &["pods"]))
        .message(3, msg().message(1, selector));
    envelope("rbac.authorization.k8s.io/v1", "ClusterRole", object)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn arbitrary_bodies_never_panic(body in proptest::collection::vec(any::<u8>(), 0..256)) {
        let _ = decode(&body);
        let mut framed = MAGIC.to_vec();
        framed.extend_from_slice(&body);
        let _ = decode(&framed);
    }

    #[test]
    fn arbitrary_objects_of_every_kind_never_panic(
        object in proptest::collection::vec(any::<u8>(), 0..256),
        kind in 0usize..16,
    ) {
        let kinds = kinds();
        let (api_version, kind) = kinds[kind % kinds.len()];
        let body = envelope(api_version, kind, msg().raw(&object));
        let _ = decode(&body);
        let tight = Limits { max_body_bytes: 1 << 20, max_depth: 3, max_items: 4 };
        let _ = decode_with_limits(&body, &tight);
    }

    #[test]
    fn corrupted_valid_bodies_never_panic(index in any::<prop::sample::Index>(), byte in any::<u8>(), cut in any::<prop::sample::Index>()) {
        let mut body = valid_body();
        let at = index.index(body.len());
        body[at] = byte;
        let _ = decode(&body);
        let end = cut.index(body.len());
        let _ = decode(&body[..end]);
    }
}

#[test]
fn the_valid_body_decodes() {
    assert!(decode(&valid_body()).is_ok(), "{:?}", decode(&valid_body()));
}
