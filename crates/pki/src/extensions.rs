//! Requested extensions, from every PKCS#9 extensionRequest attribute, in encoded order.
//! As in Go, attributes that do not parse are ignored, only the first value of an
//! extensionRequest counts, and a malformed extension list fails the request. Duplicate
//! extensions are kept: policy, not the decoder, decides what several SAN extensions mean.

use asn1_rs::Tag;

use crate::der::{boolean, read, read_oid, read_universal};

const EXTENSION_REQUEST: &str = "1.2.840.113549.1.9.14";

/// One requested extension: dotted OID and the content of its extnValue OCTET STRING.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Extension<'a> {
    pub(crate) oid: String,
    pub(crate) value: &'a [u8],
}

/// Decodes the content of the request's `[0]` attributes.
pub(crate) fn requested(mut attributes: &[u8]) -> Result<Vec<Extension<'_>>, String> {
    let mut extensions = Vec::new();
    let mut index = 0usize;
    while !attributes.is_empty() {
        let (attribute, rest) = read(attributes, &format!("attribute {index}"))?;
        attributes = rest;
        if let Some(first_value) = extension_request_value(attribute.content()) {
            let field = format!("attribute {index} (extensionRequest)");
            extensions.extend(extension_list(first_value, &field)?);
        }
        index += 1;
    }
    Ok(extensions)
}

/// The first value of an extensionRequest attribute; `None` for other attributes and for
/// attributes that do not parse (which Go skips).
fn extension_request_value(attribute: &[u8]) -> Option<&[u8]> {
    let (oid, rest) = read_oid(attribute, "attribute type").ok()?;
    let (values, _) = read_universal(rest, Tag::Set, "attribute values").ok()?;
    let (first, _) = read(values.content(), "attribute value").ok()?;
    (oid == EXTENSION_REQUEST).then_some(first.raw())
}

/// Extensions ::= SEQUENCE OF Extension
fn extension_list<'a>(value: &'a [u8], field: &str) -> Result<Vec<Extension<'a>>, String> {
    let (list, _) = read_universal(value, Tag::Sequence, field)?;
    let mut remaining = list.content();
    let mut extensions = Vec::new();
    while !remaining.is_empty() {
        let entry_field = format!("{field} extension {}", extensions.len());
        let (entry, rest) = read_universal(remaining, Tag::Sequence, &entry_field)?;
        remaining = rest;
        extensions.push(extension(entry.content(), &entry_field)?);
    }
    Ok(extensions)
}

/// Extension ::= SEQUENCE { extnID OID, critical BOOLEAN DEFAULT FALSE, extnValue OCTET STRING }
fn extension<'a>(content: &'a [u8], field: &str) -> Result<Extension<'a>, String> {
    let (oid, rest) = read_oid(content, &format!("{field} extnID"))?;
    let field = format!("{field} ({oid})");
    // Anything after extnValue is ignored, as Go ignores extra SEQUENCE elements.
    let (next, rest) = read(rest, &field)?;
    let value = if next.is_universal_primitive(Tag::Boolean) {
        // Criticality is validated but not used: policy decides on content, not on flags.
        boolean(&next, &format!("{field} critical"))?;
        read_universal(rest, Tag::OctetString, &format!("{field} extnValue"))?.0
    } else if next.is_universal_primitive(Tag::OctetString) {
        next
    } else {
        return Err(format!("{field} extnValue: expected OCTET STRING, found {}", next.describe()));
    };
    Ok(Extension { oid, value: value.content() })
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::der::tlv;

    const EXT_REQ_OID: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x0e];
    const SAN_OID: &[u8] = &[0x55, 0x1d, 0x11];
    const CHALLENGE_OID: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x07];

    fn ext(critical: bool, value: &[u8]) -> Vec<u8> {
        let mut content = tlv(0x06, SAN_OID);
        if critical {
            content.extend(tlv(0x01, &[0xff]));
        }
        content.extend(tlv(0x04, value));
        tlv(0x30, &content)
    }

    fn ext_req(extensions: &[Vec<u8>]) -> Vec<u8> {
        let list = tlv(0x30, &extensions.concat());
        tlv(0x30, &[tlv(0x06, EXT_REQ_OID), tlv(0x31, &list)].concat())
    }

    #[test]
    fn collects_extensions_from_every_extension_request() {
        let attributes = [
            // challengePassword as an IA5String: valid for Go, skipped here.
            tlv(0x30, &[tlv(0x06, CHALLENGE_OID), tlv(0x31, &tlv(0x16, b"pw"))].concat()),
            ext_req(&[ext(false, b"a"), ext(true, b"b")]),
            ext_req(&[ext(false, b"c")]),
        ]
        .concat();
        let found = requested(&attributes).unwrap();
        let values: Vec<&[u8]> = found.iter().map(|e| e.value).collect();
        assert_eq!(values, [b"a", b"b", b"c"]);
        assert!(found.iter().all(|e| e.oid == "2.5.29.17"));
    }

    #[test]
    fn unparseable_other_attributes_are_ignored() {
        let attributes = [tlv(0x30, &[0x05, 0x00]), ext_req(&[ext(false, b"a")])].concat();
        assert_eq!(requested(&attributes).unwrap().len(), 1);
    }

    #[test]
    fn malformed_extension_list_is_an_error() {
        let bad = tlv(0x30, &[tlv(0x06, EXT_REQ_OID), tlv(0x31, &tlv(0x04, b"x"))].concat());
        assert_eq!(
            requested(&bad).unwrap_err(),
            "attribute 0 (extensionRequest): expected SEQUENCE, found OCTET STRING"
        );
        let no_value = ext_req(&[tlv(0x30, &tlv(0x06, SAN_OID))]);
        assert_eq!(
            requested(&no_value).unwrap_err(),
            "attribute 0 (extensionRequest) extension 0 (2.5.29.17): missing (the structure ends early)"
        );
        let bad_bool = ext_req(&[tlv(
            0x30,
            &[tlv(0x06, SAN_OID), tlv(0x01, &[0x01]), tlv(0x04, b"a")].concat(),
        )]);
        assert_eq!(
            requested(&bad_bool).unwrap_err(),
            "attribute 0 (extensionRequest) extension 0 (2.5.29.17) critical: invalid BOOLEAN encoding"
        );
    }
}
