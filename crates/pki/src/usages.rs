//! keyUsage, extKeyUsage and basicConstraints from the extension request, named the way
//! cert-manager names usages in `spec.usages`.

use asn1_rs::Tag;

use crate::der::{boolean, end, read, read_oid, read_universal};

/// keyUsage bits in ASN.1 bit order (bit 0 first, as Go's `x509.KeyUsage`), with
/// cert-manager's names.
pub const KEY_USAGE_NAMES: [&str; 9] = [
    "digital signature",
    "content commitment",
    "key encipherment",
    "data encipherment",
    "key agreement",
    "cert sign",
    "crl sign",
    "encipher only",
    "decipher only",
];

/// extKeyUsage OIDs with cert-manager's names. `s/mime` is an alias cert-manager accepts for
/// email protection; the canonical name is reported.
const EXT_KEY_USAGE_NAMES: [(&str, &str); 12] = [
    ("2.5.29.37.0", "any"),
    ("1.3.6.1.5.5.7.3.1", "server auth"),
    ("1.3.6.1.5.5.7.3.2", "client auth"),
    ("1.3.6.1.5.5.7.3.3", "code signing"),
    ("1.3.6.1.5.5.7.3.4", "email protection"),
    ("1.3.6.1.5.5.7.3.5", "ipsec end system"),
    ("1.3.6.1.5.5.7.3.6", "ipsec tunnel"),
    ("1.3.6.1.5.5.7.3.7", "ipsec user"),
    ("1.3.6.1.5.5.7.3.8", "timestamping"),
    ("1.3.6.1.5.5.7.3.9", "ocsp signing"),
    ("1.3.6.1.4.1.311.10.3.3", "microsoft sgc"),
    ("2.16.840.1.113730.4.1", "netscape sgc"),
];

/// keyUsage ::= BIT STRING; names of the set bits in bit order. Bits past `decipherOnly`
/// have no name and are ignored, as Go ignores them.
pub(crate) fn key_usages(value: &[u8]) -> Result<Vec<String>, String> {
    let (bits, rest) = read_universal(value, Tag::BitString, "keyUsage")?;
    end(rest, "keyUsage")?;
    let (&unused, bytes) =
        bits.content().split_first().ok_or_else(|| "keyUsage: BIT STRING is empty".to_string())?;
    let padding_ok = match bytes.last() {
        None => unused == 0,
        Some(&last) => unused <= 7 && last & ((1u8 << unused) - 1) == 0,
    };
    if !padding_ok {
        return Err("keyUsage: invalid padding bits in BIT STRING".to_string());
    }
    let is_set =
        |bit: usize| bytes.get(bit / 8).is_some_and(|byte| byte & (0x80 >> (bit % 8)) != 0);
    Ok(KEY_USAGE_NAMES
        .iter()
        .enumerate()
        .filter(|&(bit, _)| is_set(bit))
        .map(|(_, name)| (*name).to_string())
        .collect())
}

/// extKeyUsage ::= SEQUENCE OF OID, in encoded order; unknown OIDs stay dotted.
pub(crate) fn ext_key_usages(value: &[u8]) -> Result<Vec<String>, String> {
    let (sequence, rest) = read_universal(value, Tag::Sequence, "extKeyUsage")?;
    end(rest, "extKeyUsage")?;
    let mut remaining = sequence.content();
    let mut usages = Vec::new();
    while !remaining.is_empty() {
        let (oid, rest) = read_oid(remaining, &format!("extKeyUsage entry {}", usages.len()))?;
        remaining = rest;
        let name = EXT_KEY_USAGE_NAMES
            .iter()
            .find(|(known, _)| *known == oid)
            .map_or(oid.clone(), |(_, name)| (*name).to_string());
        usages.push(name);
    }
    Ok(usages)
}

/// basicConstraints ::= SEQUENCE { cA BOOLEAN DEFAULT FALSE, pathLen INTEGER OPTIONAL }.
pub(crate) fn basic_constraints_ca(value: &[u8]) -> Result<bool, String> {
    let (sequence, rest) = read_universal(value, Tag::Sequence, "basicConstraints")?;
    end(rest, "basicConstraints")?;
    let content = sequence.content();
    if content.is_empty() {
        return Ok(false);
    }
    let (first, _) = read(content, "basicConstraints cA")?;
    if first.is_universal_primitive(Tag::Boolean) {
        boolean(&first, "basicConstraints cA")
    } else {
        // Only pathLenConstraint present: cA takes its default.
        Ok(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_usage_bits_in_order() {
        // digitalSignature (bit 0), keyEncipherment (bit 2), decipherOnly (bit 8).
        let der = [0x03, 0x03, 0x07, 0xa0, 0x80];
        assert_eq!(
            key_usages(&der).unwrap(),
            ["digital signature", "key encipherment", "decipher only"]
        );
        assert_eq!(key_usages(&[0x03, 0x02, 0x01, 0x06]).unwrap(), ["cert sign", "crl sign"]);
        assert_eq!(key_usages(&[0x03, 0x01, 0x00]).unwrap(), Vec::<String>::new());
    }

    #[test]
    fn key_usage_rejects_bad_padding() {
        assert_eq!(
            key_usages(&[0x03, 0x02, 0x01, 0x01]).unwrap_err(),
            "keyUsage: invalid padding bits in BIT STRING"
        );
        assert_eq!(
            key_usages(&[0x03, 0x01, 0x01]).unwrap_err(),
            "keyUsage: invalid padding bits in BIT STRING"
        );
    }

    #[test]
    fn ext_key_usages_keep_order_and_unknown_oids() {
        let der = [
            0x30, 0x19, //
            0x06, 0x08, 0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x03, 0x02, // clientAuth
            0x06, 0x03, 0x2a, 0x03, 0x04, // 1.2.3.4
            0x06, 0x08, 0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x03, 0x01, // serverAuth
        ];
        assert_eq!(ext_key_usages(&der).unwrap(), ["client auth", "1.2.3.4", "server auth"]);
    }

    #[test]
    fn basic_constraints_forms() {
        assert!(basic_constraints_ca(&[0x30, 0x03, 0x01, 0x01, 0xff]).unwrap());
        assert!(!basic_constraints_ca(&[0x30, 0x00]).unwrap());
        assert!(!basic_constraints_ca(&[0x30, 0x03, 0x02, 0x01, 0x01]).unwrap());
        assert_eq!(
            basic_constraints_ca(&[0x30, 0x03, 0x01, 0x01, 0x01]).unwrap_err(),
            "basicConstraints cA: invalid BOOLEAN encoding"
        );
    }
}
