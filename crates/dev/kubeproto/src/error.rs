//! Everything that can be wrong with a protobuf body. Each message says what was wrong, where
//! (field number, Go type, byte offset from the start of the body, magic included) and what
//! the sender can do about it, because it ends up in front of a kubectl user.

use std::fmt;

/// How a protobuf field's payload is laid out on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WireType {
    /// 0: a base-128 varint (int32, int64, bool).
    Varint,
    /// 1: eight bytes (fixed64, double); no Kubernetes field uses it, but it may be skipped.
    Fixed64,
    /// 2: a varint length, then that many bytes (string, bytes, messages, map entries).
    LengthDelimited,
    /// 5: four bytes (fixed32, float); no Kubernetes field uses it, but it may be skipped.
    Fixed32,
}

impl fmt::Display for WireType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Varint => "varint (0)",
            Self::Fixed64 => "64-bit (1)",
            Self::LengthDelimited => "length-delimited (2)",
            Self::Fixed32 => "32-bit (5)",
        })
    }
}

/// Why a body could not be decoded. `message` names the Go type (or map entry) being read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DecodeError {
    #[error("protobuf body is {size} bytes, over the {limit}-byte limit; send a smaller object")]
    TooLarge { size: usize, limit: usize },

    #[error(
        "body does not start with the Kubernetes protobuf magic \"k8s\\x00\"; send a body \
         produced by a Kubernetes protobuf encoder, or send JSON with Content-Type: application/json"
    )]
    MissingMagic,

    #[error(
        "protobuf body holds only the \"k8s\\x00\" magic and no runtime.Unknown envelope; \
         send the encoded object after the magic"
    )]
    EmptyEnvelope,

    #[error(
        "{what} at byte {offset} in {message} is cut off by the end of its message; the body \
         is truncated or corrupt, send it whole"
    )]
    Truncated { message: String, what: &'static str, offset: usize },

    #[error(
        "varint at byte {offset} in {message} is longer than 10 bytes or overflows 64 bits; \
         the body is corrupt, re-encode it"
    )]
    VarintOverflow { message: String, offset: usize },

    #[error(
        "field {field} of {message} at byte {offset} declares {length} bytes but only \
         {available} remain in its message; the body is truncated or corrupt, send it whole"
    )]
    LengthOverrun { message: String, field: u32, offset: usize, length: u64, available: usize },

    #[error(
        "invalid field number {field} at byte {offset} in {message}: field numbers run from 1 \
         to 536870911; the body is corrupt"
    )]
    InvalidFieldNumber { message: String, field: u64, offset: usize },

    #[error(
        "field {field} of {message} at byte {offset} uses wire type {wire_type}, which \
         Kubernetes protobuf never uses (3 and 4 are deprecated groups, 6 and 7 do not exist); \
         the body is corrupt"
    )]
    InvalidWireType { message: String, field: u32, wire_type: u8, offset: usize },

    #[error(
        "field {field} ({name}) of {message} at byte {offset} has wire type {actual}, but \
         Kubernetes encodes it as {expected}; the body was not encoded from Kubernetes' schema \
         for {message}, check the envelope's apiVersion and kind"
    )]
    WrongWireType {
        message: String,
        field: u32,
        name: &'static str,
        offset: usize,
        expected: WireType,
        actual: WireType,
    },

    #[error(
        "{message} at byte {offset} is nested more than {limit} messages deep; flatten the \
         object or send JSON"
    )]
    TooDeep { message: String, offset: usize, limit: usize },

    #[error(
        "field {field} ({name}) of {message} at byte {offset} goes over the limit of {limit} \
         list items and map entries in one body; send fewer items or split the object"
    )]
    TooManyItems { message: String, field: u32, name: &'static str, offset: usize, limit: usize },

    #[error(
        "field {field} ({name}) of {message} at byte {offset} is not valid UTF-8; encode \
         strings as UTF-8 (binary content belongs in a ConfigMap's binaryData or a Secret's data)"
    )]
    InvalidUtf8 { message: String, field: u32, name: &'static str, offset: usize },

    #[error(
        "field {field} ({name}) of {message} at byte {offset} is {seconds} seconds from the \
         Unix epoch, outside the years 0000-9999 that RFC 3339 can write; send a time within \
         those years"
    )]
    TimeOutOfRange { message: String, field: u32, name: &'static str, offset: usize, seconds: i64 },

    #[error(
        "fieldsV1 of ManagedFieldsEntry at byte {offset} is not valid JSON ({reason}); send \
         managedFields as JSON field sets, or leave them out"
    )]
    InvalidFieldsV1 { offset: usize, reason: String },

    #[error(
        "protobuf envelope declares contentEncoding {encoding:?}, which the sandbox does not \
         decode; send the object without a content encoding"
    )]
    UnsupportedContentEncoding { encoding: String },

    #[error(
        "protobuf envelope names no {missing} (typeMeta apiVersion {api_version:?}, kind \
         {kind:?}); set both apiVersion and kind, or send JSON"
    )]
    MissingTypeMeta { missing: &'static str, api_version: String, kind: String },

    #[error(
        "protobuf bodies of kind {api_version} {kind} are not supported by the sandbox; send \
         JSON (kubectl apply -f / create -f)"
    )]
    UnsupportedKind { api_version: String, kind: String },
}

impl DecodeError {
    /// Whether the body is well-formed protobuf of a kind this crate has no table for; the
    /// API server answers those with 415 Unsupported Media Type.
    pub fn is_unsupported_kind(&self) -> bool {
        matches!(self, Self::UnsupportedKind { .. })
    }

    /// The HTTP status the API server would answer with: 413 for an oversized body, 415 for a
    /// kind or content encoding the sandbox cannot read as protobuf, 400 for a corrupt body.
    pub fn status_code(&self) -> u16 {
        match self {
            Self::TooLarge { .. } => 413,
            Self::UnsupportedKind { .. } | Self::UnsupportedContentEncoding { .. } => 415,
            _ => 400,
        }
    }
}
