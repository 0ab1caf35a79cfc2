//! Malformed and unsupported bodies: the exact messages, and the status each maps to.

use certgate_kubeproto::{
    DecodeError, Limits, MAGIC, MAX_BODY_BYTES, WireType, decode, decode_with_limits,
};

use crate::support::{envelope, msg, time};

fn framed(bytes: &[u8]) -> Vec<u8> {
    let mut body = MAGIC.to_vec();
    body.extend_from_slice(bytes);
    body
}

fn message(result: Result<serde_json::Value, DecodeError>) -> String {
    result.unwrap_err().to_string()
}

#[test]
fn a_body_without_the_magic() {
    let err = decode(br#"{"kind":"Namespace"}"#).unwrap_err();
    assert_eq!(err, DecodeError::MissingMagic);
    assert_eq!(
        err.to_string(),
        "body does not start with the Kubernetes protobuf magic \"k8s\\x00\"; send a body produced \
         by a Kubernetes protobuf encoder, or send JSON with Content-Type: application/json"
    );
    assert_eq!(err.status_code(), 400);
    assert_eq!(decode(b""), Err(DecodeError::MissingMagic));
    assert_eq!(decode(b"k8s"), Err(DecodeError::MissingMagic));
}

#[test]
fn only_the_magic() {
    assert_eq!(
        message(decode(&MAGIC)),
        "protobuf body holds only the \"k8s\\x00\" magic and no runtime.Unknown envelope; send the \
         encoded object after the magic"
    );
}

#[test]
fn an_unknown_kind_is_unsupported() {
    let err = decode(&envelope("rbac.authorization.k8s.io/v1", "Foo", msg())).unwrap_err();
    assert_eq!(
        err.to_string(),
        "protobuf bodies of kind rbac.authorization.k8s.io/v1 Foo are not supported by the sandbox; \
         send JSON (kubectl apply -f / create -f)"
    );
    assert!(err.is_unsupported_kind());
    assert_eq!(err.status_code(), 415);
    // A known kind in another version is another kind.
    let err = decode(&envelope("rbac.authorization.k8s.io/v1beta1", "Role", msg())).unwrap_err();
    assert_eq!(
        err,
        DecodeError::UnsupportedKind {
            api_version: "rbac.authorization.k8s.io/v1beta1".to_owned(),
            kind: "Role".to_owned()
        }
    );
    assert!(!DecodeError::MissingMagic.is_unsupported_kind());
}

#[test]
fn a_missing_api_version_or_kind() {
    assert_eq!(
        message(decode(&envelope("", "Namespace", msg()))),
        "protobuf envelope names no apiVersion (typeMeta apiVersion \"\", kind \"Namespace\"); set \
         both apiVersion and kind, or send JSON"
    );
    assert_eq!(
        message(decode(&envelope("v1", "", msg()))),
        "protobuf envelope names no kind (typeMeta apiVersion \"v1\", kind \"\"); set both \
         apiVersion and kind, or send JSON"
    );
    assert_eq!(
        message(decode(&framed(&msg().message(2, msg()).into_bytes()))),
        "protobuf envelope names no apiVersion or kind (typeMeta apiVersion \"\", kind \"\"); set \
         both apiVersion and kind, or send JSON"
    );
}

#[test]
fn a_content_encoding() {
    let unknown = msg().message(1, msg().string(1, "v1").string(2, "Namespace")).string(3, "gzip");
    let err = decode(&framed(&unknown.into_bytes())).unwrap_err();
    assert_eq!(
        err.to_string(),
        "protobuf envelope declares contentEncoding \"gzip\", which the sandbox does not decode; \
         send the object without a content encoding"
    );
    assert_eq!(err.status_code(), 415);
    assert!(!err.is_unsupported_kind());
}

#[test]
fn a_truncated_varint() {
    // The envelope's first length stops after a continuation byte.
    assert_eq!(
        decode(&framed(&[0x0a, 0x80])),
        Err(DecodeError::Truncated {
            message: "runtime.Unknown".to_owned(),
            what: "varint",
            offset: 5
        })
    );
    assert_eq!(
        message(decode(&framed(&[0x0a, 0x80]))),
        "varint at byte 5 in runtime.Unknown is cut off by the end of its message; the body is \
         truncated or corrupt, send it whole"
    );
    // Inside the object: spec's expirationSeconds (key 0x20 at byte 50) ends early.
    let body = envelope(
        "authentication.k8s.io/v1",
        "TokenRequest",
        msg().message(2, msg().raw(&[0x20, 0xd8])),
    );
    assert_eq!(
        message(decode(&body)),
        "varint at byte 51 in TokenRequestSpec is cut off by the end of its message; the body is \
         truncated or corrupt, send it whole"
    );
}

#[test]
fn a_truncated_fixed_width_value() {
    assert_eq!(
        message(decode(&framed(&[0x49, 1, 2, 3]))),
        "64-bit value at byte 5 in runtime.Unknown is cut off by the end of its message; the body \
         is truncated or corrupt, send it whole"
    );
    assert_eq!(
        message(decode(&framed(&[0x4d, 1]))),
        "32-bit value at byte 5 in runtime.Unknown is cut off by the end of its message; the body \
         is truncated or corrupt, send it whole"
    );
}

#[test]
fn an_overlong_varint() {
    // Unknown field 9 as a varint of 10 bytes whose last carries more than the 64th bit.
    let mut bytes = vec![0x48];
    bytes.extend([0xff; 9]);
    bytes.push(0x02);
    assert_eq!(
        message(decode(&framed(&bytes))),
        "varint at byte 5 in runtime.Unknown is longer than 10 bytes or overflows 64 bits; the \
         body is corrupt, re-encode it"
    );
}

#[test]
fn a_length_past_the_end() {
    assert_eq!(
        decode(&framed(&[0x0a, 0x05, 0x0a])),
        Err(DecodeError::LengthOverrun {
            message: "runtime.Unknown".to_owned(),
            field: 1,
            offset: 4,
            length: 5,
            available: 1
        })
    );
    assert_eq!(
        message(decode(&framed(&[0x0a, 0x05, 0x0a]))),
        "field 1 of runtime.Unknown at byte 4 declares 5 bytes but only 1 remain in its message; \
         the body is truncated or corrupt, send it whole"
    );
    // A nested length may not reach past its own message, even if the body goes on.
    let body =
        envelope("v1", "Namespace", msg().raw(&[0x0a, 0x02, 0x0a, 0x09]).string(2, "padding"));
    assert_eq!(
        message(decode(&body)),
        "field 1 of ObjectMeta at byte 25 declares 9 bytes but only 0 remain in its message; the \
         body is truncated or corrupt, send it whole"
    );
}

#[test]
fn an_invalid_field_number() {
    assert_eq!(
        message(decode(&framed(&[0x02, 0x00]))),
        "invalid field number 0 at byte 4 in runtime.Unknown: field numbers run from 1 to \
         536870911; the body is corrupt"
    );
    // 2^29 as a field number: key (2^29 << 3) | 0.
    let mut bytes = vec![0x80, 0x80, 0x80, 0x80, 0x10];
    bytes.push(0x00);
    assert!(matches!(
        decode(&framed(&bytes)),
        Err(DecodeError::InvalidFieldNumber { field: 536_870_912, offset: 4, .. })
    ));
}

#[test]
fn a_group_or_nonexistent_wire_type() {
    assert_eq!(
        message(decode(&framed(&[0x0b]))),
        "field 1 of runtime.Unknown at byte 4 uses wire type 3, which Kubernetes protobuf never \
         uses (3 and 4 are deprecated groups, 6 and 7 do not exist); the body is corrupt"
    );
    for key in [0x0c, 0x0e, 0x0f] {
        assert!(matches!(
            decode(&framed(&[key])),
            Err(DecodeError::InvalidWireType { field: 1, .. })
        ));
    }
}

#[test]
fn a_wrong_wire_type() {
    // expirationSeconds (4) is an int64 varint; this sends it as a string.
    let body = envelope(
        "authentication.k8s.io/v1",
        "TokenRequest",
        msg().message(2, msg().string(4, "600")),
    );
    let err = decode(&body).unwrap_err();
    assert_eq!(
        err,
        DecodeError::WrongWireType {
            message: "TokenRequestSpec".to_owned(),
            field: 4,
            name: "expirationSeconds",
            offset: 50,
            expected: WireType::Varint,
            actual: WireType::LengthDelimited,
        }
    );
    assert_eq!(
        err.to_string(),
        "field 4 (expirationSeconds) of TokenRequestSpec at byte 50 has wire type length-delimited \
         (2), but Kubernetes encodes it as varint (0); the body was not encoded from Kubernetes' \
         schema for TokenRequestSpec, check the envelope's apiVersion and kind"
    );
    // A map entry's value must be length-delimited too.
    let body = envelope("v1", "ConfigMap", msg().message(2, msg().string(1, "k").varint(2, 1)));
    assert_eq!(
        message(decode(&body)),
        "field 2 (value) of ConfigMap.data map entry at byte 28 has wire type varint (0), but \
         Kubernetes encodes it as length-delimited (2); the body was not encoded from Kubernetes' \
         schema for ConfigMap.data map entry, check the envelope's apiVersion and kind"
    );
}

#[test]
fn nesting_deeper_than_the_limit() {
    // ClusterRole (1) > aggregationRule (2) > clusterRoleSelectors (3) > matchExpressions (4).
    let selector = msg().message(2, msg().string(1, "k"));
    let body = envelope(
        "rbac.authorization.k8s.io/v1",
        "ClusterRole",
        msg().message(3, msg().message(1, selector)),
    );
    let limits = Limits { max_depth: 3, ..Limits::default() };
    assert_eq!(
        decode_with_limits(&body, &limits),
        Err(DecodeError::TooDeep {
            message: "LabelSelectorRequirement".to_owned(),
            offset: 57,
            limit: 3
        })
    );
    assert_eq!(
        message(decode_with_limits(&body, &limits)),
        "LabelSelectorRequirement at byte 57 is nested more than 3 messages deep; flatten the \
         object or send JSON"
    );
    assert!(decode(&body).is_ok());
    // Map entries count as a level.
    let selector = msg().entry(1, "k", b"v");
    let body = envelope(
        "rbac.authorization.k8s.io/v1",
        "ClusterRole",
        msg().message(3, msg().message(1, selector)),
    );
    assert_eq!(
        message(decode_with_limits(&body, &limits)),
        "LabelSelector.matchLabels map entry at byte 57 is nested more than 3 messages deep; \
         flatten the object or send JSON"
    );
}

#[test]
fn an_oversized_body() {
    let body = vec![0u8; MAX_BODY_BYTES + 1];
    let err = decode(&body).unwrap_err();
    assert_eq!(err, DecodeError::TooLarge { size: 3_145_729, limit: 3_145_728 });
    assert_eq!(
        err.to_string(),
        "protobuf body is 3145729 bytes, over the 3145728-byte limit; send a smaller object"
    );
    assert_eq!(err.status_code(), 413);
    // Exactly at the limit, the size is fine (and the content is what is wrong).
    assert_eq!(decode(&body[..MAX_BODY_BYTES]), Err(DecodeError::MissingMagic));
}

#[test]
fn too_many_items() {
    let metadata = msg().strings(14, &["a", "b"]).entry(11, "c", b"d");
    let body = envelope("v1", "ConfigMap", msg().message(1, metadata));
    let limits = Limits { max_items: 2, ..Limits::default() };
    assert_eq!(
        message(decode_with_limits(&body, &limits)),
        "field 11 (labels) of ObjectMeta at byte 31 goes over the limit of 2 list items and map \
         entries in one body; send fewer items or split the object"
    );
    assert!(decode_with_limits(&body, &Limits { max_items: 3, ..Limits::default() }).is_ok());
}

#[test]
fn a_string_that_is_not_utf8() {
    let body = envelope("v1", "Namespace", msg().message(1, msg().bytes(1, &[b'a', 0xff])));
    assert_eq!(
        message(decode(&body)),
        "field 1 (name) of ObjectMeta at byte 25 is not valid UTF-8; encode strings as UTF-8 \
         (binary content belongs in a ConfigMap's binaryData or a Secret's data)"
    );
    let body = envelope("v1", "ConfigMap", msg().message(2, msg().bytes(1, &[0xc3])));
    assert_eq!(
        message(decode(&body)),
        "field 1 (key) of ConfigMap.data map entry at byte 25 is not valid UTF-8; encode strings \
         as UTF-8 (binary content belongs in a ConfigMap's binaryData or a Secret's data)"
    );
}

#[test]
fn a_time_rfc3339_cannot_write() {
    let body =
        envelope("v1", "Namespace", msg().message(1, msg().message(8, time(253_402_300_800))));
    assert_eq!(
        message(decode(&body)),
        "field 8 (creationTimestamp) of ObjectMeta at byte 25 is 253402300800 seconds from the \
         Unix epoch, outside the years 0000-9999 that RFC 3339 can write; send a time within \
         those years"
    );
}
