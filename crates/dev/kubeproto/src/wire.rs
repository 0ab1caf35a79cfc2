//! The protobuf wire format, read defensively: every length is checked against what is left,
//! varints stop at 10 bytes, and every error carries the byte offset in the whole body.

use std::fmt;

use crate::error::{DecodeError, WireType};

/// The largest field number protobuf allows (2^29 - 1).
const MAX_FIELD_NUMBER: u64 = (1 << 29) - 1;

/// A 64-bit varint takes at most 10 bytes; the 10th may only carry the top bit.
const MAX_VARINT_BYTES: usize = 10;

/// What is being read, for error messages: a Go type, or the entry of one of its maps.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Context {
    Message(&'static str),
    MapEntry { parent: &'static str, field: &'static str },
}

impl fmt::Display for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Message(name) => f.write_str(name),
            Self::MapEntry { parent, field } => write!(f, "{parent}.{field} map entry"),
        }
    }
}

/// One field key: its number, how its payload is encoded, and where the key starts.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tag {
    pub(crate) field: u32,
    pub(crate) wire_type: WireType,
    pub(crate) offset: usize,
}

/// Reads the fields of one message. `base` is the offset of `bytes` within the whole body.
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
    base: usize,
    context: Context,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(bytes: &'a [u8], base: usize, context: Context) -> Self {
        Self { bytes, pos: 0, base, context }
    }

    fn offset(&self) -> usize {
        self.base + self.pos
    }

    /// The next field key, or `None` at the end of the message.
    pub(crate) fn tag(&mut self) -> Result<Option<Tag>, DecodeError> {
        if self.pos >= self.bytes.len() {
            return Ok(None);
        }
        let offset = self.offset();
        let key = self.varint()?;
        let number = key >> 3;
        if number == 0 || number > MAX_FIELD_NUMBER {
            return Err(DecodeError::InvalidFieldNumber {
                message: self.context.to_string(),
                field: number,
                offset,
            });
        }
        // Checked above: the number fits in 29 bits.
        let field = u32::try_from(number).unwrap_or(u32::MAX);
        let wire_type = match key & 7 {
            0 => WireType::Varint,
            1 => WireType::Fixed64,
            2 => WireType::LengthDelimited,
            5 => WireType::Fixed32,
            other => {
                return Err(DecodeError::InvalidWireType {
                    message: self.context.to_string(),
                    field,
                    // `key & 7` is below 8.
                    wire_type: u8::try_from(other).unwrap_or(u8::MAX),
                    offset,
                });
            }
        };
        Ok(Some(Tag { field, wire_type, offset }))
    }

    /// A base-128 varint, refusing more than 10 bytes or bits beyond the 64th.
    pub(crate) fn varint(&mut self) -> Result<u64, DecodeError> {
        let start = self.offset();
        let mut value = 0u64;
        for index in 0..MAX_VARINT_BYTES {
            let Some(&byte) = self.bytes.get(self.pos) else {
                return Err(DecodeError::Truncated {
                    message: self.context.to_string(),
                    what: "varint",
                    offset: start,
                });
            };
            self.pos += 1;
            if index == MAX_VARINT_BYTES - 1 && byte > 1 {
                break;
            }
            value |= u64::from(byte & 0x7f) << (7 * index);
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(DecodeError::VarintOverflow { message: self.context.to_string(), offset: start })
    }

    /// The payload of a length-delimited field and its offset in the body.
    pub(crate) fn length_delimited(&mut self, tag: &Tag) -> Result<(&'a [u8], usize), DecodeError> {
        let length = self.varint()?;
        let available = self.bytes.len().saturating_sub(self.pos);
        let payload = usize::try_from(length)
            .ok()
            .and_then(|length| self.bytes.get(self.pos..self.pos.checked_add(length)?));
        let Some(payload) = payload else {
            return Err(DecodeError::LengthOverrun {
                message: self.context.to_string(),
                field: tag.field,
                offset: tag.offset,
                length,
                available,
            });
        };
        let offset = self.offset();
        self.pos += payload.len();
        Ok((payload, offset))
    }

    /// Steps over a field this table does not know (forward compatibility).
    pub(crate) fn skip(&mut self, tag: &Tag) -> Result<(), DecodeError> {
        match tag.wire_type {
            WireType::Varint => self.varint().map(drop),
            WireType::LengthDelimited => self.length_delimited(tag).map(drop),
            WireType::Fixed64 => self.fixed(8, "64-bit value"),
            WireType::Fixed32 => self.fixed(4, "32-bit value"),
        }
    }

    fn fixed(&mut self, width: usize, what: &'static str) -> Result<(), DecodeError> {
        if self.bytes.len().saturating_sub(self.pos) < width {
            return Err(DecodeError::Truncated {
                message: self.context.to_string(),
                what,
                offset: self.offset(),
            });
        }
        self.pos += width;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reader(bytes: &[u8]) -> Reader<'_> {
        Reader::new(bytes, 4, Context::Message("Test"))
    }

    #[test]
    fn varints_decode_up_to_64_bits() {
        assert_eq!(reader(&[0x00]).varint(), Ok(0));
        assert_eq!(reader(&[0xd8, 0x04]).varint(), Ok(600));
        let max = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01];
        assert_eq!(reader(&max).varint(), Ok(u64::MAX));
    }

    #[test]
    fn varints_past_64_bits_are_refused() {
        let over = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02];
        assert_eq!(
            reader(&over).varint(),
            Err(DecodeError::VarintOverflow { message: "Test".to_owned(), offset: 4 })
        );
        let eleven = [0x80; 11];
        assert!(matches!(reader(&eleven).varint(), Err(DecodeError::VarintOverflow { .. })));
    }

    #[test]
    fn map_entries_name_their_parent_field() {
        let context = Context::MapEntry { parent: "ObjectMeta", field: "labels" };
        assert_eq!(context.to_string(), "ObjectMeta.labels map entry");
    }
}
