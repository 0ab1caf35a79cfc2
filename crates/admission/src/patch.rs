//! The RFC 6902 JSON patch a mutation answers with, written as it is built: the few
//! operations the webhook produces need no document model.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde::Serialize;
use serde_json::value::RawValue;

/// What an operation does to the field at its path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Op {
    Add,
    Replace,
    Remove,
}

#[derive(Serialize)]
struct Operation<'a, V: Serialize> {
    op: Op,
    path: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    value: Option<&'a V>,
}

/// A patch under construction: its operations, serialized as they are pushed.
#[derive(Debug, Default)]
pub(crate) struct PatchBuilder {
    json: Vec<u8>,
}

impl PatchBuilder {
    /// Adds an operation; `value` is ignored for [`Op::Remove`].
    pub(crate) fn push<V: Serialize>(
        &mut self,
        op: Op,
        path: &str,
        value: &V,
    ) -> Result<(), serde_json::Error> {
        if self.json.is_empty() {
            // Room for the four identity operations of a typical requester.
            self.json.reserve(512);
            self.json.push(b'[');
        } else {
            self.json.push(b',');
        }
        let value = (op != Op::Remove).then_some(value);
        serde_json::to_writer(&mut self.json, &Operation { op, path, value })
    }

    /// The patch, or `None` when it has no operation (upstream then sends no patch).
    pub(crate) fn finish(mut self) -> Option<JsonPatch> {
        if self.json.is_empty() {
            return None;
        }
        self.json.push(b']');
        Some(JsonPatch(self.json))
    }
}

/// A non-empty JSON patch, serialized.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct JsonPatch(Vec<u8>);

impl JsonPatch {
    /// The patch as the JSON string of its base64 encoding, as AdmissionResponse.patch
    /// carries it. Base64 needs no escaping, so the response writer copies it as it is.
    pub(crate) fn to_base64_literal(&self) -> Result<Box<RawValue>, serde_json::Error> {
        let mut literal = String::with_capacity(self.0.len().div_ceil(3) * 4 + 2);
        literal.push('"');
        STANDARD.encode_string(&self.0, &mut literal);
        literal.push('"');
        RawValue::from_string(literal)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn decoded(patch: &JsonPatch) -> Value {
        let literal = patch.to_base64_literal().unwrap();
        let text: String = serde_json::from_str(literal.get()).unwrap();
        serde_json::from_slice(&STANDARD.decode(text).unwrap()).unwrap()
    }

    #[test]
    fn operations_are_written_in_order_and_remove_carries_no_value() {
        let mut patch = PatchBuilder::default();
        patch.push(Op::Add, "/spec/uid", &"u-1").unwrap();
        patch.push(Op::Replace, "/spec/groups", &["a", "b"]).unwrap();
        patch.push(Op::Remove, "/spec/extra", &()).unwrap();
        assert_eq!(
            decoded(&patch.finish().unwrap()),
            json!([
                {"op": "add", "path": "/spec/uid", "value": "u-1"},
                {"op": "replace", "path": "/spec/groups", "value": ["a", "b"]},
                {"op": "remove", "path": "/spec/extra"},
            ])
        );
    }

    #[test]
    fn no_operation_is_no_patch() {
        assert_eq!(PatchBuilder::default().finish(), None);
    }
}
