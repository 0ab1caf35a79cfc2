//! Arbitrary bytes as a Kubernetes protobuf body, and as the object inside a valid envelope of
//! a supported kind picked by the first byte (so the field tables are reached, not just the
//! envelope): `certgate_kubeproto::decode` never panics, every error maps to 400, 413 or 415,
//! and every success is a JSON object carrying the envelope's kind and apiVersion.
#![no_main]

use certgate_kubeproto::{MAGIC, decode, supported_kinds};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fn varint(mut value: usize, out: &mut Vec<u8>) {
    while value >= 0x80 {
        out.push((value & 0x7f) as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

fn length_delimited(field: u8, payload: &[u8], out: &mut Vec<u8>) {
    out.push(field << 3 | 2);
    varint(payload.len(), out);
    out.extend_from_slice(payload);
}

/// magic + runtime.Unknown {typeMeta {apiVersion, kind}, raw}.
fn envelope(api_version: &str, kind: &str, raw: &[u8]) -> Vec<u8> {
    let mut type_meta = Vec::new();
    length_delimited(1, api_version.as_bytes(), &mut type_meta);
    length_delimited(2, kind.as_bytes(), &mut type_meta);
    let mut body = MAGIC.to_vec();
    length_delimited(1, &type_meta, &mut body);
    length_delimited(2, raw, &mut body);
    body
}

fn check(body: &[u8], api_version: Option<(&str, &str)>) {
    match decode(body) {
        Ok(value) => {
            let Value::Object(object) = &value else { panic!("not an object: {value}") };
            if let Some((api_version, kind)) = api_version {
                assert_eq!(object.get("apiVersion"), Some(&Value::from(api_version)));
                assert_eq!(object.get("kind"), Some(&Value::from(kind)));
            }
            serde_json::to_vec(&value).expect("decoded JSON serializes");
        }
        Err(err) => {
            assert!(matches!(err.status_code(), 400 | 413 | 415), "{err}");
            assert!(!err.to_string().is_empty());
        }
    }
}

fuzz_target!(|data: &[u8]| {
    check(data, None);
    let Some((&selector, object)) = data.split_first() else { return };
    let kinds: Vec<_> = supported_kinds().collect();
    let (api_version, kind) = kinds[usize::from(selector) % kinds.len()];
    check(&envelope(api_version, kind, object), Some((api_version, kind)));
});
