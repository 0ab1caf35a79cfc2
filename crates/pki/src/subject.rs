//! The raw Subject as an ordered list of attributes (multi-valued RDNs flattened), so policy
//! sees duplicate CNs and unmapped OIDs that Go's `pkix.Name` projection would drop.

use asn1_rs::Tag;

use crate::asn1_string::go_string;
use crate::csr::{AttributeValue, SubjectAttribute};
use crate::der::{read, read_oid, read_universal};

/// Decodes the content of a `Name` (an RDNSequence).
pub(crate) fn decode(mut rdns: &[u8]) -> Result<Vec<SubjectAttribute>, String> {
    let mut attributes = Vec::new();
    let mut rdn_index = 0usize;
    while !rdns.is_empty() {
        let field = format!("RDN {rdn_index}");
        let (set, rest) = read_universal(rdns, Tag::Set, &field)?;
        rdns = rest;
        let mut values = set.content();
        let mut value_index = 0usize;
        while !values.is_empty() {
            let field = format!("RDN {rdn_index} attribute {value_index}");
            let (atv, rest) = read_universal(values, Tag::Sequence, &field)?;
            values = rest;
            attributes.push(attribute(atv.content(), &field)?);
            value_index += 1;
        }
        rdn_index += 1;
    }
    Ok(attributes)
}

/// AttributeTypeAndValue ::= SEQUENCE { type OID, value ANY }; Go ignores anything after the
/// value, and so does this.
fn attribute(content: &[u8], field: &str) -> Result<SubjectAttribute, String> {
    let (oid, rest) = read_oid(content, &format!("{field} type"))?;
    let (value, _) = read(rest, &format!("{field} ({oid}) value"))?;
    let value = match go_string(&value).map_err(|e| format!("{field} ({oid}) value: {e}"))? {
        Some(text) => AttributeValue::String(text),
        None => AttributeValue::NonString,
    };
    Ok(SubjectAttribute { oid, value })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn atv(oid: &[u8], value: &[u8]) -> Vec<u8> {
        let mut inner = vec![0x06, u8::try_from(oid.len()).unwrap()];
        inner.extend_from_slice(oid);
        inner.extend_from_slice(value);
        let mut out = vec![0x30, u8::try_from(inner.len()).unwrap()];
        out.extend(inner);
        out
    }

    fn set(items: &[Vec<u8>]) -> Vec<u8> {
        let inner: Vec<u8> = items.concat();
        let mut out = vec![0x31, u8::try_from(inner.len()).unwrap()];
        out.extend(inner);
        out
    }

    const CN: &[u8] = &[0x55, 0x04, 0x03];
    const O: &[u8] = &[0x55, 0x04, 0x0a];

    #[test]
    fn flattens_multi_valued_rdns_in_order() {
        let name = [
            set(&[atv(CN, b"\x0c\x01a"), atv(O, b"\x13\x01b")]),
            set(&[atv(CN, b"\x16\x01c")]),
            set(&[atv(CN, b"\x02\x01\x05")]),
        ]
        .concat();
        let decoded = decode(&name).unwrap();
        let expected = vec![
            SubjectAttribute { oid: "2.5.4.3".into(), value: AttributeValue::String("a".into()) },
            SubjectAttribute { oid: "2.5.4.10".into(), value: AttributeValue::String("b".into()) },
            SubjectAttribute { oid: "2.5.4.3".into(), value: AttributeValue::String("c".into()) },
            SubjectAttribute { oid: "2.5.4.3".into(), value: AttributeValue::NonString },
        ];
        assert_eq!(decoded, expected);
    }

    #[test]
    fn empty_name_and_empty_rdn_have_no_attributes() {
        assert_eq!(decode(&[]).unwrap(), vec![]);
        assert_eq!(decode(&[0x31, 0x00]).unwrap(), vec![]);
    }

    #[test]
    fn errors_name_the_position_and_oid() {
        let bad_printable = set(&[atv(CN, b"\x13\x01_")]);
        assert_eq!(
            decode(&bad_printable).unwrap_err(),
            "RDN 0 attribute 0 (2.5.4.3) value: PrintableString contains invalid character at byte 0"
        );
        let missing_value = set(&[atv(CN, b"")]);
        assert_eq!(
            decode(&missing_value).unwrap_err(),
            "RDN 0 attribute 0 (2.5.4.3) value: missing (the structure ends early)"
        );
        assert_eq!(decode(&[0x30, 0x00]).unwrap_err(), "RDN 0: expected SET, found SEQUENCE");
    }
}
