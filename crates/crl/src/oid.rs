//! OID constants (DER content bytes) and dotted rendering.

use std::fmt::Write;

pub(crate) const CRL_NUMBER: &[u8] = &[0x55, 0x1d, 0x14];
pub(crate) const REASON_CODE: &[u8] = &[0x55, 0x1d, 0x15];
pub(crate) const DELTA_CRL_INDICATOR: &[u8] = &[0x55, 0x1d, 0x1b];
pub(crate) const ISSUING_DISTRIBUTION_POINT: &[u8] = &[0x55, 0x1d, 0x1c];
pub(crate) const AUTHORITY_KEY_IDENTIFIER: &[u8] = &[0x55, 0x1d, 0x23];
pub(crate) const ISSUER_ALT_NAME: &[u8] = &[0x55, 0x1d, 0x12];
pub(crate) const FRESHEST_CRL: &[u8] = &[0x55, 0x1d, 0x2e];
pub(crate) const AUTHORITY_INFO_ACCESS: &[u8] = &[0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x01, 0x01];

/// Dotted-decimal form of OID content bytes; malformed encodings render as hex.
pub(crate) fn dotted(content: &[u8]) -> String {
    let mut arcs: Vec<u128> = Vec::new();
    let mut acc: u128 = 0;
    for (i, b) in content.iter().enumerate() {
        if acc > (u128::MAX >> 7) {
            return format!("0x{}", crate::name::hex(content));
        }
        acc = (acc << 7) | u128::from(b & 0x7f);
        if b & 0x80 == 0 {
            arcs.push(acc);
            acc = 0;
        } else if i + 1 == content.len() {
            return format!("0x{}", crate::name::hex(content));
        }
    }
    let Some((first, rest)) = arcs.split_first() else { return String::from("(empty OID)") };
    let (a, b) = match *first {
        f if f < 40 => (0, f),
        f if f < 80 => (1, f - 40),
        f => (2, f - 80),
    };
    let mut s = format!("{a}.{b}");
    for arc in rest {
        let _ = write!(s, ".{arc}");
    }
    s
}

/// Human name of the CRL extensions certgate knows.
pub(crate) fn crl_extension_name(oid: &[u8]) -> Option<&'static str> {
    Some(match oid {
        CRL_NUMBER => "cRLNumber",
        DELTA_CRL_INDICATOR => "deltaCRLIndicator",
        ISSUING_DISTRIBUTION_POINT => "issuingDistributionPoint",
        AUTHORITY_KEY_IDENTIFIER => "authorityKeyIdentifier",
        ISSUER_ALT_NAME => "issuerAltName",
        FRESHEST_CRL => "freshestCRL",
        AUTHORITY_INFO_ACCESS => "authorityInfoAccess",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn dotted_renders() {
        assert_eq!(super::dotted(super::CRL_NUMBER), "2.5.29.20");
        assert_eq!(super::dotted(super::AUTHORITY_INFO_ACCESS), "1.3.6.1.5.5.7.1.1");
        assert_eq!(super::dotted(&[0x2a, 0x86]), "0x2a86");
    }
}
