//! CRL signature algorithms and their verification. rustls-webpki keeps its CRL signature
//! check private, and x509-parser's needs a fully parsed CRL (one object per entry), so the
//! raw `tbsCertList` bytes are handed to `certgate-pki`'s verifier here.

use certgate_pki::der::{self, Reader};
use certgate_pki::signature::{self, Curve, Hash, Policy, PublicKey, Scheme, VerifyError};
use serde::Serialize;

/// The signature algorithm a CRL names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "name", content = "oid")]
pub enum SignatureAlgorithm {
    RsaPkcs1Sha1,
    RsaPkcs1Sha256,
    RsaPkcs1Sha384,
    RsaPkcs1Sha512,
    EcdsaSha256,
    EcdsaSha384,
    Ed25519,
    /// Anything else, e.g. RSA-PSS; shown by dotted OID. Such CRLs cannot be verified here.
    Other(String),
}

impl std::fmt::Display for SignatureAlgorithm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SignatureAlgorithm::RsaPkcs1Sha1 => f.write_str("sha1WithRSAEncryption"),
            SignatureAlgorithm::RsaPkcs1Sha256 => f.write_str("sha256WithRSAEncryption"),
            SignatureAlgorithm::RsaPkcs1Sha384 => f.write_str("sha384WithRSAEncryption"),
            SignatureAlgorithm::RsaPkcs1Sha512 => f.write_str("sha512WithRSAEncryption"),
            SignatureAlgorithm::EcdsaSha256 => f.write_str("ecdsa-with-SHA256"),
            SignatureAlgorithm::EcdsaSha384 => f.write_str("ecdsa-with-SHA384"),
            SignatureAlgorithm::Ed25519 => f.write_str("Ed25519"),
            SignatureAlgorithm::Other(oid) => write!(f, "unsupported algorithm {oid}"),
        }
    }
}

const RSA_SHA1: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x05];
const RSA_SHA256: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0b];
const RSA_SHA384: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0c];
const RSA_SHA512: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0d];
const ECDSA_SHA256: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02];
const ECDSA_SHA384: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x03];
const ED25519: &[u8] = &[0x2b, 0x65, 0x70];
const RSA_KEY: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01];
const EC_KEY: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01];
const P256: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07];
const P384: &[u8] = &[0x2b, 0x81, 0x04, 0x00, 0x22];

/// Reads the algorithm OID of a DER AlgorithmIdentifier.
pub(crate) fn classify(alg_id: &[u8]) -> SignatureAlgorithm {
    let oid = Reader::new(alg_id)
        .read(der::SEQUENCE)
        .and_then(|seq| Reader::nested(&seq).read(der::OID))
        .map(|t| t.content)
        .unwrap_or_default();
    match oid {
        RSA_SHA1 => SignatureAlgorithm::RsaPkcs1Sha1,
        RSA_SHA256 => SignatureAlgorithm::RsaPkcs1Sha256,
        RSA_SHA384 => SignatureAlgorithm::RsaPkcs1Sha384,
        RSA_SHA512 => SignatureAlgorithm::RsaPkcs1Sha512,
        ECDSA_SHA256 => SignatureAlgorithm::EcdsaSha256,
        ECDSA_SHA384 => SignatureAlgorithm::EcdsaSha384,
        ED25519 => SignatureAlgorithm::Ed25519,
        other => SignatureAlgorithm::Other(crate::oid::dotted(other)),
    }
}

/// Verifies `signature` over `message` with the key in the DER SubjectPublicKeyInfo `spki`,
/// with `certgate-pki`'s verifier under [`Policy::Ring`] (ring's standard verifiers, as
/// rustls-webpki uses them). The key is split leniently here, so that only keys `ring` itself
/// refuses fail as a wrong signature, and the messages are this crate's.
pub(crate) fn verify(
    alg: &SignatureAlgorithm,
    spki: &[u8],
    message: &[u8],
    signature: &[u8],
) -> Result<(), String> {
    let (key_oid, key_param, key) =
        read_spki(spki).ok_or("the issuer's public key does not parse")?;
    let scheme = match alg {
        SignatureAlgorithm::RsaPkcs1Sha1 => Scheme::RsaPkcs1(Hash::Sha1),
        SignatureAlgorithm::RsaPkcs1Sha256 => Scheme::RsaPkcs1(Hash::Sha256),
        SignatureAlgorithm::RsaPkcs1Sha384 => Scheme::RsaPkcs1(Hash::Sha384),
        SignatureAlgorithm::RsaPkcs1Sha512 => Scheme::RsaPkcs1(Hash::Sha512),
        SignatureAlgorithm::EcdsaSha256 => Scheme::Ecdsa(Hash::Sha256),
        SignatureAlgorithm::EcdsaSha384 => Scheme::Ecdsa(Hash::Sha384),
        SignatureAlgorithm::Ed25519 => Scheme::Ed25519,
        SignatureAlgorithm::Other(oid) => {
            return Err(format!("signature algorithm {oid} is not supported by certgate"));
        }
    };
    let public_key = match (key_oid, key_param) {
        // The modulus size is ring's to check under this policy.
        (RSA_KEY, _) => Some(PublicKey::Rsa { der: key, bits: 0 }),
        (EC_KEY, Some(P256)) => Some(PublicKey::Ecdsa { curve: Curve::P256, point: key }),
        (EC_KEY, Some(P384)) => Some(PublicKey::Ecdsa { curve: Curve::P384, point: key }),
        (ED25519, _) => Some(PublicKey::Ed25519 { key }),
        _ => None,
    };
    let cannot_come_from =
        || format!("a {alg} signature cannot come from the issuer's {} key", key_kind(key_oid));
    let public_key = public_key.ok_or_else(cannot_come_from)?;
    signature::verify(Policy::Ring, scheme, &public_key, message, signature).map_err(|e| match e {
        VerifyError::Invalid => "the signature does not match the issuer's public key".to_string(),
        VerifyError::WrongKey { .. } | VerifyError::Unsupported(_) => cannot_come_from(),
    })
}

fn key_kind(oid: &[u8]) -> &'static str {
    match oid {
        RSA_KEY => "RSA",
        EC_KEY => "EC",
        ED25519 => "Ed25519",
        _ => "unsupported",
    }
}

/// (algorithm OID, optional OID parameter such as the curve, key bits).
type SpkiParts<'a> = (&'a [u8], Option<&'a [u8]>, &'a [u8]);

/// Splits a DER SubjectPublicKeyInfo.
fn read_spki(spki: &[u8]) -> Option<SpkiParts<'_>> {
    let seq = Reader::new(spki).read(der::SEQUENCE).ok()?;
    let mut r = Reader::nested(&seq);
    let alg = r.read(der::SEQUENCE).ok()?;
    let mut a = Reader::nested(&alg);
    let oid = a.read(der::OID).ok()?.content;
    let param = a.read_optional(der::OID).ok()?.map(|t| t.content);
    let bits = r.read(der::BIT_STRING).ok()?.content;
    let (unused, key) = bits.split_first()?;
    (*unused == 0).then_some((oid, param, key))
}
