//! One-element-at-a-time DER reading on top of `asn1-rs`, with errors that name the field
//! being read. Every structure certgate decodes by hand is flat (no recursion), so depth is
//! bounded by construction.

use asn1_rs::{Any, Class, DerConstraint, Err as NomErr, Error as Asn1Error, FromDer, Needed, Tag};

/// A DER element and its complete encoding (tag, length and content).
#[derive(Clone, Debug)]
pub(crate) struct Element<'a> {
    any: Any<'a>,
    raw: &'a [u8],
}

impl<'a> Element<'a> {
    /// The content octets (without tag and length).
    pub(crate) fn content(&self) -> &'a [u8] {
        self.any.data
    }

    /// The full encoding, tag and length included.
    pub(crate) fn raw(&self) -> &'a [u8] {
        self.raw
    }

    pub(crate) fn tag_number(&self) -> u32 {
        self.any.tag().0
    }

    pub(crate) fn is_constructed(&self) -> bool {
        self.any.header.is_constructed()
    }

    /// A primitive element of the universal class with this tag.
    pub(crate) fn is_universal_primitive(&self, tag: Tag) -> bool {
        self.any.class() == Class::Universal && self.any.tag() == tag && !self.is_constructed()
    }

    pub(crate) fn is_context_specific(&self) -> bool {
        self.any.class() == Class::ContextSpecific
    }

    pub(crate) fn is_universal(&self) -> bool {
        self.any.class() == Class::Universal
    }

    /// Human-readable type, for error messages (`SEQUENCE`, `[0]`, ...).
    pub(crate) fn describe(&self) -> String {
        match self.any.class() {
            Class::Universal => universal_name(self.any.tag()),
            Class::ContextSpecific => format!("[{}]", self.any.tag().0),
            Class::Application => format!("[APPLICATION {}]", self.any.tag().0),
            Class::Private => format!("[PRIVATE {}]", self.any.tag().0),
        }
    }
}

/// Reads the next element of `input`; returns it and the bytes that follow it.
pub(crate) fn read<'a>(input: &'a [u8], field: &str) -> Result<(Element<'a>, &'a [u8]), String> {
    if input.is_empty() {
        return Err(format!("{field}: missing (the structure ends early)"));
    }
    let (rest, any) = Any::from_der(input).map_err(|e| format!("{field}: {}", describe(&e)))?;
    // `rest` is a suffix of `input`, so the element is everything before it.
    let used = input.len().saturating_sub(rest.len());
    let raw =
        input.get(..used).ok_or_else(|| format!("{field}: element length is inconsistent"))?;
    Ok((Element { any, raw }, rest))
}

/// Reads the next element and requires a universal tag (constructed for SEQUENCE and SET,
/// primitive otherwise).
pub(crate) fn read_universal<'a>(
    input: &'a [u8],
    tag: Tag,
    field: &str,
) -> Result<(Element<'a>, &'a [u8]), String> {
    let (element, rest) = read(input, field)?;
    let constructed = matches!(tag, Tag::Sequence | Tag::Set);
    if element.any.class() != Class::Universal
        || element.any.tag() != tag
        || element.is_constructed() != constructed
    {
        return Err(format!(
            "{field}: expected {}, found {}",
            universal_name(tag),
            element.describe()
        ));
    }
    Ok((element, rest))
}

/// Reads an OBJECT IDENTIFIER and renders it dotted.
pub(crate) fn read_oid<'a>(input: &'a [u8], field: &str) -> Result<(String, &'a [u8]), String> {
    let (element, rest) = read_universal(input, Tag::Oid, field)?;
    Ok((oid_string(element.content(), field)?, rest))
}

/// Renders OID content octets dotted, rejecting what Go's `encoding/asn1` rejects (empty,
/// non-minimal or truncated arcs, arcs beyond 64 bits).
pub(crate) fn oid_string(content: &[u8], field: &str) -> Result<String, String> {
    if content.is_empty() {
        return Err(format!("{field}: empty OBJECT IDENTIFIER"));
    }
    let mut arcs: Vec<u64> = Vec::new();
    let mut value: u64 = 0;
    let mut in_arc = false;
    for &byte in content {
        if !in_arc && byte == 0x80 {
            return Err(format!("{field}: OBJECT IDENTIFIER arc is not minimally encoded"));
        }
        if value > (u64::MAX >> 7) {
            return Err(format!("{field}: OBJECT IDENTIFIER arc exceeds 64 bits"));
        }
        value = (value << 7) | u64::from(byte & 0x7f);
        in_arc = byte & 0x80 != 0;
        if !in_arc {
            arcs.push(value);
            value = 0;
        }
    }
    if in_arc {
        return Err(format!("{field}: OBJECT IDENTIFIER is truncated"));
    }
    let mut out = String::new();
    for (index, arc) in arcs.iter().enumerate() {
        if index == 0 {
            // The first encoded arc packs the first two: 40 * first + second.
            let (first, second) = match *arc {
                a if a < 40 => (0, a),
                a if a < 80 => (1, a - 40),
                a => (2, a - 80),
            };
            out.push_str(&format!("{first}.{second}"));
        } else {
            out.push_str(&format!(".{arc}"));
        }
    }
    Ok(out)
}

/// Decodes a DER BOOLEAN content octet (DER allows only 0x00 and 0xff).
pub(crate) fn boolean(element: &Element<'_>, field: &str) -> Result<bool, String> {
    match element.content() {
        [0x00] => Ok(false),
        [0xff] => Ok(true),
        _ => Err(format!("{field}: invalid BOOLEAN encoding")),
    }
}

/// The bytes of a BIT STRING whose length is a whole number of octets.
pub(crate) fn octet_aligned_bits<'a>(
    element: &Element<'a>,
    field: &str,
) -> Result<&'a [u8], String> {
    match element.content().split_first() {
        Some((0, bits)) => Ok(bits),
        Some((unused, _)) => Err(format!(
            "{field}: BIT STRING has {unused} unused bits, expected a whole number of bytes"
        )),
        None => Err(format!("{field}: BIT STRING is empty")),
    }
}

/// The magnitude bytes (leading zeros removed) of a minimal, positive DER INTEGER.
pub(crate) fn positive_integer<'a>(content: &'a [u8], field: &str) -> Result<&'a [u8], String> {
    match content {
        [] => Err(format!("{field} is empty")),
        [0x00, next, ..] if *next < 0x80 => Err(format!("{field} is not minimally encoded")),
        [0xff, next, ..] if *next >= 0x80 => Err(format!("{field} is not minimally encoded")),
        [first, ..] if *first >= 0x80 => Err(format!("{field} is not a positive number")),
        _ => {
            let magnitude = content.strip_prefix(&[0]).unwrap_or(content);
            if magnitude.is_empty() {
                Err(format!("{field} is not a positive number"))
            } else {
                Ok(magnitude)
            }
        }
    }
}

/// Requires that nothing follows the last element of a structure.
pub(crate) fn end(rest: &[u8], field: &str) -> Result<(), String> {
    if rest.is_empty() {
        Ok(())
    } else {
        Err(format!("{field}: {} unexpected bytes at the end", rest.len()))
    }
}

fn describe(error: &NomErr<Asn1Error>) -> String {
    match error {
        NomErr::Incomplete(Needed::Size(n)) => {
            format!("truncated: the encoding needs {n} more bytes")
        }
        NomErr::Incomplete(Needed::Unknown) => "truncated".to_string(),
        NomErr::Error(e) | NomErr::Failure(e) => match e {
            Asn1Error::IndefiniteLengthUnexpected
            | Asn1Error::DerConstraintFailed(DerConstraint::IndefiniteLength) => {
                "indefinite length encoding is not DER".to_string()
            }
            // The constraint's own sentence, not its Rust name.
            Asn1Error::DerConstraintFailed(c) => format!("not valid DER ({c})"),
            other => format!("invalid encoding ({other})"),
        },
    }
}

fn universal_name(tag: Tag) -> String {
    let name = match tag {
        Tag::Boolean => "BOOLEAN",
        Tag::Integer => "INTEGER",
        Tag::BitString => "BIT STRING",
        Tag::OctetString => "OCTET STRING",
        Tag::Null => "NULL",
        Tag::Oid => "OBJECT IDENTIFIER",
        Tag::Utf8String => "UTF8String",
        Tag::Sequence => "SEQUENCE",
        Tag::Set => "SET",
        Tag::NumericString => "NumericString",
        Tag::PrintableString => "PrintableString",
        Tag::T61String => "T61String",
        Tag::Ia5String => "IA5String",
        Tag::UtcTime => "UTCTime",
        Tag::GeneralizedTime => "GeneralizedTime",
        Tag::UniversalString => "UniversalString",
        Tag::BmpString => "BMPString",
        other => return format!("universal tag {}", other.0),
    };
    name.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oid_rendering_matches_dotted_form() {
        // 1.2.840.113549.1.9.14 (extensionRequest)
        let content = [0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x0e];
        assert_eq!(oid_string(&content, "f").unwrap(), "1.2.840.113549.1.9.14");
        // 2.999.3: first arc 2, second 999 → 1079 = 0x88 0x37
        assert_eq!(oid_string(&[0x88, 0x37, 0x03], "f").unwrap(), "2.999.3");
    }

    #[test]
    fn oid_rejects_what_go_rejects() {
        assert_eq!(oid_string(&[], "f").unwrap_err(), "f: empty OBJECT IDENTIFIER");
        assert_eq!(
            oid_string(&[0x2a, 0x86], "f").unwrap_err(),
            "f: OBJECT IDENTIFIER is truncated"
        );
        assert_eq!(
            oid_string(&[0x2a, 0x80, 0x01], "f").unwrap_err(),
            "f: OBJECT IDENTIFIER arc is not minimally encoded"
        );
        let huge = [0x2a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f];
        assert_eq!(oid_string(&huge, "f").unwrap_err(), "f: OBJECT IDENTIFIER arc exceeds 64 bits");
    }

    #[test]
    fn read_reports_field_and_problem() {
        assert_eq!(
            read_universal(&[0x02, 0x01, 0x00], Tag::Sequence, "outer").unwrap_err(),
            "outer: expected SEQUENCE, found INTEGER"
        );
        assert_eq!(
            read(&[0x30, 0x05, 0x00], "outer").unwrap_err(),
            "outer: truncated: the encoding needs 4 more bytes"
        );
        assert_eq!(read(&[], "outer").unwrap_err(), "outer: missing (the structure ends early)");
        // BER's indefinite length, as a CSR from a BER encoder may carry it.
        assert_eq!(
            read(&[0x30, 0x80, 0x00, 0x00], "outer").unwrap_err(),
            "outer: indefinite length encoding is not DER"
        );
    }
}
