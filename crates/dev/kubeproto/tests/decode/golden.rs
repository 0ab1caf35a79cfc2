//! The body `kubectl create token default --audience=a --duration=10m` sends, written out byte
//! by byte from how client-go's gogo-protobuf code marshals the TokenRequest (every value
//! field is written, empty or not; a zero metav1.Time is an empty message; fields in number
//! order) and how the protobuf serializer frames it (runtime.Unknown with empty
//! contentEncoding and contentType).

use certgate_kubeproto::decode;
use serde_json::json;

use crate::support::{envelope, go_object_meta, msg};

#[rustfmt::skip]
const KUBECTL_CREATE_TOKEN: &[u8] = &[
    0x6b, 0x38, 0x73, 0x00,                         // magic "k8s\0"
    0x0a, 0x28,                                     // Unknown.typeMeta (1), 40 bytes
      0x0a, 0x18,                                   //   apiVersion (1), 24 bytes
        b'a', b'u', b't', b'h', b'e', b'n', b't', b'i', b'c', b'a', b't', b'i', b'o', b'n',
        b'.', b'k', b'8', b's', b'.', b'i', b'o', b'/', b'v', b'1',
      0x12, 0x0c,                                   //   kind (2), 12 bytes
        b'T', b'o', b'k', b'e', b'n', b'R', b'e', b'q', b'u', b'e', b's', b't',
    0x12, 0x20,                                     // Unknown.raw (2), 32 bytes: the TokenRequest
      0x0a, 0x10,                                   //   metadata (1), 16 bytes
        0x0a, 0x00,                                 //     name ""
        0x12, 0x00,                                 //     generateName ""
        0x1a, 0x00,                                 //     namespace ""
        0x22, 0x00,                                 //     selfLink ""
        0x2a, 0x00,                                 //     uid ""
        0x32, 0x00,                                 //     resourceVersion ""
        0x38, 0x00,                                 //     generation 0
        0x42, 0x00,                                 //     creationTimestamp: zero Time
      0x12, 0x06,                                   //   spec (2), 6 bytes
        0x0a, 0x01, b'a',                           //     audiences (1) "a"
        0x20, 0xd8, 0x04,                           //     expirationSeconds (4) 600
      0x1a, 0x04,                                   //   status (3), 4 bytes
        0x0a, 0x00,                                 //     token ""
        0x12, 0x00,                                 //     expirationTimestamp: zero Time
    0x1a, 0x00,                                     // Unknown.contentEncoding (3) ""
    0x22, 0x00,                                     // Unknown.contentType (4) ""
];

/// What Go's encoding/json writes for that TokenRequest, byte for byte.
const EXPECTED_JSON: &str = r#"{"kind":"TokenRequest","apiVersion":"authentication.k8s.io/v1","metadata":{"creationTimestamp":null},"spec":{"audiences":["a"],"expirationSeconds":600,"boundObjectRef":null},"status":{"token":"","expirationTimestamp":null}}"#;

#[test]
fn kubectl_create_token_body_decodes_to_the_api_servers_json() {
    let value = decode(KUBECTL_CREATE_TOKEN).unwrap();
    assert_eq!(serde_json::to_string(&value).unwrap(), EXPECTED_JSON);
}

#[test]
fn the_test_encoder_builds_the_same_bytes() {
    let object = msg()
        .message(1, go_object_meta("", ""))
        .message(2, msg().string(1, "a").int(4, 600))
        .message(3, msg().string(1, "").message(2, msg()));
    assert_eq!(envelope("authentication.k8s.io/v1", "TokenRequest", object), KUBECTL_CREATE_TOKEN);
}

#[test]
fn a_minimal_encoding_of_the_same_request_decodes_the_same() {
    // Another encoder may leave empty fields out: metadata {}, spec {audiences, expiration}.
    let object = msg().message(1, msg()).message(2, msg().string(1, "a").int(4, 600));
    let value = decode(&envelope("authentication.k8s.io/v1", "TokenRequest", object)).unwrap();
    assert_eq!(
        value,
        json!({
            "kind": "TokenRequest",
            "apiVersion": "authentication.k8s.io/v1",
            "metadata": {"creationTimestamp": null},
            "spec": {"audiences": ["a"], "expirationSeconds": 600, "boundObjectRef": null},
            "status": {"token": "", "expirationTimestamp": null},
        })
    );
    assert_eq!(serde_json::to_string(&value).unwrap(), EXPECTED_JSON);
}
