//! The core `v1` `Secret`, reduced to what Contour validates: type and decoded data.

use std::collections::BTreeMap;

use base64::Engine as _;
use serde::Deserialize;

use super::ObjectMeta;
use crate::error::IngressError;

/// A Secret with its `data` decoded. `stringData` is merged over `data`, as the API server
/// does on write, so manifests that use it are checked the way they will be stored.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Secret {
    pub namespace: String,
    pub name: String,
    /// `type`; an absent type is stored by the API server as `Opaque`.
    pub type_: String,
    pub data: BTreeMap<String, Vec<u8>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawSecret {
    #[serde(default)]
    metadata: ObjectMeta,
    #[serde(rename = "type", default)]
    type_: Option<String>,
    #[serde(default)]
    data: Option<BTreeMap<String, Option<String>>>,
    #[serde(default)]
    string_data: Option<BTreeMap<String, Option<String>>>,
}

impl Secret {
    /// Builds a Secret directly (tests, callers that already hold bytes).
    pub fn new(namespace: &str, name: &str, type_: &str) -> Self {
        Secret {
            namespace: namespace.to_string(),
            name: name.to_string(),
            type_: type_.to_string(),
            data: BTreeMap::new(),
        }
    }

    /// Adds a data entry (builder style).
    pub fn with_data(mut self, key: &str, value: impl Into<Vec<u8>>) -> Self {
        self.data.insert(key.to_string(), value.into());
        self
    }

    /// Reads a Secret from a manifest value.
    pub fn from_value(value: &serde_json::Value) -> Result<Self, IngressError> {
        let raw = RawSecret::deserialize(value).map_err(|err| IngressError::InvalidObject {
            kind: "Secret",
            message: err.to_string(),
        })?;
        let namespace = raw.metadata.namespace().to_string();
        let name = raw.metadata.name().to_string();
        let mut data = BTreeMap::new();
        for (key, encoded) in raw.data.unwrap_or_default() {
            let encoded = encoded.unwrap_or_default();
            let bytes =
                decode_go_bytes(&encoded).ok_or_else(|| IngressError::InvalidSecretData {
                    namespace: namespace.clone(),
                    name: name.clone(),
                    key: key.clone(),
                })?;
            data.insert(key, bytes);
        }
        for (key, text) in raw.string_data.unwrap_or_default() {
            data.insert(key, text.unwrap_or_default().into_bytes());
        }
        let type_ = match raw.type_ {
            Some(t) if !t.is_empty() => t,
            _ => "Opaque".to_string(),
        };
        Ok(Secret { namespace, name, type_, data })
    }
}

/// Go's `encoding/json` decoding of `[]byte`: standard base64 with padding; `\r` and `\n` are
/// skipped by Go's decoder, so they are tolerated here too.
fn decode_go_bytes(encoded: &str) -> Option<Vec<u8>> {
    let cleaned: String = encoded.chars().filter(|c| *c != '\r' && *c != '\n').collect();
    base64::engine::general_purpose::STANDARD.decode(cleaned).ok()
}
