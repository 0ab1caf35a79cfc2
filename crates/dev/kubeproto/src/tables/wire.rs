//! Messages that exist only on the wire: the `runtime.Unknown` envelope and the helper messages
//! Kubernetes' JSON does not show as objects (timestamps, FieldsV1, ExtraValue).

use crate::schema::{Go::Value, Message, Type, field};

/// `runtime.Unknown`, the envelope after the magic.
pub(crate) static UNKNOWN: Message = Message {
    name: "runtime.Unknown",
    fields: &[
        field(1, "typeMeta", Type::Message(&TYPE_META), Value),
        field(2, "raw", Type::Bytes, Value),
        field(3, "contentEncoding", Type::String, Value),
        field(4, "contentType", Type::String, Value),
    ],
};

/// `runtime.TypeMeta`.
pub(crate) static TYPE_META: Message = Message {
    name: "runtime.TypeMeta",
    fields: &[field(1, "apiVersion", Type::String, Value), field(2, "kind", Type::String, Value)],
};

/// `metav1.Timestamp`, the wire form of `metav1.Time` and `metav1.MicroTime`.
pub(crate) static TIMESTAMP: Message = Message {
    name: "Timestamp",
    fields: &[field(1, "seconds", Type::Int64, Value), field(2, "nanos", Type::Int32, Value)],
};

/// `metav1.FieldsV1`: `Raw` holds the JSON field set.
pub(crate) static FIELDS_V1: Message =
    Message { name: "FieldsV1", fields: &[field(1, "Raw", Type::Bytes, Value)] };

/// `ExtraValue` of authentication/v1 and authorization/v1: a `[]string` in Go.
pub(crate) static EXTRA_VALUE: Message =
    Message { name: "ExtraValue", fields: &[field(1, "items", Type::Strings, Value)] };
