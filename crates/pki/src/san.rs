//! subjectAltName (GeneralNames) decoding, by hand rather than through a typed parser, so that
//! every GeneralName kind is seen in encoded order, otherName values keep their raw type, and
//! a malformed extension becomes a policy denial with a reason instead of a parse failure.

use std::fmt::Write as _;

use asn1_rs::Tag;

use crate::asn1_string::{go_string, is_text_type};
use crate::csr::{OtherName, SanEntries, UnsupportedSan};
use crate::der::{Element, end, read, read_oid, read_universal};
use crate::ip::go_ip_string;
use crate::uri::go_uri_string;

/// Decodes a subjectAltName extension value.
pub(crate) fn decode(value: &[u8]) -> Result<SanEntries, String> {
    let (names, rest) = read_universal(value, Tag::Sequence, "GeneralNames")?;
    end(rest, "GeneralNames")?;
    let mut entries = SanEntries::default();
    let mut remaining = names.content();
    let mut index = 0usize;
    while !remaining.is_empty() {
        let (name, rest) = read(remaining, &format!("entry {index}"))?;
        remaining = rest;
        general_name(&name, index, &mut entries)?;
        index += 1;
    }
    Ok(entries)
}

/// Appends `more` to `entries`, kind by kind.
pub(crate) fn merge(entries: &mut SanEntries, more: SanEntries) {
    entries.dns_names.extend(more.dns_names);
    entries.ip_addresses.extend(more.ip_addresses);
    entries.uris.extend(more.uris);
    entries.email_addresses.extend(more.email_addresses);
    entries.other_names.extend(more.other_names);
    entries.unsupported.extend(more.unsupported);
}

fn general_name(name: &Element<'_>, index: usize, entries: &mut SanEntries) -> Result<(), String> {
    if !name.is_context_specific() {
        return Err(format!("entry {index}: expected a GeneralName, found {}", name.describe()));
    }
    let tag = name.tag_number();
    let (kind, constructed) = match tag {
        0 => ("otherName", true),
        1 => ("rfc822Name", false),
        2 => ("dNSName", false),
        3 => ("x400Address", true),
        4 => ("directoryName", true),
        5 => ("ediPartyName", true),
        6 => ("uniformResourceIdentifier", false),
        7 => ("iPAddress", false),
        8 => ("registeredID", false),
        _ => return Err(format!("entry {index}: [{tag}] is not a GeneralName choice")),
    };
    if name.is_constructed() != constructed {
        let form = if constructed { "constructed" } else { "primitive" };
        return Err(format!("entry {index} ({kind}): must be {form}"));
    }
    let field = format!("entry {index} ({kind})");
    match tag {
        0 => entries.other_names.push(other_name(name.content(), &field)?),
        1 => entries.email_addresses.push(ia5(name.content(), &field)?),
        2 => entries.dns_names.push(ia5(name.content(), &field)?),
        3 => entries.unsupported.push(UnsupportedSan::X400Address),
        4 => entries.unsupported.push(UnsupportedSan::DirectoryName),
        5 => entries.unsupported.push(UnsupportedSan::EdiPartyName),
        6 => entries.uris.push(go_uri_string(&ia5(name.content(), &field)?)),
        7 => entries.ip_addresses.push(go_ip_string(name.content())),
        _ => entries.unsupported.push(UnsupportedSan::RegisteredId),
    }
    Ok(())
}

/// rfc822Name, dNSName and URI are IA5Strings: ASCII only, as Go requires.
fn ia5(content: &[u8], field: &str) -> Result<String, String> {
    match content.iter().position(|b| !b.is_ascii()) {
        Some(at) => Err(format!("{field}: non-ASCII byte at offset {at}")),
        None => Ok(content.iter().map(|&b| char::from(b)).collect()),
    }
}

/// OtherName ::= SEQUENCE { type-id OID, value [0] EXPLICIT ANY } (implicitly tagged [0]).
fn other_name(content: &[u8], field: &str) -> Result<OtherName, String> {
    let (oid, rest) = read_oid(content, &format!("{field} type-id"))?;
    let value_field = format!("{field} ({oid}) value");
    let (wrapper, rest) = read(rest, &value_field)?;
    if !(wrapper.is_context_specific() && wrapper.tag_number() == 0 && wrapper.is_constructed()) {
        return Err(format!(
            "{value_field}: expected an explicit [0] wrapper, found {}",
            wrapper.describe()
        ));
    }
    end(rest, field)?;
    let (inner, rest) = read(wrapper.content(), &value_field)?;
    end(rest, &value_field)?;
    Ok(OtherName { oid, value: other_name_value(&inner) })
}

/// Text for the string types policy writes literally; otherwise (including strings whose
/// content is invalid) the lowercase hex of the value's full DER.
fn other_name_value(inner: &Element<'_>) -> String {
    if is_text_type(inner)
        && let Ok(Some(text)) = go_string(inner)
    {
        return text;
    }
    let mut hex = String::with_capacity(inner.raw().len() * 2);
    for byte in inner.raw() {
        let _ = write!(hex, "{byte:02x}");
    }
    hex
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::der::tlv;

    fn names(items: &[Vec<u8>]) -> Vec<u8> {
        tlv(0x30, &items.concat())
    }

    // 1.3.6.1.4.1.311.20.2.3 (Microsoft UPN)
    const UPN: &[u8] = &[0x2b, 0x06, 0x01, 0x04, 0x01, 0x82, 0x37, 0x14, 0x02, 0x03];

    fn other(value: &[u8]) -> Vec<u8> {
        tlv(0xa0, &[tlv(0x06, UPN), tlv(0xa0, value)].concat())
    }

    #[test]
    fn every_kind_in_encoded_order() {
        let der = names(&[
            tlv(0x82, b"a.example"),
            tlv(0x81, b"me@example.com"),
            tlv(0x86, b"SPIFFE://td/x"),
            tlv(0x87, &[192, 0, 2, 1]),
            tlv(0xa4, &tlv(0x30, &[])),
            tlv(0x88, &[0x2a, 0x03]),
            tlv(0xa3, &[]),
            tlv(0xa5, &[]),
            other(&tlv(0x0c, b"user@corp")),
            tlv(0x82, b"b.example"),
        ]);
        let entries = decode(&der).unwrap();
        assert_eq!(entries.dns_names, ["a.example", "b.example"]);
        assert_eq!(entries.email_addresses, ["me@example.com"]);
        assert_eq!(entries.uris, ["spiffe://td/x"]);
        assert_eq!(entries.ip_addresses, ["192.0.2.1"]);
        assert_eq!(
            entries.unsupported,
            [
                UnsupportedSan::DirectoryName,
                UnsupportedSan::RegisteredId,
                UnsupportedSan::X400Address,
                UnsupportedSan::EdiPartyName
            ]
        );
        assert_eq!(
            entries.other_names,
            [OtherName { oid: "1.3.6.1.4.1.311.20.2.3".into(), value: "user@corp".into() }]
        );
    }

    #[test]
    fn other_name_values_by_type() {
        let value =
            |inner: Vec<u8>| decode(&names(&[other(&inner)])).unwrap().other_names[0].value.clone();
        assert_eq!(value(tlv(0x13, b"Printable")), "Printable");
        assert_eq!(value(tlv(0x16, b"ia5")), "ia5");
        assert_eq!(value(tlv(0x14, &[0xe9])), "é");
        // Not a text type: hex of the full DER, tag and length included.
        assert_eq!(value(tlv(0x04, &[0xde, 0xad])), "0402dead");
        assert_eq!(value(tlv(0x1e, &[0x00, 0x41])), "1e020041");
        // A UTF8String that is not UTF-8 cannot be text.
        assert_eq!(value(tlv(0x0c, &[0xff])), "0c01ff");
    }

    #[test]
    fn malformed_extensions_explain_why() {
        let cases: Vec<(Vec<u8>, &str)> = vec![
            (tlv(0x04, &[]), "GeneralNames: expected SEQUENCE, found OCTET STRING"),
            (names(&[tlv(0x82, &[b'a', 0xc3])]), "entry 0 (dNSName): non-ASCII byte at offset 1"),
            (names(&[tlv(0x0c, b"x")]), "entry 0: expected a GeneralName, found UTF8String"),
            (names(&[tlv(0x89, b"x")]), "entry 0: [9] is not a GeneralName choice"),
            (names(&[tlv(0xa2, &[])]), "entry 0 (dNSName): must be primitive"),
            (names(&[tlv(0x84, &[])]), "entry 0 (directoryName): must be constructed"),
            (
                names(&[tlv(0xa0, &[tlv(0x06, UPN), tlv(0x0c, b"x")].concat())]),
                "entry 0 (otherName) (1.3.6.1.4.1.311.20.2.3) value: expected an explicit [0] wrapper, found UTF8String",
            ),
            (
                [names(&[tlv(0x82, b"a")]), vec![0x00]].concat(),
                "GeneralNames: 1 unexpected bytes at the end",
            ),
        ];
        for (der, expected) in cases {
            assert_eq!(decode(&der).unwrap_err(), expected);
        }
    }

    #[test]
    fn empty_general_names_decode_to_nothing() {
        assert_eq!(decode(&names(&[])).unwrap(), SanEntries::default());
    }
}
