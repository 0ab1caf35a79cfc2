//! The frame around every Kubernetes protobuf body: the magic `k8s\0`, then a `runtime.Unknown`
//! whose typeMeta names the object's apiVersion and kind and whose `raw` holds the object.

use crate::decoder::{Budget, decode_message};
use crate::error::DecodeError;
use crate::tables::wire::UNKNOWN;

/// The four bytes every Kubernetes protobuf body starts with.
pub const MAGIC: [u8; 4] = *b"k8s\0";

/// The opened envelope. `raw_offset` is where the object starts in the body.
#[derive(Debug)]
pub(crate) struct Envelope<'a> {
    pub(crate) api_version: &'a str,
    pub(crate) kind: &'a str,
    pub(crate) raw: &'a [u8],
    pub(crate) raw_offset: usize,
}

/// Checks the magic and reads the `runtime.Unknown` after it.
pub(crate) fn open<'a>(body: &'a [u8], budget: &mut Budget) -> Result<Envelope<'a>, DecodeError> {
    let Some(rest) = body.strip_prefix(&MAGIC) else {
        return Err(DecodeError::MissingMagic);
    };
    if rest.is_empty() {
        return Err(DecodeError::EmptyEnvelope);
    }
    let unknown = decode_message(&UNKNOWN, rest, MAGIC.len(), 1, budget)?;
    // contentEncoding would name a compression of raw (e.g. gzip); Kubernetes never sets it
    // and its own decoder ignores it, but decoding compressed bytes as protobuf would only
    // produce confusing errors. contentType is ignored, as Kubernetes ignores it.
    let encoding = unknown.string(3);
    if !encoding.is_empty() {
        return Err(DecodeError::UnsupportedContentEncoding { encoding: encoding.to_owned() });
    }
    let (api_version, kind) = match unknown.message(1) {
        Some(type_meta) => (type_meta.string(1), type_meta.string(2)),
        None => ("", ""),
    };
    let missing = match (api_version.is_empty(), kind.is_empty()) {
        (false, false) => None,
        (true, false) => Some("apiVersion"),
        (false, true) => Some("kind"),
        (true, true) => Some("apiVersion or kind"),
    };
    if let Some(missing) = missing {
        return Err(DecodeError::MissingTypeMeta {
            missing,
            api_version: api_version.to_owned(),
            kind: kind.to_owned(),
        });
    }
    // No raw means an object with every field unset, as Go decodes it.
    let (raw, raw_offset) = unknown.bytes(2).unwrap_or((&[], body.len()));
    Ok(Envelope { api_version, kind, raw, raw_offset })
}
