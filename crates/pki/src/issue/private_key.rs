//! Private keys as cert-manager stores them in `tls.key` (`pki.DecodePrivateKeyBytes`): the
//! first PEM block, `RSA PRIVATE KEY` (PKCS#1), `EC PRIVATE KEY` (SEC1) or `PRIVATE KEY`
//! (PKCS#8 with RSA, ECDSA or Ed25519), read with Go's rules and texts, and loaded into the
//! signer that will use it (ring; the `p521` crate for P-521, which ring lacks).

use std::fmt;

use asn1_rs::Tag;
use ring::rand::SystemRandom;
use ring::signature::{
    ECDSA_P256_SHA256_ASN1_SIGNING, ECDSA_P384_SHA384_ASN1_SIGNING, EcdsaKeyPair, Ed25519KeyPair,
    KeyPair as _, RsaKeyPair,
};

use super::PrivateKeyError;
use super::asn1::{bit_string, sequence, unsigned_integer};
use crate::der::{Element, oid_string, positive_integer, read, read_oid, read_universal};
use crate::pem;

/// cert-manager's size limit for a PEM private key (`maxPrivateKeyPEMSize` in internal/pem).
pub const MAX_PRIVATE_KEY_PEM_BYTES: usize = 13_000;

const RSA_ENCRYPTION: &str = "1.2.840.113549.1.1.1";
const EC_PUBLIC_KEY: &str = "1.2.840.10045.2.1";
const ED25519: &str = "1.3.101.112";
const X25519: &str = "1.3.101.110";

/// RSA moduli ring signs with.
const RING_RSA_BITS: std::ops::RangeInclusive<usize> = 2048..=4096;

/// The NIST curves Go reads private keys for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Curve {
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

    fn oid_der(self) -> &'static [u8] {
        match self {
            Curve::P224 => &[0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x21],
            Curve::P256 => &[0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07],
            Curve::P384 => &[0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x22],
            Curve::P521 => &[0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x23],
        }
    }

    fn name(self) -> &'static str {
        match self {
            Curve::P224 => "P-224",
            Curve::P256 => "P-256",
            Curve::P384 => "P-384",
            Curve::P521 => "P-521",
        }
    }

    /// Bytes of a private scalar (the order's length).
    fn scalar_len(self) -> usize {
        match self {
            Curve::P224 => 28,
            Curve::P256 => 32,
            Curve::P384 => 48,
            Curve::P521 => 66,
        }
    }
}

/// A parsed private key, ready to sign. `Debug` shows the key type only.
pub struct PrivateKey {
    pub(super) kind: Kind,
    /// The SubjectPublicKeyInfo Go would marshal for the public half; `None` only for a P-224
    /// key stored without its public point (ring cannot derive it; such a key cannot sign).
    pub(super) spki: Option<Vec<u8>>,
}

pub(super) enum Kind {
    Rsa {
        /// `None` when ring cannot sign with a modulus this size.
        pair: Option<RsaKeyPair>,
        /// Modulus bytes times 8 (Go's `Size() * 8`, which picks the digest).
        size_bits: usize,
        /// Significant bits of the modulus.
        modulus_bits: usize,
    },
    Ecdsa {
        curve: Curve,
        signer: EcSigner,
    },
    Ed25519(Ed25519KeyPair),
}

pub(super) enum EcSigner {
    Ring(Box<EcdsaKeyPair>),
    P521(Box<p521::ecdsa::SigningKey>),
    /// P-224: Go reads it, but cert-manager will not sign with it.
    None,
}

impl PrivateKey {
    /// The key type, e.g. `RSA 2048`, `ECDSA P-256`, `Ed25519`.
    pub fn algorithm(&self) -> String {
        match &self.kind {
            Kind::Rsa { modulus_bits, .. } => format!("RSA {modulus_bits}"),
            Kind::Ecdsa { curve, .. } => format!("ECDSA {}", curve.name()),
            Kind::Ed25519(_) => "Ed25519".to_string(),
        }
    }

    /// The DER SubjectPublicKeyInfo of the public half, when known.
    pub fn public_key_info(&self) -> Option<&[u8]> {
        self.spki.as_deref()
    }
}

impl fmt::Debug for PrivateKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PrivateKey").field("algorithm", &self.algorithm()).finish_non_exhaustive()
    }
}

/// Reads `tls.key` as cert-manager does.
pub fn parse_private_key(input: &[u8]) -> Result<PrivateKey, PrivateKeyError> {
    if input.len() > MAX_PRIVATE_KEY_PEM_BYTES {
        return Err(PrivateKeyError::TooLarge { limit: MAX_PRIVATE_KEY_PEM_BYTES });
    }
    let (block, _) = pem::decode(input).ok_or(PrivateKeyError::NoPem)?;
    match block.label {
        b"PRIVATE KEY" => pkcs8(&block.der).map_err(|reason| PrivateKeyError::Pkcs8 { reason }),
        b"EC PRIVATE KEY" => {
            sec1(&block.der, None).map_err(|reason| PrivateKeyError::Ec { reason })
        }
        b"RSA PRIVATE KEY" => pkcs1(&block.der).map_err(|reason| PrivateKeyError::Rsa { reason }),
        _ => Err(PrivateKeyError::UnknownType { label: block.label_lossy() }),
    }
}

/// What a DER key that failed to parse as the expected format looks like instead, for Go's
/// "use ParseXXX instead" hints.
#[derive(PartialEq)]
enum Shape {
    Pkcs8,
    Sec1,
    Pkcs1,
    Other,
}

fn shape(der: &[u8]) -> Shape {
    let Ok((outer, _)) = read_universal(der, Tag::Sequence, "key") else {
        return Shape::Other;
    };
    let mut tags = Vec::new();
    let mut rest = outer.content();
    while !rest.is_empty() && tags.len() < 9 {
        let Ok((element, next)) = read(rest, "key") else { break };
        tags.push(if element.is_universal() { element.tag_number() } else { 0x80 });
        rest = next;
    }
    match tags.as_slice() {
        [2, 0x10, 4, ..] => Shape::Pkcs8,
        [2, 4, ..] => Shape::Sec1,
        [2, 2, 2, 2, 2, 2, ..] => Shape::Pkcs1,
        _ => Shape::Other,
    }
}

fn hint(der: &[u8], candidates: &[Shape]) -> Option<String> {
    let found = shape(der);
    let name = match found {
        Shape::Pkcs8 => "ParsePKCS8PrivateKey",
        Shape::Sec1 => "ParseECPrivateKey",
        Shape::Pkcs1 => "ParsePKCS1PrivateKey",
        Shape::Other => return None,
    };
    candidates.contains(&found).then(|| {
        format!("x509: failed to parse private key (use {name} instead for this key format)")
    })
}

/// PrivateKeyInfo ::= SEQUENCE { version, privateKeyAlgorithm, privateKey OCTET STRING, ... }
fn pkcs8(der: &[u8]) -> Result<PrivateKey, String> {
    let parts = pkcs8_parts(der).map_err(|reason| {
        hint(der, &[Shape::Sec1, Shape::Pkcs1]).unwrap_or(format!("asn1: {reason}"))
    })?;
    let (algorithm, parameters, inner) = parts;
    match algorithm.as_str() {
        RSA_ENCRYPTION => pkcs1(inner)
            .map_err(|e| format!("x509: failed to parse RSA private key embedded in PKCS#8: {e}")),
        EC_PUBLIC_KEY => {
            let curve = parameters
                .filter(|p| p.is_universal_primitive(Tag::Oid))
                .and_then(|p| oid_string(p.content(), "curve").ok());
            sec1(inner, curve.as_deref().map(|oid| Curve::from_oid(oid).ok_or(()))).map_err(|e| {
                format!("x509: failed to parse EC private key embedded in PKCS#8: {e}")
            })
        }
        ED25519 => {
            if parameters.is_some() {
                return Err("x509: invalid Ed25519 private key parameters".to_string());
            }
            let (seed, _) = read_universal(inner, Tag::OctetString, "curvePrivateKey")
                .map_err(|e| format!("x509: invalid Ed25519 private key: asn1: {e}"))?;
            let seed = seed.content();
            if seed.len() != 32 {
                return Err(format!("x509: invalid Ed25519 private key length: {}", seed.len()));
            }
            let pair = Ed25519KeyPair::from_seed_unchecked(seed)
                .map_err(|e| format!("x509: invalid Ed25519 private key: {e}"))?;
            let spki =
                spki(&[0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70], pair.public_key().as_ref());
            Ok(PrivateKey { kind: Kind::Ed25519(pair), spki: Some(spki) })
        }
        // An X25519 key parses in Go but cannot sign.
        X25519 => Err("invalid key type".to_string()),
        other => Err(format!(
            "x509: PKCS#8 wrapping contained private key with unknown algorithm: {other}"
        )),
    }
}

type Pkcs8Parts<'a> = (String, Option<Element<'a>>, &'a [u8]);

fn pkcs8_parts(der: &[u8]) -> Result<Pkcs8Parts<'_>, String> {
    let (outer, _) = read_universal(der, Tag::Sequence, "PrivateKeyInfo")?;
    let (_version, rest) = read_universal(outer.content(), Tag::Integer, "version")?;
    let (algorithm, rest) = read_universal(rest, Tag::Sequence, "privateKeyAlgorithm")?;
    let (key, _) = read_universal(rest, Tag::OctetString, "privateKey")?;
    let (oid, parameters) = read_oid(algorithm.content(), "privateKeyAlgorithm algorithm")?;
    let parameters = if parameters.is_empty() {
        None
    } else {
        Some(read(parameters, "privateKeyAlgorithm parameters")?.0)
    };
    Ok((oid, parameters, key.content()))
}

/// ECPrivateKey ::= SEQUENCE { version 1, privateKey OCTET STRING,
///   parameters [0] EXPLICIT OID OPTIONAL, publicKey [1] EXPLICIT BIT STRING OPTIONAL }.
/// `pkcs8_curve` is the curve named by a PKCS#8 wrapper (it wins, as in Go); `Err(())` when
/// that wrapper named a curve Go does not know.
fn sec1(der: &[u8], pkcs8_curve: Option<Result<Curve, ()>>) -> Result<PrivateKey, String> {
    let (version, scalar, named, public) = sec1_parts(der).map_err(|reason| {
        hint(der, &[Shape::Pkcs8, Shape::Pkcs1])
            .unwrap_or(format!("x509: failed to parse EC private key: asn1: {reason}"))
    })?;
    if version != [1] {
        let version = version.iter().fold(0i128, |v, b| (v << 8) | i128::from(*b));
        return Err(format!("x509: unknown EC private key version {version}"));
    }
    let curve = match pkcs8_curve {
        Some(curve) => curve.ok(),
        None => named.as_deref().and_then(Curve::from_oid),
    };
    let curve = curve.ok_or_else(|| "x509: unknown elliptic curve".to_string())?;
    // Go tolerates leading zero bytes and missing leading zeros.
    let mut scalar = scalar;
    while scalar.len() > curve.scalar_len() {
        match scalar.split_first() {
            Some((0, rest)) => scalar = rest,
            _ => return Err("x509: invalid private key length".to_string()),
        }
    }
    let mut padded = vec![0u8; curve.scalar_len() - scalar.len()];
    padded.extend_from_slice(scalar);
    ec_key(curve, &padded, public)
}

type Sec1Parts<'a> = (&'a [u8], &'a [u8], Option<String>, Option<&'a [u8]>);

fn sec1_parts(der: &[u8]) -> Result<Sec1Parts<'_>, String> {
    let (outer, _) = read_universal(der, Tag::Sequence, "ECPrivateKey")?;
    let (version, rest) = read_universal(outer.content(), Tag::Integer, "version")?;
    let (scalar, mut rest) = read_universal(rest, Tag::OctetString, "privateKey")?;
    let mut named = None;
    let mut public = None;
    while !rest.is_empty() {
        let (element, next) = read(rest, "ECPrivateKey")?;
        rest = next;
        if !element.is_context_specific() {
            continue;
        }
        match element.tag_number() {
            0 => named = Some(read_oid(element.content(), "parameters")?.0),
            1 => {
                let (bits, _) = read_universal(element.content(), Tag::BitString, "publicKey")?;
                public = Some(crate::der::octet_aligned_bits(&bits, "publicKey")?);
            }
            _ => {}
        }
    }
    Ok((version.content(), scalar.content(), named, public))
}

fn ec_key(curve: Curve, scalar: &[u8], public: Option<&[u8]>) -> Result<PrivateKey, String> {
    let invalid = || "x509: invalid elliptic curve private key value".to_string();
    let (signer, point) = match curve {
        Curve::P256 | Curve::P384 => {
            let algorithm = if curve == Curve::P256 {
                &ECDSA_P256_SHA256_ASN1_SIGNING
            } else {
                &ECDSA_P384_SHA384_ASN1_SIGNING
            };
            let public = public.ok_or_else(|| {
                "EC private key has no public key; certgate needs keys written with their \
                 public key (as Go, cert-manager and OpenSSL write them)"
                    .to_string()
            })?;
            let pair = EcdsaKeyPair::from_private_key_and_public_key(
                algorithm,
                scalar,
                public,
                &SystemRandom::new(),
            )
            .map_err(|_| {
                "x509: invalid elliptic curve private key value, or a public key that is not \
                 its own"
                    .to_string()
            })?;
            let point = pair.public_key().as_ref().to_vec();
            (EcSigner::Ring(Box::new(pair)), Some(point))
        }
        Curve::P521 => {
            let key = p521::ecdsa::SigningKey::from_slice(scalar).map_err(|_| invalid())?;
            let point = key.verifying_key().to_sec1_point(false).as_bytes().to_vec();
            (EcSigner::P521(Box::new(key)), Some(point))
        }
        Curve::P224 => (EcSigner::None, public.map(<[u8]>::to_vec)),
    };
    let algorithm =
        [&[0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01][..], curve.oid_der()].concat();
    let spki = point.map(|point| spki(&crate::der::tlv(0x30, &algorithm), &point));
    Ok(PrivateKey { kind: Kind::Ecdsa { curve, signer }, spki })
}

/// RSAPrivateKey ::= SEQUENCE { version, n, e, d, p, q, dp, dq, qinv, otherPrimeInfos OPT }.
fn pkcs1(der: &[u8]) -> Result<PrivateKey, String> {
    let (n, e) = pkcs1_public(der)
        .map_err(|reason| hint(der, &[Shape::Sec1, Shape::Pkcs8]).unwrap_or(reason))?;
    let modulus_bits = n.len() * 8 - n.first().map_or(8, |b| b.leading_zeros() as usize);
    let pair = if RING_RSA_BITS.contains(&modulus_bits) {
        Some(RsaKeyPair::from_der(der).map_err(|e| {
            format!(
                "crypto/rsa: the key does not validate ({e}); certgate signs with two-prime \
                     keys whose public exponent is at least 65537"
            )
        })?)
    } else {
        None
    };
    let rsa_public = sequence(&[&unsigned_integer(n), &unsigned_integer(e)]);
    let algorithm =
        [0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00];
    Ok(PrivateKey {
        kind: Kind::Rsa { pair, size_bits: n.len() * 8, modulus_bits },
        spki: Some(spki(&algorithm, &rsa_public)),
    })
}

/// The modulus and public exponent magnitudes, after Go's structural checks.
fn pkcs1_public(der: &[u8]) -> Result<(&[u8], &[u8]), String> {
    let (outer, trailing) =
        read_universal(der, Tag::Sequence, "RSAPrivateKey").map_err(|e| format!("asn1: {e}"))?;
    if !trailing.is_empty() {
        return Err("asn1: syntax error: trailing data".to_string());
    }
    let mut rest = outer.content();
    let mut fields = Vec::new();
    for name in ["version", "n", "e", "d", "p", "q", "dp", "dq", "qinv"] {
        if rest.is_empty() && fields.len() >= 6 {
            break; // dp, dq and qinv are optional in Go's structure.
        }
        let (element, next) =
            read_universal(rest, Tag::Integer, name).map_err(|e| format!("asn1: {e}"))?;
        fields.push(element.content());
        rest = next;
    }
    let version = fields.first().copied().unwrap_or_default();
    if !(version == [0] || version == [1]) {
        return Err("x509: unsupported private key version".to_string());
    }
    let mut magnitudes = Vec::new();
    for (index, content) in fields.iter().enumerate().skip(1) {
        let magnitude = positive_integer(content, "value")
            .map_err(|_| "x509: private key contains zero or negative value".to_string())?;
        if index == 2 && magnitude.len() > 8 {
            return Err("asn1: structure error: integer too large".to_string());
        }
        magnitudes.push(magnitude);
    }
    match magnitudes.as_slice() {
        [n, e, ..] => Ok((n, e)),
        _ => Err("asn1: structure error: RSAPrivateKey is truncated".to_string()),
    }
}

/// SubjectPublicKeyInfo from a full AlgorithmIdentifier encoding and the key bytes.
fn spki(algorithm: &[u8], key: &[u8]) -> Vec<u8> {
    sequence(&[algorithm, &bit_string(key)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::der::tlv;

    #[test]
    fn labels_and_sizes_are_cert_managers() {
        let big = vec![b'x'; MAX_PRIVATE_KEY_PEM_BYTES + 1];
        assert_eq!(
            parse_private_key(&big).unwrap_err().to_string(),
            "error decoding private key PEM block: provided PEM data was larger than the maximum 13000B"
        );
        assert_eq!(
            parse_private_key(b"nothing").unwrap_err().to_string(),
            "error decoding private key PEM block: no PEM data was found in given input"
        );
        let dsa = crate::pem::encode("DSA PRIVATE KEY", &[0x30, 0x00]);
        assert_eq!(
            parse_private_key(dsa.as_bytes()).unwrap_err().to_string(),
            "unknown private key type: DSA PRIVATE KEY"
        );
    }

    #[test]
    fn wrong_format_hints() {
        // A SEC1-shaped body under the PKCS#8 label, and the other way round.
        let sec1 = tlv(0x30, &[tlv(0x02, &[1]), tlv(0x04, &[1; 32])].concat());
        let pem8 = crate::pem::encode("PRIVATE KEY", &sec1);
        assert_eq!(
            parse_private_key(pem8.as_bytes()).unwrap_err().to_string(),
            "error parsing pkcs#8 private key: x509: failed to parse private key (use ParseECPrivateKey instead for this key format)"
        );
        let ed = tlv(
            0x30,
            &[
                tlv(0x02, &[0]),
                tlv(0x30, &tlv(0x06, &[0x2b, 0x65, 0x70])),
                tlv(0x04, &tlv(0x04, &[7; 32])),
            ]
            .concat(),
        );
        let pem1 = crate::pem::encode("EC PRIVATE KEY", &ed);
        assert_eq!(
            parse_private_key(pem1.as_bytes()).unwrap_err().to_string(),
            "error parsing ecdsa private key: x509: failed to parse private key (use ParsePKCS8PrivateKey instead for this key format)"
        );
    }

    #[test]
    fn ed25519_pkcs8_rules() {
        let key = |params: &[u8], inner: Vec<u8>| {
            let algorithm = tlv(0x30, &[&[0x06, 0x03, 0x2b, 0x65, 0x70][..], params].concat());
            let der = tlv(0x30, &[tlv(0x02, &[0]), algorithm, tlv(0x04, &inner)].concat());
            parse_private_key(crate::pem::encode("PRIVATE KEY", &der).as_bytes())
        };
        let parsed = key(&[], tlv(0x04, &[7; 32])).unwrap();
        assert_eq!(parsed.algorithm(), "Ed25519");
        assert_eq!(parsed.public_key_info().unwrap().len(), 44);
        assert_eq!(
            key(&[0x05, 0x00], tlv(0x04, &[7; 32])).unwrap_err().to_string(),
            "error parsing pkcs#8 private key: x509: invalid Ed25519 private key parameters"
        );
        assert_eq!(
            key(&[], tlv(0x04, &[7; 31])).unwrap_err().to_string(),
            "error parsing pkcs#8 private key: x509: invalid Ed25519 private key length: 31"
        );
    }

    #[test]
    fn ec_versions_and_curves() {
        let sec1 = |version: u8, curve: &[u8]| {
            let body =
                [tlv(0x02, &[version]), tlv(0x04, &[1; 32]), tlv(0xa0, &tlv(0x06, curve))].concat();
            let der = tlv(0x30, &body);
            parse_private_key(crate::pem::encode("EC PRIVATE KEY", &der).as_bytes())
        };
        let p256 = [0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07];
        assert_eq!(
            sec1(2, &p256).unwrap_err().to_string(),
            "error parsing ecdsa private key: x509: unknown EC private key version 2"
        );
        let secp256k1 = [0x2b, 0x81, 0x04, 0x00, 0x0a];
        assert_eq!(
            sec1(1, &secp256k1).unwrap_err().to_string(),
            "error parsing ecdsa private key: x509: unknown elliptic curve"
        );
        assert!(sec1(1, &p256).unwrap_err().to_string().contains("has no public key"));
    }

    #[test]
    fn rsa_structure_rules() {
        let int = |v: &[u8]| tlv(0x02, v);
        let key = |fields: Vec<Vec<u8>>| {
            let der = tlv(0x30, &fields.concat());
            parse_private_key(crate::pem::encode("RSA PRIVATE KEY", &der).as_bytes())
        };
        let mut fields: Vec<Vec<u8>> = (0..9).map(|_| int(&[5])).collect();
        fields[0] = int(&[2]);
        assert_eq!(
            key(fields.clone()).unwrap_err().to_string(),
            "error parsing rsa private key: x509: unsupported private key version"
        );
        fields[0] = int(&[0]);
        fields[4] = int(&[0]);
        assert_eq!(
            key(fields.clone()).unwrap_err().to_string(),
            "error parsing rsa private key: x509: private key contains zero or negative value"
        );
        // A tiny key parses (Go reads it) but ring cannot load it: signing will refuse.
        fields[4] = int(&[5]);
        let small = key(fields).unwrap();
        assert!(matches!(small.kind, Kind::Rsa { pair: None, size_bits: 8, modulus_bits: 3 }));
    }
}
