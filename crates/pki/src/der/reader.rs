//! A minimal, bounds-checked, zero-allocation DER reader. It accepts what X.509 uses (single
//! byte tags, definite lengths of up to four octets) and leaves content rules to the caller,
//! which is what walking a million-entry revoked list in place needs: no object per element.

/// One decoded TLV: its tag, the offset of its contents inside the outer buffer, and the slices.
#[derive(Debug, Clone, Copy)]
pub struct Tlv<'a> {
    pub tag: u8,
    /// Offset of `content` from the start of the buffer the first reader was created on.
    pub content_offset: usize,
    pub content: &'a [u8],
    /// The whole element, header included.
    pub raw: &'a [u8],
}

/// Why a DER element could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DerError {
    Truncated,
    /// Multi-byte tags, indefinite or over-long lengths: never used by X.509.
    Unsupported,
    UnexpectedTag {
        expected: u8,
        found: u8,
    },
}

impl std::fmt::Display for DerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DerError::Truncated => f.write_str("truncated DER element"),
            DerError::Unsupported => f.write_str("unsupported DER length or tag encoding"),
            DerError::UnexpectedTag { expected, found } => {
                write!(f, "expected DER tag 0x{expected:02x}, found 0x{found:02x}")
            }
        }
    }
}

impl std::error::Error for DerError {}

pub const BOOLEAN: u8 = 0x01;
pub const INTEGER: u8 = 0x02;
pub const BIT_STRING: u8 = 0x03;
pub const OCTET_STRING: u8 = 0x04;
pub const OID: u8 = 0x06;
pub const ENUMERATED: u8 = 0x0a;
pub const UTC_TIME: u8 = 0x17;
pub const GENERALIZED_TIME: u8 = 0x18;
pub const SEQUENCE: u8 = 0x30;
pub const CONTEXT_0_CONSTRUCTED: u8 = 0xa0;

/// A cursor over a byte slice; `base` is the slice's offset inside the original buffer so
/// nested readers report absolute offsets.
#[derive(Debug, Clone, Copy)]
pub struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    base: usize,
}

impl<'a> Reader<'a> {
    #[inline]
    pub fn new(data: &'a [u8]) -> Self {
        Reader { data, pos: 0, base: 0 }
    }

    /// A reader over the contents of `tlv`, keeping absolute offsets.
    #[inline]
    pub fn nested(tlv: &Tlv<'a>) -> Self {
        Reader { data: tlv.content, pos: 0, base: tlv.content_offset }
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.pos >= self.data.len()
    }

    #[inline]
    pub fn peek_tag(&self) -> Option<u8> {
        self.data.get(self.pos).copied()
    }

    /// Absolute offset of the next element.
    #[inline]
    pub fn offset(&self) -> usize {
        self.base + self.pos
    }

    /// The bytes not read yet.
    #[inline]
    pub fn remaining(&self) -> &'a [u8] {
        self.data.get(self.pos..).unwrap_or_default()
    }

    /// Reads the next element, whatever its tag.
    #[inline]
    pub fn read_any(&mut self) -> Result<Tlv<'a>, DerError> {
        let start = self.pos;
        let tag = *self.data.get(start).ok_or(DerError::Truncated)?;
        if tag & 0x1f == 0x1f {
            return Err(DerError::Unsupported);
        }
        let first = *self.data.get(start + 1).ok_or(DerError::Truncated)?;
        let (len, header) = if first < 0x80 {
            (usize::from(first), 2)
        } else {
            let n = usize::from(first & 0x7f);
            if n == 0 || n > 4 {
                return Err(DerError::Unsupported);
            }
            let bytes = self.data.get(start + 2..start + 2 + n).ok_or(DerError::Truncated)?;
            let len = bytes.iter().fold(0usize, |acc, b| (acc << 8) | usize::from(*b));
            (len, 2 + n)
        };
        let content_start = start + header;
        let end = content_start.checked_add(len).ok_or(DerError::Truncated)?;
        let content = self.data.get(content_start..end).ok_or(DerError::Truncated)?;
        let raw = self.data.get(start..end).ok_or(DerError::Truncated)?;
        self.pos = end;
        Ok(Tlv { tag, content_offset: self.base + content_start, content, raw })
    }

    /// Reads the next element, which must have tag `tag`.
    #[inline]
    pub fn read(&mut self, tag: u8) -> Result<Tlv<'a>, DerError> {
        let found = self.peek_tag().ok_or(DerError::Truncated)?;
        if found != tag {
            return Err(DerError::UnexpectedTag { expected: tag, found });
        }
        self.read_any()
    }

    /// Reads the element only if the next tag is `tag`.
    #[inline]
    pub fn read_optional(&mut self, tag: u8) -> Result<Option<Tlv<'a>>, DerError> {
        if self.peek_tag() == Some(tag) { self.read_any().map(Some) } else { Ok(None) }
    }
}

/// Strips redundant leading sign octets so INTEGERs compare as minimal DER bytes, the form
/// rustls-webpki and BoringSSL compare serials in (`00 13 88` is 5000, like `13 88`).
#[inline]
pub fn minimal_integer(bytes: &[u8]) -> &[u8] {
    let mut b = bytes;
    while let [first, rest @ ..] = b {
        let Some(second) = rest.first() else { break };
        let redundant = (*first == 0x00 && *second < 0x80) || (*first == 0xff && *second >= 0x80);
        if !redundant {
            break;
        }
        b = rest;
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minimal_integer_strips_sign_octets() {
        assert_eq!(minimal_integer(&[0x00, 0x13, 0x88]), &[0x13, 0x88]);
        assert_eq!(minimal_integer(&[0x00, 0x88]), &[0x00, 0x88]);
        assert_eq!(minimal_integer(&[0xff, 0xff, 0x80]), &[0x80]);
        assert_eq!(minimal_integer(&[]), &[] as &[u8]);
    }

    #[test]
    fn reader_rejects_truncation() {
        assert_eq!(Reader::new(&[0x30, 0x05, 0x01]).read_any().err(), Some(DerError::Truncated));
        assert_eq!(Reader::new(&[0x30, 0x80]).read_any().err(), Some(DerError::Unsupported));
        assert_eq!(Reader::new(&[0x30, 0x82, 0x01]).read_any().err(), Some(DerError::Truncated));
    }

    #[test]
    fn nested_readers_report_absolute_offsets() {
        let data = [0x30, 0x06, 0x02, 0x01, 0x05, 0x04, 0x01, 0xaa];
        let mut outer = Reader::new(&data);
        let seq = outer.read(SEQUENCE).unwrap();
        let mut inner = Reader::nested(&seq);
        assert_eq!(inner.offset(), 2);
        let int = inner.read(INTEGER).unwrap();
        assert_eq!((int.content_offset, int.content), (4, &[0x05][..]));
        assert_eq!(
            inner.read(INTEGER).unwrap_err().to_string(),
            "expected DER tag 0x02, found 0x04"
        );
        assert_eq!(inner.remaining(), &[0x04, 0x01, 0xaa]);
        assert!(inner.read_optional(OCTET_STRING).unwrap().is_some());
        assert!(inner.is_empty());
    }
}
