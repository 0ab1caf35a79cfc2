//! CRL signature algorithms and their verification with `ring`. rustls-webpki keeps its CRL
//! signature check private, and x509-parser's needs a fully parsed CRL (one object per entry),
//! so the check is done here on the raw `tbsCertList` bytes.

use ring::signature::{self, UnparsedPublicKey, VerificationAlgorithm};
use serde::Serialize;

use crate::der::{self, Reader};

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

/// Verifies `signature` over `message` with the key in the DER SubjectPublicKeyInfo `spki`.
pub(crate) fn verify(
    alg: &SignatureAlgorithm,
    spki: &[u8],
    message: &[u8],
    signature: &[u8],
) -> Result<(), String> {
    let (key_oid, key_param, key) =
        read_spki(spki).ok_or("the issuer's public key does not parse")?;
    let ring_alg: &'static dyn VerificationAlgorithm = match (alg, key_oid, key_param) {
        (SignatureAlgorithm::RsaPkcs1Sha1, RSA_KEY, _) => {
            &signature::RSA_PKCS1_2048_8192_SHA1_FOR_LEGACY_USE_ONLY
        }
        (SignatureAlgorithm::RsaPkcs1Sha256, RSA_KEY, _) => &signature::RSA_PKCS1_2048_8192_SHA256,
        (SignatureAlgorithm::RsaPkcs1Sha384, RSA_KEY, _) => &signature::RSA_PKCS1_2048_8192_SHA384,
        (SignatureAlgorithm::RsaPkcs1Sha512, RSA_KEY, _) => &signature::RSA_PKCS1_2048_8192_SHA512,
        (SignatureAlgorithm::EcdsaSha256, EC_KEY, Some(P256)) => &signature::ECDSA_P256_SHA256_ASN1,
        (SignatureAlgorithm::EcdsaSha384, EC_KEY, Some(P256)) => &signature::ECDSA_P256_SHA384_ASN1,
        (SignatureAlgorithm::EcdsaSha256, EC_KEY, Some(P384)) => &signature::ECDSA_P384_SHA256_ASN1,
        (SignatureAlgorithm::EcdsaSha384, EC_KEY, Some(P384)) => &signature::ECDSA_P384_SHA384_ASN1,
        (SignatureAlgorithm::Ed25519, ED25519, _) => &signature::ED25519,
        (SignatureAlgorithm::Other(oid), _, _) => {
            return Err(format!("signature algorithm {oid} is not supported by certgate"));
        }
        (alg, _, _) => {
            return Err(format!(
                "a {alg} signature cannot come from the issuer's {} key",
                key_kind(key_oid)
            ));
        }
    };
    UnparsedPublicKey::new(ring_alg, key)
        .verify(message, signature)
        .map_err(|_| "the signature does not match the issuer's public key".to_string())
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
