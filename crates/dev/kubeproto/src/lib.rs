//! Decodes the Kubernetes protobuf request bodies that kubectl's typed clients send into the
//! JSON the Kubernetes API server would have produced for the same object.
//!
//! # Why
//!
//! client-go's typed clients send built-in kinds as `application/vnd.kubernetes.protobuf`:
//! `kubectl create namespace|configmap|secret generic|serviceaccount|role|clusterrole|
//! rolebinding|clusterrolebinding`, `kubectl create token`, `kubectl auth can-i` and
//! `kubectl auth whoami` all do. certgate's sandbox API server works on JSON, so it turns these
//! bodies into JSON with [`decode`] and handles them like any other request.
//!
//! # What
//!
//! A body is the magic `k8s\0` followed by a `runtime.Unknown` envelope naming the object's
//! apiVersion and kind and carrying the object's bytes. The object is decoded with a field
//! table for its kind (field numbers and wire types from Kubernetes' `generated.proto`) and
//! rendered as Go's `encoding/json` renders the typed object: `kind` and `apiVersion` first,
//! fields in Go struct order, `omitempty` fields left out when zero, fields without it written
//! even when unset (`"creationTimestamp": null`, `"rules": null`, `"status": {"allowed":
//! false}`), pointers present only when they were on the wire, `map<string, bytes>` values and
//! `[]byte` in standard base64, `metav1.Time` as `2006-01-02T15:04:05Z` and `MicroTime` with six
//! fractional digits. Fields the table does not know are skipped, so newer clients still decode;
//! known fields must have the wire type Kubernetes gives them.
//!
//! The kinds with a table are listed by [`supported_kinds`]: Namespace, ConfigMap, Secret,
//! ServiceAccount (`v1`); Role, ClusterRole, RoleBinding, ClusterRoleBinding
//! (`rbac.authorization.k8s.io/v1`); TokenRequest, TokenReview, SelfSubjectReview
//! (`authentication.k8s.io/v1`); SubjectAccessReview, LocalSubjectAccessReview,
//! SelfSubjectAccessReview, SelfSubjectRulesReview (`authorization.k8s.io/v1`); and
//! DeleteOptions (`meta.k8s.io/v1`, or any group's `v1`, as client-go sends it). Any other kind
//! is [`DecodeError::UnsupportedKind`], which the API server answers with 415.
//!
//! # Bounds
//!
//! Bodies are hostile. Decoding never panics, recursion is bounded, and [`Limits`] caps the body
//! size ([`MAX_BODY_BYTES`], 3 MiB, checked before anything is read), message nesting
//! ([`MAX_DEPTH`]) and the list items plus map entries one body may hold ([`MAX_ITEMS`]), which
//! bounds the memory a small body can make the decoder allocate. Varints stop at 10 bytes and
//! every length is checked against what is left of its message. Strings must be UTF-8.
//! Errors name the field number, Go type and byte offset (from the start of the body) and say
//! what to send instead.
#![forbid(unsafe_code)]

mod decoded;
mod decoder;
mod envelope;
mod error;
mod kinds;
mod limits;
mod maps;
mod render;
mod schema;
mod tables;
#[cfg(test)]
mod tests;
mod time;
mod wire;

use serde_json::Value;

pub use envelope::MAGIC;
pub use error::{DecodeError, WireType};
pub use kinds::supported_kinds;
pub use limits::{Limits, MAX_BODY_BYTES, MAX_DEPTH, MAX_ITEMS};

use decoder::{Budget, decode_message};

/// The media type of Kubernetes protobuf bodies.
pub const CONTENT_TYPE: &str = "application/vnd.kubernetes.protobuf";

/// Decodes a Kubernetes protobuf body (magic, `runtime.Unknown` envelope, object) into the
/// object's JSON, under the default [`Limits`].
pub fn decode(body: &[u8]) -> Result<Value, DecodeError> {
    decode_with_limits(body, &Limits::default())
}

/// [`decode`] under other bounds, e.g. tighter ones for a constrained caller.
pub fn decode_with_limits(body: &[u8], limits: &Limits) -> Result<Value, DecodeError> {
    if body.len() > limits.max_body_bytes {
        return Err(DecodeError::TooLarge { size: body.len(), limit: limits.max_body_bytes });
    }
    let mut budget = Budget::new(limits);
    let envelope = envelope::open(body, &mut budget)?;
    let Some(table) = kinds::table(envelope.api_version, envelope.kind) else {
        return Err(DecodeError::UnsupportedKind {
            api_version: envelope.api_version.to_owned(),
            kind: envelope.kind.to_owned(),
        });
    };
    let object = decode_message(table, envelope.raw, envelope.raw_offset, 1, &mut budget)?;
    render::object(envelope.api_version, envelope.kind, &object)
}
