//! A minimal, bounds-checked DER reader. The CRL body can be tens of megabytes, so the
//! revoked-certificate list is walked here without allocating per entry (a general ASN.1
//! library would build one object per entry).

/// One decoded TLV: its tag, the offset of its contents inside the outer buffer, and the slices.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tlv<'a> {
    pub tag: u8,
    /// Offset of `content` from the start of the buffer the reader was created on.
    pub content_offset: usize,
    pub content: &'a [u8],
    /// The whole element, header included.
    pub raw: &'a [u8],
}

/// Why a DER element could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DerError {
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

pub(crate) const SEQUENCE: u8 = 0x30;
pub(crate) const INTEGER: u8 = 0x02;
pub(crate) const BOOLEAN: u8 = 0x01;
pub(crate) const OID: u8 = 0x06;
pub(crate) const OCTET_STRING: u8 = 0x04;
pub(crate) const BIT_STRING: u8 = 0x03;
pub(crate) const UTC_TIME: u8 = 0x17;
pub(crate) const GENERALIZED_TIME: u8 = 0x18;
pub(crate) const CONTEXT_0_CONSTRUCTED: u8 = 0xa0;

/// A cursor over a byte slice; `base` is the slice's offset inside the original buffer so
/// nested readers can report absolute offsets (the index stores offsets, not slices).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    base: usize,
}

impl<'a> Reader<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Reader { data, pos: 0, base: 0 }
    }

    pub fn nested(tlv: &Tlv<'a>) -> Self {
        Reader { data: tlv.content, pos: 0, base: tlv.content_offset }
    }

    pub fn is_empty(&self) -> bool {
        self.pos >= self.data.len()
    }

    pub fn peek_tag(&self) -> Option<u8> {
        self.data.get(self.pos).copied()
    }

    /// Absolute offset of the next element.
    pub fn offset(&self) -> usize {
        self.base + self.pos
    }

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

    pub fn read(&mut self, tag: u8) -> Result<Tlv<'a>, DerError> {
        let found = self.peek_tag().ok_or(DerError::Truncated)?;
        if found != tag {
            return Err(DerError::UnexpectedTag { expected: tag, found });
        }
        self.read_any()
    }

    /// Reads the element only if the next tag is `tag`.
    pub fn read_optional(&mut self, tag: u8) -> Result<Option<Tlv<'a>>, DerError> {
        if self.peek_tag() == Some(tag) { self.read_any().map(Some) } else { Ok(None) }
    }
}

/// Strips redundant leading sign octets so serials compare as minimal DER INTEGER bytes, the
/// form rustls-webpki and BoringSSL compare (a CRL written with `00 13 88` still matches 5000).
pub(crate) fn minimal_integer(bytes: &[u8]) -> &[u8] {
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
}
