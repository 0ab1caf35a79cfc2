//! A proto3 JSON writer for exactly the Envoy messages certgate produces.
//!
//! prost generates no JSON, and the one Envoy crate with JSON (`xds-api`, pbjson) writes proto
//! field names on an older prost (ADR 0008), so the mapping is written here, once per message,
//! over the typed `envoy-types` structs. Each [`ProtoJson`] impl moves the fields it renders
//! out of the message, in `.proto` declaration order (the order Go's `protojson` writes, which
//! the golden files freeze); whatever is left must be the default value, so a field set on the
//! typed value but unknown to the writer is an error, never silently dropped.

mod core;
mod object;
mod tls;

#[cfg(test)]
mod field_table;

pub use object::Unsupported;

use serde_json::{Map, Value};

use object::Object;

/// An Envoy message the writer can render: its impl moves every field it writes out of `self`.
pub trait ProtoJson: prost::Name + Default + PartialEq + Sized {
    /// Writes the fields this writer covers into `out`, leaving them at their default in `self`.
    fn take_fields(&mut self, out: &mut Object) -> Result<(), Unsupported>;
}

/// The proto3 JSON object of `message` (without `@type`).
pub fn to_object<M: ProtoJson>(message: M) -> Result<Map<String, Value>, Unsupported> {
    let mut rest = message;
    let mut out = Object::default();
    rest.take_fields(&mut out)?;
    if rest != M::default() {
        return Err(Unsupported { message: M::full_name() });
    }
    Ok(out.into_map())
}
