use serde_json::json;

use super::CertificateRequestSpec;

fn spec_with_request(request: &str) -> serde_json::Value {
    json!({"issuerRef": {"name": "ca"}, "request": request})
}

#[test]
fn request_round_trips_as_padded_standard_base64() {
    let spec: CertificateRequestSpec =
        serde_json::from_value(spec_with_request("LS0tLS1CRUdJTiBDU1I/Pz4+")).unwrap();
    assert_eq!(spec.request, b"-----BEGIN CSR??>>");
    let out = serde_json::to_value(&spec).unwrap();
    assert_eq!(out["request"], "LS0tLS1CRUdJTiBDU1I/Pz4+");

    let spec = CertificateRequestSpec { request: b"ab".to_vec(), ..Default::default() };
    assert_eq!(serde_json::to_value(&spec).unwrap()["request"], "YWI=");
}

#[test]
fn request_accepts_missing_padding_and_line_breaks() {
    for encoded in ["YWI=", "YWI", "YW\nI=", "Y\r\nWI"] {
        let spec: CertificateRequestSpec =
            serde_json::from_value(spec_with_request(encoded)).unwrap();
        assert_eq!(spec.request, b"ab", "{encoded:?}");
    }
}

#[test]
fn request_rejects_non_base64_with_a_clear_error() {
    for encoded in ["YW I=", "YWI-", "Y", "YWI==="] {
        let err = serde_json::from_value::<CertificateRequestSpec>(spec_with_request(encoded))
            .expect_err(encoded)
            .to_string();
        assert!(err.starts_with("invalid base64 in a `format: byte` field ("), "{err}");
        assert!(err.contains("expected standard base64"), "{err}");
    }
}
