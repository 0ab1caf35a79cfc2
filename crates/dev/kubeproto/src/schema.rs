//! The shape of a field table. A table lists a Go type's protobuf fields in the order of the
//! Go struct (which is the order `encoding/json` writes them), each with its field number and
//! wire type from the type's `generated.proto`, its JSON name, and how its Go field is
//! declared, which decides when `encoding/json` writes it.

use crate::error::WireType;

/// A Go type with a protobuf encoding.
#[derive(Debug)]
pub(crate) struct Message {
    /// The Go type name, for error messages.
    pub(crate) name: &'static str,
    /// The fields in Go struct order.
    pub(crate) fields: &'static [Field],
}

impl Message {
    /// The position in `fields` of the field with this number, if the table knows it.
    pub(crate) fn index_of(&self, number: u32) -> Option<usize> {
        self.fields.iter().position(|field| field.number == number)
    }
}

/// One field of a [`Message`].
#[derive(Debug)]
pub(crate) struct Field {
    pub(crate) number: u32,
    pub(crate) json: &'static str,
    pub(crate) ty: Type,
    pub(crate) go: Go,
}

/// Shorthand for table rows.
pub(crate) const fn field(number: u32, json: &'static str, ty: Type, go: Go) -> Field {
    Field { number, json, ty, go }
}

/// What a field holds, which fixes both its wire type and its JSON form.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Type {
    /// `string`, UTF-8.
    String,
    /// `int64`, a JSON number.
    Int64,
    /// `int32`: the low 32 bits of the varint, as Go's decoder keeps them.
    Int32,
    /// `bool`: any non-zero varint is true.
    Bool,
    /// `bytes`; only the envelope's `raw` and FieldsV1's `Raw` use it.
    Bytes,
    /// An embedded message, rendered as a JSON object.
    Message(&'static Message),
    /// `metav1.Time` (seconds, nanos): RFC 3339 in UTC to the second, null when zero.
    Time,
    /// `metav1.MicroTime`: RFC 3339 in UTC with 6 fractional digits, null when zero.
    #[cfg_attr(
        not(test),
        expect(dead_code, reason = "no supported kind has one yet (Lease and Event do)")
    )]
    MicroTime,
    /// `metav1.FieldsV1`: a message whose `Raw` bytes are JSON, rendered as that JSON.
    FieldsV1,
    /// `repeated string`.
    Strings,
    /// `repeated` message.
    Messages(&'static Message),
    /// `map<string, string>`.
    StringMap,
    /// `map<string, bytes>`: values as standard base64 with padding, as Go writes `[]byte`.
    BytesMap,
    /// `map<string, ExtraValue>` where ExtraValue is `repeated string items = 1`: an object of
    /// string arrays.
    ExtraMap,
}

impl Type {
    /// The wire type Kubernetes encodes this field with.
    pub(crate) fn wire_type(self) -> WireType {
        match self {
            Self::Int64 | Self::Int32 | Self::Bool => WireType::Varint,
            _ => WireType::LengthDelimited,
        }
    }
}

/// How the Go field is declared, which decides what `encoding/json` writes for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Go {
    /// A value field without `omitempty`: always written, as its zero value ("", 0, false,
    /// null for a nil slice or map) when not on the wire.
    Value,
    /// A value field with `omitempty`: left out when zero. Struct fields (messages, times)
    /// are never zero to `encoding/json`, so they are always written.
    OmitEmpty,
    /// A pointer without `omitempty`: null when not on the wire.
    Pointer,
    /// A pointer with `omitempty`: left out when not on the wire.
    PointerOmitEmpty,
}
