//! DER writing for the structures a certificate is built from, on top of [`crate::der::tlv`].
//! Everything here encodes exactly as Go's `encoding/asn1` marshals the same value.

use crate::der::tlv;

pub(super) const SEQUENCE: u8 = 0x30;
pub(super) const OCTET_STRING: u8 = 0x04;

/// A SEQUENCE of already-encoded elements.
pub(super) fn sequence(items: &[&[u8]]) -> Vec<u8> {
    tlv(SEQUENCE, &items.concat())
}

/// A non-negative INTEGER from its big-endian magnitude, minimally encoded.
pub(super) fn unsigned_integer(magnitude: &[u8]) -> Vec<u8> {
    let start = magnitude.iter().position(|&b| b != 0).unwrap_or(magnitude.len());
    let significant = magnitude.get(start..).unwrap_or_default();
    let mut content = Vec::with_capacity(significant.len() + 1);
    if significant.first().is_none_or(|&b| b >= 0x80) {
        content.push(0);
    }
    content.extend_from_slice(significant);
    tlv(0x02, &content)
}

/// A BIT STRING holding whole bytes.
pub(super) fn bit_string(bytes: &[u8]) -> Vec<u8> {
    let mut content = Vec::with_capacity(bytes.len() + 1);
    content.push(0);
    content.extend_from_slice(bytes);
    tlv(0x03, &content)
}

/// The full encoding of the OBJECT IDENTIFIER `dotted` (`1.2.840.10045.2.1`); `None` when it
/// is not a valid dotted OID.
pub(super) fn oid(dotted: &str) -> Option<Vec<u8>> {
    let mut arcs = dotted.split('.').map(|arc| {
        if arc.is_empty() || (arc.len() > 1 && arc.starts_with('0')) {
            None
        } else {
            arc.parse::<u64>().ok()
        }
    });
    let first = arcs.next()??;
    let second = arcs.next()??;
    if first > 2 || (first < 2 && second >= 40) {
        return None;
    }
    let mut content = Vec::new();
    base128(&mut content, (first * 40).checked_add(second)?);
    for arc in arcs {
        base128(&mut content, arc?);
    }
    Some(tlv(0x06, &content))
}

fn base128(out: &mut Vec<u8>, mut value: u64) {
    let mut groups = [0u8; 10];
    let mut count = 0;
    loop {
        groups[count] = (value & 0x7f) as u8 | if count == 0 { 0 } else { 0x80 };
        count += 1;
        value >>= 7;
        if value == 0 {
            break;
        }
    }
    out.extend(groups[..count].iter().rev());
}

/// Extension ::= SEQUENCE { extnID, critical BOOLEAN DEFAULT FALSE, extnValue OCTET STRING };
/// `oid` is the full OID encoding. A false `critical` is left out, as DER requires.
pub(super) fn extension(oid: &[u8], critical: bool, value: &[u8]) -> Vec<u8> {
    let boolean: &[u8] = if critical { &[0x01, 0x01, 0xff] } else { &[] };
    sequence(&[oid, boolean, &tlv(OCTET_STRING, value)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_are_minimal_and_positive() {
        assert_eq!(unsigned_integer(&[]), [0x02, 0x01, 0x00]);
        assert_eq!(unsigned_integer(&[0, 0, 0]), [0x02, 0x01, 0x00]);
        assert_eq!(unsigned_integer(&[0, 0x7f]), [0x02, 0x01, 0x7f]);
        assert_eq!(unsigned_integer(&[0, 0, 0x80, 1]), [0x02, 0x03, 0x00, 0x80, 0x01]);
    }

    #[test]
    fn oids_from_dotted_text() {
        assert_eq!(oid("2.5.29.37").unwrap(), [0x06, 0x03, 0x55, 0x1d, 0x25]);
        assert_eq!(
            oid("1.2.840.113549.1.1.11").unwrap(),
            [0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0b]
        );
        assert_eq!(oid("2.999").unwrap(), [0x06, 0x02, 0x88, 0x37]);
        for bad in ["", "1", "1.", "3.1", "1.40", "1.2.a", "1.02", "1.2.99999999999999999999"] {
            assert_eq!(oid(bad), None, "{bad}");
        }
    }

    #[test]
    fn oid_text_round_trips_through_the_reader() {
        for dotted in ["2.5.29.37.0", "1.3.6.1.4.1.311.10.3.3", "2.16.840.1.113730.4.1", "0.0"] {
            let der = oid(dotted).unwrap();
            let (text, rest) = crate::der::read_oid(&der, "oid").unwrap();
            assert_eq!((text.as_str(), rest), (dotted, &[][..]));
        }
    }

    #[test]
    fn criticality_is_encoded_only_when_true() {
        let oid = [0x06, 0x01, 0x01];
        assert_eq!(extension(&oid, false, &[5]), [0x30, 0x06, 0x06, 0x01, 0x01, 0x04, 0x01, 0x05]);
        assert_eq!(
            extension(&oid, true, &[5]),
            [0x30, 0x09, 0x06, 0x01, 0x01, 0x01, 0x01, 0xff, 0x04, 0x01, 0x05]
        );
    }
}
