//! A tiny protobuf encoder for building test bodies from field numbers, and the envelope
//! around them. Test-only: the crate itself never encodes.

use certgate_kubeproto::MAGIC;

/// One message under construction; fields are written in the order they are added.
#[derive(Debug, Clone, Default)]
pub struct Msg(Vec<u8>);

pub fn msg() -> Msg {
    Msg::default()
}

pub fn varint(mut value: u64) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let byte = (value & 0x7f) as u8;
        value >>= 7;
        if value == 0 {
            out.push(byte);
            return out;
        }
        out.push(byte | 0x80);
    }
}

impl Msg {
    fn key(mut self, field: u32, wire_type: u8) -> Self {
        self.0.extend(varint(u64::from(field) << 3 | u64::from(wire_type)));
        self
    }

    /// A varint field (int32, int64, bool, enum).
    pub fn varint(self, field: u32, value: u64) -> Self {
        let mut this = self.key(field, 0);
        this.0.extend(varint(value));
        this
    }

    pub fn int(self, field: u32, value: i64) -> Self {
        self.varint(field, value as u64)
    }

    pub fn bool(self, field: u32, value: bool) -> Self {
        self.varint(field, u64::from(value))
    }

    /// A length-delimited field holding these bytes.
    pub fn bytes(self, field: u32, value: &[u8]) -> Self {
        let mut this = self.key(field, 2);
        this.0.extend(varint(value.len() as u64));
        this.0.extend_from_slice(value);
        this
    }

    pub fn string(self, field: u32, value: &str) -> Self {
        self.bytes(field, value.as_bytes())
    }

    pub fn strings(self, field: u32, values: &[&str]) -> Self {
        values.iter().fold(self, |this, value| this.string(field, value))
    }

    pub fn message(self, field: u32, value: Msg) -> Self {
        self.bytes(field, &value.0)
    }

    /// A `map<string, string>` or `map<string, bytes>` entry.
    pub fn entry(self, field: u32, key: &str, value: &[u8]) -> Self {
        self.message(field, msg().string(1, key).bytes(2, value))
    }

    pub fn fixed32(self, field: u32, value: u32) -> Self {
        let mut this = self.key(field, 5);
        this.0.extend_from_slice(&value.to_le_bytes());
        this
    }

    pub fn fixed64(self, field: u32, value: u64) -> Self {
        let mut this = self.key(field, 1);
        this.0.extend_from_slice(&value.to_le_bytes());
        this
    }

    /// Bytes appended as they are, for malformed input.
    pub fn raw(mut self, bytes: &[u8]) -> Self {
        self.0.extend_from_slice(bytes);
        self
    }

    pub fn into_bytes(self) -> Vec<u8> {
        self.0
    }
}

/// A `metav1.Time` / `Timestamp` {1: seconds, 2: nanos}.
pub fn time(seconds: i64) -> Msg {
    msg().int(1, seconds)
}

/// The body kubectl sends: magic, then runtime.Unknown {typeMeta, raw, contentEncoding "",
/// contentType ""}, the empty strings written as Go writes every value field.
pub fn envelope(api_version: &str, kind: &str, object: Msg) -> Vec<u8> {
    let unknown = msg()
        .message(1, msg().string(1, api_version).string(2, kind))
        .message(2, object)
        .string(3, "")
        .string(4, "");
    let mut body = MAGIC.to_vec();
    body.extend(unknown.into_bytes());
    body
}

/// `metav1.ObjectMeta` as Go marshals a struct with only these fields set: every value field
/// is written, empty or not (name 1 ... resourceVersion 6, generation 7, creationTimestamp 8).
pub fn go_object_meta(name: &str, namespace: &str) -> Msg {
    msg()
        .string(1, name)
        .string(2, "")
        .string(3, namespace)
        .string(4, "")
        .string(5, "")
        .string(6, "")
        .int(7, 0)
        .message(8, msg())
}
