//! Map fields. Protobuf writes each map entry as a message with the key in field 1 and the
//! value in field 2; like Go's generated decoder, a missing key or value is the zero value, a
//! later key or value in the same entry replaces an earlier one, and a later entry with the
//! same key replaces an earlier entry.

use crate::decoded::Slot;
use crate::decoder::{Budget, extra_value, utf8};
use crate::error::{DecodeError, WireType};
use crate::schema::Type;
use crate::wire::{Context, Reader};

/// One entry, before its key and value are interpreted. Each part keeps its payload, the
/// payload's offset and the offset of its field key.
pub(crate) struct Entry<'a> {
    key: Option<(&'a [u8], usize, usize)>,
    value: Option<(&'a [u8], usize, usize)>,
}

impl<'a> Entry<'a> {
    /// Reads an entry message. Kubernetes' maps all have string keys and length-delimited
    /// values (string, bytes, ExtraValue), so both parts must be length-delimited.
    pub(crate) fn read(
        bytes: &'a [u8],
        offset: usize,
        context: Context,
        depth: usize,
        budget: &Budget,
    ) -> Result<Self, DecodeError> {
        budget.enter(depth, context, offset)?;
        let mut entry = Self { key: None, value: None };
        let mut reader = Reader::new(bytes, offset, context);
        while let Some(tag) = reader.tag()? {
            let name = match tag.field {
                1 => "key",
                2 => "value",
                _ => {
                    reader.skip(&tag)?;
                    continue;
                }
            };
            if tag.wire_type != WireType::LengthDelimited {
                return Err(DecodeError::WrongWireType {
                    message: context.to_string(),
                    field: tag.field,
                    name,
                    offset: tag.offset,
                    expected: WireType::LengthDelimited,
                    actual: tag.wire_type,
                });
            }
            let (payload, at) = reader.length_delimited(&tag)?;
            let part = Some((payload, at, tag.offset));
            if tag.field == 1 {
                entry.key = part;
            } else {
                entry.value = part;
            }
        }
        Ok(entry)
    }

    /// Adds the entry to the map in `slot`, creating the map on its first entry.
    pub(crate) fn insert_into(
        self,
        ty: Type,
        slot: &mut Slot<'a>,
        context: Context,
        depth: usize,
        budget: &mut Budget,
    ) -> Result<(), DecodeError> {
        let key = match self.key {
            Some((bytes, _, tag_offset)) => utf8(bytes, context, 1, "key", tag_offset)?,
            None => "",
        };
        match ty {
            Type::StringMap => {
                let value = match self.value {
                    Some((bytes, _, tag_offset)) => utf8(bytes, context, 2, "value", tag_offset)?,
                    None => "",
                };
                match slot {
                    Slot::StringMap(map) => {
                        map.insert(key, value);
                    }
                    other => *other = Slot::StringMap([(key, value)].into()),
                }
            }
            Type::BytesMap => {
                let value = self.value.map_or(&[][..], |(bytes, _, _)| bytes);
                match slot {
                    Slot::BytesMap(map) => {
                        map.insert(key, value);
                    }
                    other => *other = Slot::BytesMap([(key, value)].into()),
                }
            }
            // The decoder calls this for map fields only: ExtraMap is the one left.
            _ => {
                // Go starts every entry from an empty, non-nil ExtraValue, so a missing value
                // is written as [] rather than null.
                let value = match self.value {
                    Some((bytes, offset, _)) => extra_value(bytes, offset, depth + 1, budget)?,
                    None => Vec::new(),
                };
                match slot {
                    Slot::ExtraMap(map) => {
                        map.insert(key, value);
                    }
                    other => *other = Slot::ExtraMap([(key, value)].into()),
                }
            }
        }
        Ok(())
    }
}
