//! Decoder behaviour that no supported kind can show: MicroTime fields and nesting deeper than
//! any real table, with synthetic tables.

use serde_json::json;

use crate::decoder::{Budget, decode_message};
use crate::error::DecodeError;
use crate::limits::{Limits, MAX_DEPTH};
use crate::render;
use crate::schema::{
    Go::{PointerOmitEmpty, Value},
    Message, Type, field,
};

static TIMES: Message = Message {
    name: "Times",
    fields: &[
        field(1, "time", Type::Time, Value),
        field(2, "micro", Type::MicroTime, Value),
        field(3, "maybeMicro", Type::MicroTime, PointerOmitEmpty),
    ],
};

/// A message that contains itself, to nest as deep as a body likes.
static NESTED: Message = Message {
    name: "Nested",
    fields: &[field(1, "child", Type::Message(&NESTED), PointerOmitEmpty)],
};

fn decode(message: &'static Message, bytes: &[u8]) -> Result<serde_json::Value, DecodeError> {
    let mut budget = Budget::new(&Limits::default());
    let decoded = decode_message(message, bytes, 0, 1, &mut budget)?;
    render::object("test/v1", message.name, &decoded)
}

#[test]
fn micro_times_keep_microseconds_and_times_drop_them() {
    // time {seconds: 1700000000, nanos: 5}, micro {seconds: 1700000000, nanos: 123456789}
    let bytes = [
        0x0a, 0x08, 0x08, 0x80, 0xe2, 0xcf, 0xaa, 0x06, 0x10, 0x05, //
        0x12, 0x0b, 0x08, 0x80, 0xe2, 0xcf, 0xaa, 0x06, 0x10, 0x95, 0x9a, 0xef, 0x3a,
    ];
    assert_eq!(
        decode(&TIMES, &bytes),
        Ok(json!({
            "kind": "Times",
            "apiVersion": "test/v1",
            "time": "2023-11-14T22:13:20Z",
            "micro": "2023-11-14T22:13:20.123456Z",
        }))
    );
}

#[test]
fn empty_times_are_null_and_a_present_pointer_time_is_written() {
    let bytes = [0x0a, 0x00, 0x1a, 0x00];
    assert_eq!(
        decode(&TIMES, &bytes),
        Ok(
            json!({"kind": "Times", "apiVersion": "test/v1", "time": null, "micro": null, "maybeMicro": null})
        )
    );
}

/// `{child: inner}` with the length as a varint.
fn wrap(inner: &[u8]) -> Vec<u8> {
    let mut out = vec![0x0a];
    let mut length = inner.len();
    while length >= 0x80 {
        out.push(u8::try_from(length & 0x7f).unwrap_or_default() | 0x80);
        length >>= 7;
    }
    out.push(u8::try_from(length).unwrap_or_default());
    out.extend_from_slice(inner);
    out
}

#[test]
fn nesting_past_the_default_depth_is_refused() {
    let deepest = (0..MAX_DEPTH - 1).fold(Vec::new(), |inner, _| wrap(&inner));
    assert!(decode(&NESTED, &deepest).is_ok());
    let too_deep = wrap(&deepest);
    let err = decode(&NESTED, &too_deep).unwrap_err();
    // The 33rd message starts after 32 one-byte keys and one-byte lengths.
    assert_eq!(
        err,
        DecodeError::TooDeep { message: "Nested".to_owned(), offset: 64, limit: MAX_DEPTH }
    );
    assert_eq!(
        err.to_string(),
        "Nested at byte 64 is nested more than 32 messages deep; flatten the object or send JSON"
    );
}
