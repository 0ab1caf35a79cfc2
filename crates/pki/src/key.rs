//! SubjectPublicKeyInfo: key type, size and the key bytes signature verification needs,
//! checked as strictly as Go's `x509.ParseCertificateRequest` checks them. Public through
//! [`crate::signature`], whose verifier takes these keys.

use asn1_rs::Tag;

use crate::csr::{KeyAlgorithm, PublicKeyInfo};
use crate::der::{
    Element, end, octet_aligned_bits, positive_integer, read, read_oid, read_universal,
};

const RSA_ENCRYPTION: &str = "1.2.840.113549.1.1.1";
const EC_PUBLIC_KEY: &str = "1.2.840.10045.2.1";
const ED25519: &str = "1.3.101.112";

/// The NIST curves Go accepts in a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Curve {
    P224,
    P256,
    P384,
    P521,
}

impl Curve {
    fn from_oid(oid: &str) -> Option<Self> {
        match oid {
            "1.3.132.0.33" => Some(Curve::P224),
            "1.2.840.10045.3.1.7" => Some(Curve::P256),
            "1.3.132.0.34" => Some(Curve::P384),
            "1.3.132.0.35" => Some(Curve::P521),
            _ => None,
        }
    }

    pub fn bits(self) -> usize {
        match self {
            Curve::P224 => 224,
            Curve::P256 => 256,
            Curve::P384 => 384,
            Curve::P521 => 521,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Curve::P224 => "P-224",
            Curve::P256 => "P-256",
            Curve::P384 => "P-384",
            Curve::P521 => "P-521",
        }
    }
}

/// A public key, borrowed from its SubjectPublicKeyInfo.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PublicKey<'a> {
    /// `der` is the RSAPublicKey structure (modulus and exponent); `bits` the modulus length,
    /// which only [`Policy::Go`](crate::signature::Policy::Go) looks at.
    Rsa {
        der: &'a [u8],
        bits: usize,
    },
    /// `point` is the uncompressed SEC1 point.
    Ecdsa {
        curve: Curve,
        point: &'a [u8],
    },
    Ed25519 {
        key: &'a [u8],
    },
    Other {
        oid: String,
    },
}

impl PublicKey<'_> {
    /// Algorithm and size, as approver-policy reports them.
    pub fn info(&self) -> PublicKeyInfo {
        let (algorithm, size) = match self {
            PublicKey::Rsa { bits, .. } => (KeyAlgorithm::Rsa, to_i64(*bits)),
            PublicKey::Ecdsa { curve, .. } => (KeyAlgorithm::Ecdsa, to_i64(curve.bits())),
            // approver-policy reports Ed25519 keys as size -1.
            PublicKey::Ed25519 { .. } => (KeyAlgorithm::Ed25519, -1),
            PublicKey::Other { oid } => (KeyAlgorithm::Other(oid.clone()), 0),
        };
        PublicKeyInfo { algorithm, size }
    }

    /// The key type as written in error messages.
    pub fn kind(&self) -> String {
        match self {
            PublicKey::Rsa { .. } => "RSA".to_string(),
            PublicKey::Ecdsa { curve, .. } => format!("ECDSA {}", curve.name()),
            PublicKey::Ed25519 { .. } => "Ed25519".to_string(),
            PublicKey::Other { oid } => format!("{oid} (unsupported type)"),
        }
    }
}

fn to_i64(value: usize) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

/// Parses a full SubjectPublicKeyInfo encoding; the error says what is wrong with it.
pub fn parse_spki(spki: &[u8]) -> Result<PublicKey<'_>, String> {
    let (outer, rest) = read_universal(spki, Tag::Sequence, "subjectPublicKeyInfo")?;
    end(rest, "subjectPublicKeyInfo")?;
    let (algorithm, rest) =
        read_universal(outer.content(), Tag::Sequence, "subjectPublicKeyInfo algorithm")?;
    let (bits, _) = read_universal(rest, Tag::BitString, "subjectPublicKeyInfo subjectPublicKey")?;
    let key = octet_aligned_bits(&bits, "subjectPublicKey")?;

    let (oid, params) = read_oid(algorithm.content(), "subjectPublicKeyInfo algorithm")?;
    let params = if params.is_empty() {
        None
    } else {
        Some(read(params, "subjectPublicKeyInfo algorithm parameters")?.0)
    };
    match oid.as_str() {
        RSA_ENCRYPTION => rsa(key, params.as_ref()),
        EC_PUBLIC_KEY => ecdsa(key, params.as_ref()),
        ED25519 => ed25519(key, params.as_ref()),
        _ => Ok(PublicKey::Other { oid }),
    }
}

fn rsa<'a>(key: &'a [u8], params: Option<&Element<'_>>) -> Result<PublicKey<'a>, String> {
    if !params.is_some_and(|p| p.is_universal_primitive(Tag::Null) && p.content().is_empty()) {
        return Err("RSA key algorithm parameters must be NULL".to_string());
    }
    let (sequence, rest) = read_universal(key, Tag::Sequence, "RSA public key")?;
    end(rest, "RSA public key")?;
    let (modulus, rest) = read_universal(sequence.content(), Tag::Integer, "RSA modulus")?;
    let (exponent, _) = read_universal(rest, Tag::Integer, "RSA public exponent")?;
    let modulus = positive_integer(modulus.content(), "RSA modulus")?;
    positive_integer(exponent.content(), "RSA public exponent")?;
    let bits = match modulus.first() {
        Some(first) => modulus.len() * 8 - first.leading_zeros() as usize,
        None => 0,
    };
    Ok(PublicKey::Rsa { der: key, bits })
}

fn ecdsa<'a>(point: &'a [u8], params: Option<&Element<'_>>) -> Result<PublicKey<'a>, String> {
    let curve_oid = match params {
        Some(p) if p.is_universal_primitive(Tag::Oid) => {
            crate::der::oid_string(p.content(), "ECDSA curve")?
        }
        _ => return Err("ECDSA key parameters must name a curve".to_string()),
    };
    let curve = Curve::from_oid(&curve_oid)
        .ok_or_else(|| format!("unsupported elliptic curve {curve_oid}"))?;
    let coordinate_len = curve.bits().div_ceil(8);
    let well_formed = point.first() == Some(&0x04) && point.len() == 1 + 2 * coordinate_len;
    if !well_formed {
        return Err(format!(
            "{} point is not an uncompressed point of {} bytes",
            curve.name(),
            1 + 2 * coordinate_len
        ));
    }
    Ok(PublicKey::Ecdsa { curve, point })
}

fn ed25519<'a>(key: &'a [u8], params: Option<&Element<'_>>) -> Result<PublicKey<'a>, String> {
    if params.is_some() {
        return Err("Ed25519 key must not have algorithm parameters".to_string());
    }
    if key.len() != 32 {
        return Err(format!("Ed25519 key is {} bytes, expected 32", key.len()));
    }
    Ok(PublicKey::Ed25519 { key })
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::der::tlv;

    fn spki(algorithm: &[u8], key: &[u8]) -> Vec<u8> {
        let mut bits = vec![0];
        bits.extend_from_slice(key);
        tlv(0x30, &[tlv(0x30, algorithm), tlv(0x03, &bits)].concat())
    }

    const RSA_OID: &[u8] = &[0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01];

    fn rsa_key(modulus: &[u8]) -> Vec<u8> {
        tlv(0x30, &[tlv(0x02, modulus), tlv(0x02, &[1, 0, 1])].concat())
    }

    #[test]
    fn rsa_size_is_modulus_bit_length() {
        let mut modulus = vec![0x00, 0x80];
        modulus.extend(vec![0; 255]);
        let der = spki(&[RSA_OID, &[0x05, 0x00]].concat(), &rsa_key(&modulus));
        let key = parse_spki(&der).unwrap();
        assert_eq!(key.info(), PublicKeyInfo { algorithm: KeyAlgorithm::Rsa, size: 2048 });
        // A modulus whose top byte is 0x01 has 1 significant bit in it.
        let der = spki(&[RSA_OID, &[0x05, 0x00]].concat(), &rsa_key(&[0x01, 0xff]));
        assert_eq!(parse_spki(&der).unwrap().info().size, 9);
    }

    #[test]
    fn rsa_rules_from_go() {
        let der = spki(RSA_OID, &rsa_key(&[0x01]));
        assert_eq!(parse_spki(&der).unwrap_err(), "RSA key algorithm parameters must be NULL");
        let der = spki(&[RSA_OID, &[0x05, 0x00]].concat(), &rsa_key(&[0x80]));
        assert_eq!(parse_spki(&der).unwrap_err(), "RSA modulus is not a positive number");
        let der = spki(&[RSA_OID, &[0x05, 0x00]].concat(), &rsa_key(&[0x00, 0x01]));
        assert_eq!(parse_spki(&der).unwrap_err(), "RSA modulus is not minimally encoded");
    }

    #[test]
    fn ec_curves_and_points() {
        let ec = [0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01];
        let p384 = [0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x22];
        let mut point = vec![0x04];
        point.extend(vec![7; 96]);
        let der = spki(&[&ec[..], &p384].concat(), &point);
        let key = parse_spki(&der).unwrap();
        assert_eq!(key.info(), PublicKeyInfo { algorithm: KeyAlgorithm::Ecdsa, size: 384 });
        assert_eq!(
            parse_spki(&spki(&[&ec[..], &p384].concat(), &point[..50])).unwrap_err(),
            "P-384 point is not an uncompressed point of 97 bytes"
        );
        let secp256k1 = [0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x0a];
        assert_eq!(
            parse_spki(&spki(&[&ec[..], &secp256k1].concat(), &point)).unwrap_err(),
            "unsupported elliptic curve 1.3.132.0.10"
        );
    }

    #[test]
    fn ed25519_and_other_keys() {
        let ed = [0x06, 0x03, 0x2b, 0x65, 0x70];
        let der = spki(&ed, &[9; 32]);
        let key = parse_spki(&der).unwrap();
        assert_eq!(key.info(), PublicKeyInfo { algorithm: KeyAlgorithm::Ed25519, size: -1 });
        assert_eq!(
            parse_spki(&spki(&ed, &[9; 31])).unwrap_err(),
            "Ed25519 key is 31 bytes, expected 32"
        );
        let x25519 = [0x06, 0x03, 0x2b, 0x65, 0x6e];
        let der = spki(&x25519, &[9; 32]);
        let key = parse_spki(&der).unwrap();
        assert_eq!(
            key.info(),
            PublicKeyInfo { algorithm: KeyAlgorithm::Other("1.3.101.110".into()), size: 0 }
        );
    }
}
