//! The JSON object one message is written into, with one method per proto3 field kind used.
//!
//! The proto3 JSON mapping: lowerCamelCase names (passed in by the callers), fields with
//! implicit presence omitted at their default (empty string or list, `false`, enum 0), enums by
//! value name, `bytes` as standard padded base64, `google.protobuf.BoolValue` as a bare boolean
//! written whenever it is set, sub-messages and oneof members written whenever they are set.

use base64::Engine as _;
use serde_json::{Map, Value};

use super::{ProtoJson, to_object};
use crate::envoy::types::BoolValue;

/// A message has a field set that the writer does not render (a bug in the caller, since only
/// `translate` builds these values): rendering stops rather than emit a partial config.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message} has a field set that certgate's proto3 JSON writer does not render")]
pub struct Unsupported {
    /// Full protobuf name of the message.
    pub message: String,
}

/// Fields of one message, in the order they are written.
#[derive(Debug, Default)]
pub struct Object(Map<String, Value>);

impl Object {
    pub(super) fn into_map(self) -> Map<String, Value> {
        self.0
    }

    fn put(&mut self, name: &str, value: Value) {
        self.0.insert(name.to_string(), value);
    }

    /// `string`, implicit presence.
    pub fn string(&mut self, name: &str, value: String) {
        if !value.is_empty() {
            self.put(name, Value::String(value));
        }
    }

    /// `repeated string`.
    pub fn strings(&mut self, name: &str, values: Vec<String>) {
        if !values.is_empty() {
            self.put(name, Value::Array(values.into_iter().map(Value::String).collect()));
        }
    }

    /// `bool`, implicit presence.
    pub fn flag(&mut self, name: &str, value: bool) {
        if value {
            self.put(name, Value::Bool(true));
        }
    }

    /// An enum field: the value name, or the number for a value this API version does not know
    /// (what `protojson` writes too). `name_of` is the generated `as_str_name` lookup.
    pub fn enumeration(
        &mut self,
        name: &str,
        value: i32,
        name_of: fn(i32) -> Option<&'static str>,
    ) {
        if value == 0 {
            return;
        }
        let json = match name_of(value) {
            Some(text) => Value::String(text.to_string()),
            None => Value::from(value),
        };
        self.put(name, json);
    }

    /// A `bytes` member of a oneof: written even when empty, since the oneof case is set.
    pub fn oneof_bytes(&mut self, name: &str, value: &[u8]) {
        let text = base64::engine::general_purpose::STANDARD.encode(value);
        self.put(name, Value::String(text));
    }

    /// `google.protobuf.BoolValue`: a bare boolean, `false` included once set.
    pub fn bool_value(&mut self, name: &str, value: Option<BoolValue>) {
        if let Some(BoolValue { value }) = value {
            self.put(name, Value::Bool(value));
        }
    }

    /// A singular sub-message (or a message member of a oneof): `{}` when set but empty.
    pub fn message<M: ProtoJson>(
        &mut self,
        name: &str,
        value: Option<M>,
    ) -> Result<(), Unsupported> {
        if let Some(message) = value {
            self.put(name, Value::Object(to_object(message)?));
        }
        Ok(())
    }

    /// A `repeated` sub-message.
    pub fn messages<M: ProtoJson>(
        &mut self,
        name: &str,
        values: Vec<M>,
    ) -> Result<(), Unsupported> {
        if !values.is_empty() {
            let items = values
                .into_iter()
                .map(|message| to_object(message).map(Value::Object))
                .collect::<Result<Vec<_>, _>>()?;
            self.put(name, Value::Array(items));
        }
        Ok(())
    }
}
