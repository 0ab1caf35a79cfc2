//! [`Decoded`] to JSON, the way Go's `encoding/json` writes the typed object the API server
//! would have decoded: fields in Go struct order, `omitempty` and pointer fields left out or
//! written as their zero value exactly as Go would, map keys sorted.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Map, Value};

use crate::decoded::{Decoded, Slot, Timestamp};
use crate::error::DecodeError;
use crate::schema::{Field, Go, Message, Type};
use crate::time;

/// The whole object: `kind` and `apiVersion` first, as Go's inline TypeMeta puts them.
pub(crate) fn object(
    api_version: &str,
    kind: &str,
    decoded: &Decoded<'_>,
) -> Result<Value, DecodeError> {
    let mut map = Map::new();
    map.insert("kind".to_owned(), Value::from(kind));
    map.insert("apiVersion".to_owned(), Value::from(api_version));
    write_fields(decoded, &mut map)?;
    Ok(Value::Object(map))
}

fn message(decoded: &Decoded<'_>) -> Result<Value, DecodeError> {
    let mut map = Map::new();
    write_fields(decoded, &mut map)?;
    Ok(Value::Object(map))
}

fn write_fields(decoded: &Decoded<'_>, map: &mut Map<String, Value>) -> Result<(), DecodeError> {
    for (field, slot) in decoded.message.fields.iter().zip(&decoded.slots) {
        let value = match slot {
            Slot::Absent => absent(field)?,
            present => written(decoded.message, field, present)?,
        };
        if let Some(value) = value {
            map.insert(field.json.to_owned(), value);
        }
    }
    Ok(())
}

/// A field that was not on the wire: Go's zero value for it, or nothing.
fn absent(field: &Field) -> Result<Option<Value>, DecodeError> {
    let omit_empty = match field.go {
        Go::PointerOmitEmpty => return Ok(None),
        Go::Pointer => return Ok(Some(Value::Null)),
        Go::Value => false,
        Go::OmitEmpty => true,
    };
    Ok(match field.ty {
        // Struct fields are never empty to encoding/json: always written.
        Type::Message(nested) => Some(message(&Decoded::empty(nested))?),
        Type::Time | Type::MicroTime | Type::FieldsV1 => Some(Value::Null),
        _ if omit_empty => None,
        Type::String => Some(Value::from("")),
        Type::Int64 | Type::Int32 => Some(Value::from(0)),
        Type::Bool => Some(Value::Bool(false)),
        // nil slices and maps.
        _ => Some(Value::Null),
    })
}

/// A field that was on the wire.
fn written(parent: &Message, field: &Field, slot: &Slot<'_>) -> Result<Option<Value>, DecodeError> {
    // A zero scalar in an omitempty value field is left out, as if it were absent.
    let zero = match slot {
        Slot::String(text) => text.is_empty(),
        Slot::Int(number) => *number == 0,
        Slot::Bool(flag) => !flag,
        Slot::Bytes { bytes, .. } => bytes.is_empty(),
        _ => false,
    };
    if zero && field.go == Go::OmitEmpty {
        return Ok(None);
    }
    Ok(Some(match slot {
        Slot::Absent => Value::Null,
        Slot::String(text) => Value::from(*text),
        Slot::Int(number) => Value::from(*number),
        Slot::Bool(flag) => Value::Bool(*flag),
        Slot::Bytes { bytes, .. } => Value::from(STANDARD.encode(bytes)),
        Slot::Message(decoded) => message(decoded)?,
        Slot::Time { time, offset } => timestamp(parent, field, *time, *offset)?,
        Slot::FieldsV1 { raw } => fields_v1(*raw)?,
        Slot::Strings(list) => Value::from(list.clone()),
        Slot::Messages(list) => Value::Array(list.iter().map(message).collect::<Result<_, _>>()?),
        Slot::StringMap(map) => Value::Object(
            map.iter().map(|(key, value)| ((*key).to_owned(), Value::from(*value))).collect(),
        ),
        Slot::BytesMap(map) => Value::Object(
            map.iter()
                .map(|(key, value)| ((*key).to_owned(), Value::from(STANDARD.encode(value))))
                .collect(),
        ),
        Slot::ExtraMap(map) => Value::Object(
            map.iter()
                .map(|(key, items)| ((*key).to_owned(), Value::from(items.clone())))
                .collect(),
        ),
    }))
}

fn timestamp(
    parent: &Message,
    field: &Field,
    time: Timestamp,
    offset: usize,
) -> Result<Value, DecodeError> {
    let (seconds, nanos) = match time {
        Timestamp::Zero => return Ok(Value::Null),
        Timestamp::At { seconds, nanos } => (seconds, nanos),
    };
    let rendered = match field.ty {
        Type::MicroTime => time::micro_time(seconds, nanos),
        _ => time::time(seconds),
    };
    rendered.map_err(|_| DecodeError::TimeOutOfRange {
        message: parent.name.to_owned(),
        field: field.number,
        name: field.json,
        offset,
        seconds,
    })
}

/// FieldsV1 marshals to its Raw bytes, which encoding/json then checks are JSON; no Raw is null.
fn fields_v1(raw: Option<(&[u8], usize)>) -> Result<Value, DecodeError> {
    let Some((bytes, offset)) = raw else {
        return Ok(Value::Null);
    };
    serde_json::from_slice(bytes)
        .map_err(|err| DecodeError::InvalidFieldsV1 { offset, reason: err.to_string() })
}
