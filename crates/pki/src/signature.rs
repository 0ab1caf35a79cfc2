//! Self-signature verification. `ring` verifies RSA (PKCS#1 v1.5 and PSS), ECDSA on P-256
//! and P-384 and Ed25519; P-521, which cert-manager uses for `size: 521` keys and `ring`
//! lacks, is verified with the RustCrypto `p521` crate.

use asn1_rs::Tag;
use p521::ecdsa::signature::hazmat::PrehashVerifier as _;
use ring::digest;
use ring::signature::{self as ring_sig, UnparsedPublicKey, VerificationAlgorithm};

use crate::csr::CsrError;
use crate::der::{end, positive_integer, read_universal};
use crate::key::{Curve, PublicKey};
use crate::pss;
use crate::request::Algorithm;

/// Message digests used by the supported signature algorithms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Hash {
    Sha1,
    Sha256,
    Sha384,
    Sha512,
}

impl Hash {
    /// Output length in bytes.
    pub(crate) fn len(self) -> usize {
        match self {
            Hash::Sha1 => 20,
            Hash::Sha256 => 32,
            Hash::Sha384 => 48,
            Hash::Sha512 => 64,
        }
    }
}

/// Signature schemes, as selected by the signature AlgorithmIdentifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scheme {
    RsaPkcs1(Hash),
    RsaPss(Hash),
    Ecdsa(Hash),
    Ed25519,
}

/// Verifies `signature` over `signed` with the request's own key.
pub(crate) fn verify(
    algorithm: &Algorithm<'_>,
    key: &PublicKey<'_>,
    signed: &[u8],
    signature: &[u8],
) -> Result<(), CsrError> {
    let name = display_name(&algorithm.oid);
    let bad = |reason: String| CsrError::BadSignatureAlgorithm { algorithm: name.clone(), reason };
    let Some(scheme) = scheme(algorithm).map_err(&bad)? else {
        return Err(CsrError::UnsupportedSignatureAlgorithm { algorithm: name });
    };
    let verified = match (scheme, key) {
        (Scheme::RsaPkcs1(hash), PublicKey::Rsa { der, bits }) => {
            ring_verify(rsa_pkcs1(hash, *bits).map_err(&bad)?, der, signed, signature)
        }
        (Scheme::RsaPss(hash), PublicKey::Rsa { der, bits }) => {
            ring_verify(rsa_pss(hash, *bits).map_err(&bad)?, der, signed, signature)
        }
        (Scheme::Ecdsa(hash), PublicKey::Ecdsa { curve: Curve::P521, point }) => {
            p521_verify(hash, point, signed, signature).map_err(&bad)?
        }
        (Scheme::Ecdsa(hash), PublicKey::Ecdsa { curve, point }) => {
            ring_verify(ecdsa(hash, *curve).map_err(&bad)?, point, signed, signature)
        }
        (Scheme::Ed25519, PublicKey::Ed25519 { key: bytes }) => {
            ring_verify(&ring_sig::ED25519, bytes, signed, signature)
        }
        (scheme, key) => {
            return Err(bad(format!(
                "it needs {} public key, but the request has {} key",
                scheme.key_kind(),
                with_article(&key.kind())
            )));
        }
    };
    if verified { Ok(()) } else { Err(CsrError::InvalidSignature { algorithm: name }) }
}

impl Scheme {
    fn key_kind(self) -> &'static str {
        match self {
            Scheme::RsaPkcs1(_) | Scheme::RsaPss(_) => "an RSA",
            Scheme::Ecdsa(_) => "an ECDSA",
            Scheme::Ed25519 => "an Ed25519",
        }
    }
}

fn with_article(kind: &str) -> String {
    let vowel = kind.starts_with(['A', 'E', 'I', 'O', 'U', 'R']);
    format!("{} {kind}", if vowel { "an" } else { "a" })
}

/// The scheme an AlgorithmIdentifier selects; `None` for algorithms not supported at all.
fn scheme(algorithm: &Algorithm<'_>) -> Result<Option<Scheme>, String> {
    let scheme = match algorithm.oid.as_str() {
        "1.2.840.113549.1.1.5" | "1.3.14.3.2.29" => Scheme::RsaPkcs1(Hash::Sha1),
        "1.2.840.113549.1.1.11" => Scheme::RsaPkcs1(Hash::Sha256),
        "1.2.840.113549.1.1.12" => Scheme::RsaPkcs1(Hash::Sha384),
        "1.2.840.113549.1.1.13" => Scheme::RsaPkcs1(Hash::Sha512),
        "1.2.840.113549.1.1.10" => Scheme::RsaPss(pss::hash(algorithm.params.as_ref())?),
        "1.2.840.10045.4.1" => Scheme::Ecdsa(Hash::Sha1),
        "1.2.840.10045.4.3.2" => Scheme::Ecdsa(Hash::Sha256),
        "1.2.840.10045.4.3.3" => Scheme::Ecdsa(Hash::Sha384),
        "1.2.840.10045.4.3.4" => Scheme::Ecdsa(Hash::Sha512),
        "1.3.101.112" => {
            if algorithm.params.is_some() {
                return Err("Ed25519 signatures must not have algorithm parameters".to_string());
            }
            Scheme::Ed25519
        }
        _ => return Ok(None),
    };
    Ok(Some(scheme))
}

/// Keys of 2048 bits and more use `ring`'s standard RSA verifiers; 1024 to 2047-bit keys,
/// which Go still verifies, need its legacy ones (which do not exist for SHA-384).
fn rsa_pkcs1(hash: Hash, bits: usize) -> Result<&'static dyn VerificationAlgorithm, String> {
    rsa_bits_supported(bits)?;
    let legacy = bits < 2048;
    Ok(match (hash, legacy) {
        (Hash::Sha1, _) => &ring_sig::RSA_PKCS1_1024_8192_SHA1_FOR_LEGACY_USE_ONLY,
        (Hash::Sha256, true) => &ring_sig::RSA_PKCS1_1024_8192_SHA256_FOR_LEGACY_USE_ONLY,
        (Hash::Sha512, true) => &ring_sig::RSA_PKCS1_1024_8192_SHA512_FOR_LEGACY_USE_ONLY,
        (Hash::Sha384, true) => {
            return Err(format!("SHA-384 with a {bits}-bit RSA key is not supported"));
        }
        (Hash::Sha256, false) => &ring_sig::RSA_PKCS1_2048_8192_SHA256,
        (Hash::Sha384, false) => &ring_sig::RSA_PKCS1_2048_8192_SHA384,
        (Hash::Sha512, false) => &ring_sig::RSA_PKCS1_2048_8192_SHA512,
    })
}

fn rsa_pss(hash: Hash, bits: usize) -> Result<&'static dyn VerificationAlgorithm, String> {
    rsa_bits_supported(bits)?;
    if bits < 2048 {
        return Err(format!("RSA-PSS with a {bits}-bit RSA key is not supported"));
    }
    match hash {
        Hash::Sha256 => Ok(&ring_sig::RSA_PSS_2048_8192_SHA256),
        Hash::Sha384 => Ok(&ring_sig::RSA_PSS_2048_8192_SHA384),
        Hash::Sha512 => Ok(&ring_sig::RSA_PSS_2048_8192_SHA512),
        Hash::Sha1 => Err("RSA-PSS with SHA-1 is not supported".to_string()),
    }
}

fn rsa_bits_supported(bits: usize) -> Result<(), String> {
    if (1024..=8192).contains(&bits) {
        Ok(())
    } else {
        Err(format!("RSA keys of {bits} bits cannot be verified (supported: 1024 to 8192 bits)"))
    }
}

fn ecdsa(hash: Hash, curve: Curve) -> Result<&'static dyn VerificationAlgorithm, String> {
    match (curve, hash) {
        (Curve::P256, Hash::Sha256) => Ok(&ring_sig::ECDSA_P256_SHA256_ASN1),
        (Curve::P256, Hash::Sha384) => Ok(&ring_sig::ECDSA_P256_SHA384_ASN1),
        (Curve::P384, Hash::Sha256) => Ok(&ring_sig::ECDSA_P384_SHA256_ASN1),
        (Curve::P384, Hash::Sha384) => Ok(&ring_sig::ECDSA_P384_SHA384_ASN1),
        _ => Err(unsupported_ecdsa(hash, curve)),
    }
}

fn unsupported_ecdsa(hash: Hash, curve: Curve) -> String {
    let hash = match hash {
        Hash::Sha1 => "SHA-1",
        Hash::Sha256 => "SHA-256",
        Hash::Sha384 => "SHA-384",
        Hash::Sha512 => "SHA-512",
    };
    format!(
        "ECDSA with {hash} on a {} key is not supported; use SHA-256 or SHA-384 \
         (SHA-256, SHA-384 or SHA-512 on P-521)",
        curve.name()
    )
}

fn ring_verify(
    algorithm: &'static dyn VerificationAlgorithm,
    key: &[u8],
    signed: &[u8],
    signature: &[u8],
) -> bool {
    UnparsedPublicKey::new(algorithm, key).verify(signed, signature).is_ok()
}

/// ECDSA P-521 over a SHA-2 digest of `signed`. A point that is not on the curve or a
/// malformed signature fails verification like a wrong signature does.
fn p521_verify(hash: Hash, point: &[u8], signed: &[u8], signature: &[u8]) -> Result<bool, String> {
    let algorithm = match hash {
        Hash::Sha256 => &digest::SHA256,
        Hash::Sha384 => &digest::SHA384,
        Hash::Sha512 => &digest::SHA512,
        Hash::Sha1 => return Err(unsupported_ecdsa(hash, Curve::P521)),
    };
    let Ok(key) = p521::ecdsa::VerifyingKey::from_sec1_bytes(point) else {
        return Ok(false);
    };
    let Some((r, s)) = ecdsa_scalars::<66>(signature) else {
        return Ok(false);
    };
    let Ok(signature) = p521::ecdsa::Signature::from_scalars(r, s) else {
        return Ok(false);
    };
    let digest = digest::digest(algorithm, signed);
    Ok(key.verify_prehash(digest.as_ref(), &signature).is_ok())
}

/// ECDSA-Sig-Value ::= SEQUENCE { r INTEGER, s INTEGER }, each left-padded to `N` bytes.
fn ecdsa_scalars<const N: usize>(der: &[u8]) -> Option<([u8; N], [u8; N])> {
    let (sequence, rest) = read_universal(der, Tag::Sequence, "signature").ok()?;
    end(rest, "signature").ok()?;
    let (r, rest) = read_universal(sequence.content(), Tag::Integer, "r").ok()?;
    let (s, rest) = read_universal(rest, Tag::Integer, "s").ok()?;
    end(rest, "signature").ok()?;
    Some((
        left_pad(positive_integer(r.content(), "r").ok()?)?,
        left_pad(positive_integer(s.content(), "s").ok()?)?,
    ))
}

fn left_pad<const N: usize>(magnitude: &[u8]) -> Option<[u8; N]> {
    let mut out = [0u8; N];
    let start = N.checked_sub(magnitude.len())?;
    out.get_mut(start..)?.copy_from_slice(magnitude);
    Some(out)
}

/// The conventional name of a signature algorithm, with its OID.
fn display_name(oid: &str) -> String {
    let name = match oid {
        "1.2.840.113549.1.1.4" => "md5WithRSAEncryption",
        "1.2.840.113549.1.1.5" => "sha1WithRSAEncryption",
        "1.3.14.3.2.29" => "sha1WithRSASignature",
        "1.2.840.113549.1.1.11" => "sha256WithRSAEncryption",
        "1.2.840.113549.1.1.12" => "sha384WithRSAEncryption",
        "1.2.840.113549.1.1.13" => "sha512WithRSAEncryption",
        "1.2.840.113549.1.1.10" => "RSASSA-PSS",
        "1.2.840.10040.4.3" => "dsa-with-sha1",
        "2.16.840.1.101.3.4.3.2" => "dsa-with-sha256",
        "1.2.840.10045.4.1" => "ecdsa-with-SHA1",
        "1.2.840.10045.4.3.2" => "ecdsa-with-SHA256",
        "1.2.840.10045.4.3.3" => "ecdsa-with-SHA384",
        "1.2.840.10045.4.3.4" => "ecdsa-with-SHA512",
        "1.3.101.112" => "Ed25519",
        _ => return oid.to_string(),
    };
    format!("{name} ({oid})")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ecdsa_signature_scalars_are_padded() {
        let der = [0x30, 0x07, 0x02, 0x01, 0x05, 0x02, 0x02, 0x00, 0x80];
        let (r, s) = ecdsa_scalars::<4>(&der).unwrap();
        assert_eq!(r, [0, 0, 0, 5]);
        assert_eq!(s, [0, 0, 0, 0x80]);
        // Too long for the field, negative, or with trailing bytes: not a signature.
        assert!(ecdsa_scalars::<1>(&[0x30, 0x06, 0x02, 0x01, 0x05, 0x02, 0x01, 0x80]).is_none());
        assert!(
            ecdsa_scalars::<4>(&[0x30, 0x07, 0x02, 0x01, 0x05, 0x02, 0x02, 0x01, 0x02]).is_some()
        );
        assert!(
            ecdsa_scalars::<1>(&[0x30, 0x07, 0x02, 0x01, 0x05, 0x02, 0x02, 0x01, 0x02]).is_none()
        );
        assert!(
            ecdsa_scalars::<4>(&[0x30, 0x06, 0x02, 0x01, 0x05, 0x02, 0x01, 0x05, 0x00]).is_none()
        );
    }

    #[test]
    fn algorithm_names_include_the_oid() {
        assert_eq!(display_name("1.2.840.10045.4.3.2"), "ecdsa-with-SHA256 (1.2.840.10045.4.3.2)");
        assert_eq!(display_name("1.2.3"), "1.2.3");
    }

    #[test]
    fn articles_in_mismatch_messages() {
        assert_eq!(with_article("RSA"), "an RSA");
        assert_eq!(with_article("ECDSA P-256"), "an ECDSA P-256");
        assert_eq!(with_article("Ed25519"), "an Ed25519");
        assert_eq!(with_article("1.2.3 (unsupported type)"), "a 1.2.3 (unsupported type)");
    }
}
