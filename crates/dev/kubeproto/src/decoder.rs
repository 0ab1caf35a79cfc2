//! Wire bytes to [`Decoded`], driven by a field table. Known fields must have the wire type
//! Kubernetes gives them; unknown fields are skipped so newer clients still decode. A field
//! that appears twice behaves as in Go's generated code: scalars take the last value, lists
//! append, embedded messages merge.

use crate::decoded::{Decoded, Slot, Timestamp};
use crate::error::DecodeError;
use crate::limits::Limits;
use crate::maps;
use crate::schema::{Field, Message, Type};
use crate::tables::wire::{EXTRA_VALUE, FIELDS_V1, TIMESTAMP};
use crate::wire::{Context, Reader, Tag};

/// What one decode may still spend: nesting depth and list items.
pub(crate) struct Budget {
    max_depth: usize,
    max_items: usize,
    items_left: usize,
}

impl Budget {
    pub(crate) fn new(limits: &Limits) -> Self {
        Self {
            max_depth: limits.max_depth,
            max_items: limits.max_items,
            items_left: limits.max_items,
        }
    }

    /// Refuses a message nested deeper than the limit.
    pub(crate) fn enter(
        &self,
        depth: usize,
        context: Context,
        offset: usize,
    ) -> Result<(), DecodeError> {
        if depth > self.max_depth {
            return Err(DecodeError::TooDeep {
                message: context.to_string(),
                offset,
                limit: self.max_depth,
            });
        }
        Ok(())
    }

    /// Counts one list item or map entry.
    fn take_item(
        &mut self,
        message: &Message,
        field: &Field,
        offset: usize,
    ) -> Result<(), DecodeError> {
        if self.items_left == 0 {
            return Err(DecodeError::TooManyItems {
                message: message.name.to_owned(),
                field: field.number,
                name: field.json,
                offset,
                limit: self.max_items,
            });
        }
        self.items_left -= 1;
        Ok(())
    }
}

/// Decodes `bytes`, which start at `offset` in the body, as `message` at nesting `depth`.
pub(crate) fn decode_message<'a>(
    message: &'static Message,
    bytes: &'a [u8],
    offset: usize,
    depth: usize,
    budget: &mut Budget,
) -> Result<Decoded<'a>, DecodeError> {
    let mut decoded = Decoded::empty(message);
    merge_into(&mut decoded, bytes, offset, depth, budget)?;
    Ok(decoded)
}

/// Decodes more fields into an already decoded message, as protobuf merges a message field
/// that occurs twice.
fn merge_into<'a>(
    decoded: &mut Decoded<'a>,
    bytes: &'a [u8],
    offset: usize,
    depth: usize,
    budget: &mut Budget,
) -> Result<(), DecodeError> {
    let message = decoded.message;
    let context = Context::Message(message.name);
    budget.enter(depth, context, offset)?;
    let mut reader = Reader::new(bytes, offset, context);
    while let Some(tag) = reader.tag()? {
        let Some(index) = message.index_of(tag.field) else {
            reader.skip(&tag)?;
            continue;
        };
        // `index` comes from this table, which has one slot per field: both exist.
        let (Some(field), Some(slot)) = (message.fields.get(index), decoded.slots.get_mut(index))
        else {
            continue;
        };
        let expected = field.ty.wire_type();
        if tag.wire_type != expected {
            return Err(DecodeError::WrongWireType {
                message: message.name.to_owned(),
                field: tag.field,
                name: field.json,
                offset: tag.offset,
                expected,
                actual: tag.wire_type,
            });
        }
        let mut at = FieldAt { reader: &mut reader, tag, message, field, depth };
        at.read(slot, budget)?;
    }
    Ok(())
}

/// One occurrence of a known field, with the wire type already checked.
struct FieldAt<'r, 'a> {
    reader: &'r mut Reader<'a>,
    tag: Tag,
    message: &'static Message,
    field: &'static Field,
    depth: usize,
}

impl<'a> FieldAt<'_, 'a> {
    fn read(&mut self, slot: &mut Slot<'a>, budget: &mut Budget) -> Result<(), DecodeError> {
        match self.field.ty {
            Type::String => *slot = Slot::String(self.string()?),
            // Go keeps all 64 bits of an int64 and the low 32 of an int32.
            Type::Int64 => *slot = Slot::Int(self.reader.varint()? as i64),
            Type::Int32 => *slot = Slot::Int(i64::from(self.reader.varint()? as i32)),
            Type::Bool => *slot = Slot::Bool(self.reader.varint()? != 0),
            Type::Bytes => {
                let (bytes, offset) = self.reader.length_delimited(&self.tag)?;
                *slot = Slot::Bytes { bytes, offset };
            }
            Type::Message(nested) => {
                let (bytes, offset) = self.reader.length_delimited(&self.tag)?;
                match slot {
                    Slot::Message(existing) => {
                        merge_into(existing, bytes, offset, self.depth + 1, budget)?;
                    }
                    other => {
                        *other = Slot::Message(decode_message(
                            nested,
                            bytes,
                            offset,
                            self.depth + 1,
                            budget,
                        )?);
                    }
                }
            }
            Type::Time | Type::MicroTime => {
                // metav1.Time replaces itself on every occurrence rather than merging.
                let (bytes, offset) = self.reader.length_delimited(&self.tag)?;
                let time = timestamp(bytes, offset, self.depth + 1, budget)?;
                *slot = Slot::Time { time, offset: self.tag.offset };
            }
            Type::FieldsV1 => {
                let (bytes, offset) = self.reader.length_delimited(&self.tag)?;
                let raw =
                    decode_message(&FIELDS_V1, bytes, offset, self.depth + 1, budget)?.bytes(1);
                match slot {
                    // A later occurrence without Raw keeps the earlier Raw (merge).
                    Slot::FieldsV1 { raw: existing } => *existing = raw.or(*existing),
                    other => *other = Slot::FieldsV1 { raw },
                }
            }
            Type::Strings => {
                budget.take_item(self.message, self.field, self.tag.offset)?;
                let text = self.string()?;
                match slot {
                    Slot::Strings(list) => list.push(text),
                    other => *other = Slot::Strings(vec![text]),
                }
            }
            Type::Messages(nested) => {
                budget.take_item(self.message, self.field, self.tag.offset)?;
                let (bytes, offset) = self.reader.length_delimited(&self.tag)?;
                let item = decode_message(nested, bytes, offset, self.depth + 1, budget)?;
                match slot {
                    Slot::Messages(list) => list.push(item),
                    other => *other = Slot::Messages(vec![item]),
                }
            }
            Type::StringMap | Type::BytesMap | Type::ExtraMap => {
                budget.take_item(self.message, self.field, self.tag.offset)?;
                let (bytes, offset) = self.reader.length_delimited(&self.tag)?;
                let context =
                    Context::MapEntry { parent: self.message.name, field: self.field.json };
                let entry = maps::Entry::read(bytes, offset, context, self.depth + 1, budget)?;
                entry.insert_into(self.field.ty, slot, context, self.depth + 1, budget)?;
            }
        }
        Ok(())
    }

    fn string(&mut self) -> Result<&'a str, DecodeError> {
        let (bytes, _) = self.reader.length_delimited(&self.tag)?;
        utf8(
            bytes,
            Context::Message(self.message.name),
            self.field.number,
            self.field.json,
            self.tag.offset,
        )
    }
}

/// A string payload, which protobuf requires to be UTF-8.
pub(crate) fn utf8<'a>(
    bytes: &'a [u8],
    context: Context,
    field: u32,
    name: &'static str,
    offset: usize,
) -> Result<&'a str, DecodeError> {
    std::str::from_utf8(bytes).map_err(|_| DecodeError::InvalidUtf8 {
        message: context.to_string(),
        field,
        name,
        offset,
    })
}

/// A `metav1.Time` / `MicroTime` payload. Like Go's `Time.Unmarshal`, an empty payload is the
/// zero time and anything else is a Timestamp whose missing fields are 0.
fn timestamp(
    bytes: &[u8],
    offset: usize,
    depth: usize,
    budget: &mut Budget,
) -> Result<Timestamp, DecodeError> {
    if bytes.is_empty() {
        return Ok(Timestamp::Zero);
    }
    let decoded = decode_message(&TIMESTAMP, bytes, offset, depth, budget)?;
    // nanos is an int32, already truncated to 32 bits by the decoder.
    let nanos = i32::try_from(decoded.int(2)).unwrap_or_default();
    Ok(Timestamp::At { seconds: decoded.int(1), nanos })
}

/// An `ExtraValue` payload: its strings, counted as list items.
pub(crate) fn extra_value<'a>(
    bytes: &'a [u8],
    offset: usize,
    depth: usize,
    budget: &mut Budget,
) -> Result<Vec<&'a str>, DecodeError> {
    Ok(decode_message(&EXTRA_VALUE, bytes, offset, depth, budget)?.into_strings(1))
}
