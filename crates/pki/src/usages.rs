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

/// An extended key usage Go's `crypto/x509` knows (its `x509.ExtKeyUsage` values): the OID
/// and cert-manager's names for it. The first name is the one reported; `s/mime` is an alias
/// cert-manager accepts for email protection. Usages without a name (the two Microsoft
/// code-signing OIDs) are known to Go, so cert-manager compares them, but have no
/// `spec.usages` spelling.
#[derive(Debug, PartialEq, Eq)]
pub struct KnownExtKeyUsage {
    pub oid: &'static str,
    pub names: &'static [&'static str],
}

impl KnownExtKeyUsage {
    pub fn by_oid(oid: &str) -> Option<&'static Self> {
        EXT_KEY_USAGES.iter().find(|known| known.oid == oid)
    }

    pub fn by_name(name: &str) -> Option<&'static Self> {
        EXT_KEY_USAGES.iter().find(|known| known.names.contains(&name))
    }

    /// The name reported for it, if cert-manager has one.
    pub fn name(&self) -> Option<&'static str> {
        self.names.first().copied()
    }
}

/// Every extended key usage Go knows, in `x509.ExtKeyUsage` order.
pub const EXT_KEY_USAGES: [KnownExtKeyUsage; 14] = [
    KnownExtKeyUsage { oid: "2.5.29.37.0", names: &["any"] },
    KnownExtKeyUsage { oid: "1.3.6.1.5.5.7.3.1", names: &["server auth"] },
    KnownExtKeyUsage { oid: "1.3.6.1.5.5.7.3.2", names: &["client auth"] },
    KnownExtKeyUsage { oid: "1.3.6.1.5.5.7.3.3", names: &["code signing"] },
    KnownExtKeyUsage { oid: "1.3.6.1.5.5.7.3.4", names: &["email protection", "s/mime"] },
    KnownExtKeyUsage { oid: "1.3.6.1.5.5.7.3.5", names: &["ipsec end system"] },
    KnownExtKeyUsage { oid: "1.3.6.1.5.5.7.3.6", names: &["ipsec tunnel"] },
    KnownExtKeyUsage { oid: "1.3.6.1.5.5.7.3.7", names: &["ipsec user"] },
    KnownExtKeyUsage { oid: "1.3.6.1.5.5.7.3.8", names: &["timestamping"] },
    KnownExtKeyUsage { oid: "1.3.6.1.5.5.7.3.9", names: &["ocsp signing"] },
    KnownExtKeyUsage { oid: "1.3.6.1.4.1.311.10.3.3", names: &["microsoft sgc"] },
    KnownExtKeyUsage { oid: "2.16.840.1.113730.4.1", names: &["netscape sgc"] },
    KnownExtKeyUsage { oid: "1.3.6.1.4.1.311.2.1.22", names: &[] },
    KnownExtKeyUsage { oid: "1.3.6.1.4.1.311.61.1.1", names: &[] },
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

/// extKeyUsage ::= SEQUENCE OF OID, in encoded order; OIDs without a cert-manager name stay
/// dotted.
pub(crate) fn ext_key_usages(value: &[u8]) -> Result<Vec<String>, String> {
    let (sequence, rest) = read_universal(value, Tag::Sequence, "extKeyUsage")?;
    end(rest, "extKeyUsage")?;
    let mut remaining = sequence.content();
    let mut usages = Vec::new();
    while !remaining.is_empty() {
        let (oid, rest) = read_oid(remaining, &format!("extKeyUsage entry {}", usages.len()))?;
        remaining = rest;
        let name = KnownExtKeyUsage::by_oid(&oid).and_then(KnownExtKeyUsage::name);
        usages.push(name.map_or(oid, str::to_string));
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
    fn known_ext_key_usages_are_unambiguous() {
        for (i, known) in EXT_KEY_USAGES.iter().enumerate() {
            assert_eq!(KnownExtKeyUsage::by_oid(known.oid), Some(known), "{}", known.oid);
            for name in known.names {
                assert_eq!(KnownExtKeyUsage::by_name(name), Some(known), "{name}");
            }
            assert!(EXT_KEY_USAGES[..i].iter().all(|other| other.oid != known.oid));
        }
        assert_eq!(
            KnownExtKeyUsage::by_name("s/mime").and_then(KnownExtKeyUsage::name),
            Some("email protection")
        );
        assert_eq!(
            KnownExtKeyUsage::by_oid("1.3.6.1.4.1.311.61.1.1").and_then(KnownExtKeyUsage::name),
            None
        );
    }

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
