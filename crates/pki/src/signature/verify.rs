//! Choosing the verifier for a scheme and a key under a policy, and running it.

use asn1_rs::Tag;
use p521::ecdsa::signature::hazmat::PrehashVerifier as _;
use ring::digest;
use ring::signature::{self as ring_sig, UnparsedPublicKey, VerificationAlgorithm};

use super::{Hash, Scheme};
use crate::der::{end, positive_integer, read_universal};
use crate::key::{Curve, PublicKey};

/// What a caller accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// Go's `crypto/x509`, as cert-manager verifies a CSR: RSA keys of 1024 to 8192 bits
    /// (ring's legacy verifiers below 2048 bits, which lack SHA-384 and PSS), ECDSA on P-256
    /// and P-384 with SHA-256 or SHA-384 and on P-521 with SHA-256 to SHA-512. Key sizes and
    /// combinations outside that are refused with a reason.
    Go,
    /// ring's standard verifiers, as rustls-webpki and BoringSSL-facing checks use them: RSA
    /// keys of 2048 to 8192 bits (smaller ones fail like a wrong signature), ECDSA on P-256
    /// and P-384 with SHA-256 or SHA-384 only.
    Ring,
}

/// Why a signature was not accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VerifyError {
    /// The scheme needs another type of key; `needs` is that type with its article.
    WrongKey { needs: &'static str },
    /// The policy cannot verify this scheme with this key (size, curve or digest); why.
    Unsupported(String),
    /// The signature does not verify with the key.
    Invalid,
}

/// Verifies `signature` over `message` with `key` under `policy`.
pub fn verify(
    policy: Policy,
    scheme: Scheme,
    key: &PublicKey<'_>,
    message: &[u8],
    signature: &[u8],
) -> Result<(), VerifyError> {
    let verified = match (scheme, key) {
        (Scheme::RsaPkcs1(hash), PublicKey::Rsa { der, bits }) => {
            ring_verify(rsa_pkcs1(policy, hash, *bits)?, der, message, signature)
        }
        (Scheme::RsaPss(hash), PublicKey::Rsa { der, bits }) => {
            ring_verify(rsa_pss(policy, hash, *bits)?, der, message, signature)
        }
        (Scheme::Ecdsa(hash), PublicKey::Ecdsa { curve: Curve::P521, point })
            if policy == Policy::Go =>
        {
            p521_verify(hash, point, message, signature)?
        }
        (Scheme::Ecdsa(hash), PublicKey::Ecdsa { curve, point }) => {
            ring_verify(ecdsa(policy, hash, *curve)?, point, message, signature)
        }
        (Scheme::Ed25519, PublicKey::Ed25519 { key: bytes }) => {
            ring_verify(&ring_sig::ED25519, bytes, message, signature)
        }
        (scheme, _) => return Err(VerifyError::WrongKey { needs: scheme.key_kind() }),
    };
    if verified { Ok(()) } else { Err(VerifyError::Invalid) }
}

fn unsupported(reason: String) -> VerifyError {
    VerifyError::Unsupported(reason)
}

/// Under [`Policy::Go`], keys of 2048 bits and more use ring's standard RSA verifiers and
/// 1024 to 2047-bit keys, which Go still verifies, its legacy ones (none exist for SHA-384).
fn rsa_pkcs1(
    policy: Policy,
    hash: Hash,
    bits: usize,
) -> Result<&'static dyn VerificationAlgorithm, VerifyError> {
    if policy == Policy::Ring {
        return Ok(match hash {
            Hash::Sha1 => &ring_sig::RSA_PKCS1_2048_8192_SHA1_FOR_LEGACY_USE_ONLY,
            Hash::Sha256 => &ring_sig::RSA_PKCS1_2048_8192_SHA256,
            Hash::Sha384 => &ring_sig::RSA_PKCS1_2048_8192_SHA384,
            Hash::Sha512 => &ring_sig::RSA_PKCS1_2048_8192_SHA512,
        });
    }
    rsa_bits_supported(bits)?;
    let legacy = bits < 2048;
    Ok(match (hash, legacy) {
        (Hash::Sha1, _) => &ring_sig::RSA_PKCS1_1024_8192_SHA1_FOR_LEGACY_USE_ONLY,
        (Hash::Sha256, true) => &ring_sig::RSA_PKCS1_1024_8192_SHA256_FOR_LEGACY_USE_ONLY,
        (Hash::Sha512, true) => &ring_sig::RSA_PKCS1_1024_8192_SHA512_FOR_LEGACY_USE_ONLY,
        (Hash::Sha384, true) => {
            return Err(unsupported(format!("SHA-384 with a {bits}-bit RSA key is not supported")));
        }
        (Hash::Sha256, false) => &ring_sig::RSA_PKCS1_2048_8192_SHA256,
        (Hash::Sha384, false) => &ring_sig::RSA_PKCS1_2048_8192_SHA384,
        (Hash::Sha512, false) => &ring_sig::RSA_PKCS1_2048_8192_SHA512,
    })
}

fn rsa_pss(
    policy: Policy,
    hash: Hash,
    bits: usize,
) -> Result<&'static dyn VerificationAlgorithm, VerifyError> {
    if policy == Policy::Go {
        rsa_bits_supported(bits)?;
        if bits < 2048 {
            return Err(unsupported(format!("RSA-PSS with a {bits}-bit RSA key is not supported")));
        }
    }
    match hash {
        Hash::Sha256 => Ok(&ring_sig::RSA_PSS_2048_8192_SHA256),
        Hash::Sha384 => Ok(&ring_sig::RSA_PSS_2048_8192_SHA384),
        Hash::Sha512 => Ok(&ring_sig::RSA_PSS_2048_8192_SHA512),
        Hash::Sha1 => Err(unsupported("RSA-PSS with SHA-1 is not supported".to_string())),
    }
}

fn rsa_bits_supported(bits: usize) -> Result<(), VerifyError> {
    if (1024..=8192).contains(&bits) {
        Ok(())
    } else {
        Err(unsupported(format!(
            "RSA keys of {bits} bits cannot be verified (supported: 1024 to 8192 bits)"
        )))
    }
}

fn ecdsa(
    policy: Policy,
    hash: Hash,
    curve: Curve,
) -> Result<&'static dyn VerificationAlgorithm, VerifyError> {
    match (curve, hash) {
        (Curve::P256, Hash::Sha256) => Ok(&ring_sig::ECDSA_P256_SHA256_ASN1),
        (Curve::P256, Hash::Sha384) => Ok(&ring_sig::ECDSA_P256_SHA384_ASN1),
        (Curve::P384, Hash::Sha256) => Ok(&ring_sig::ECDSA_P384_SHA256_ASN1),
        (Curve::P384, Hash::Sha384) => Ok(&ring_sig::ECDSA_P384_SHA384_ASN1),
        _ => Err(unsupported_ecdsa(policy, hash, curve)),
    }
}

fn unsupported_ecdsa(policy: Policy, hash: Hash, curve: Curve) -> VerifyError {
    let others = match policy {
        Policy::Go => " (SHA-256, SHA-384 or SHA-512 on P-521)",
        Policy::Ring => " on P-256 or P-384",
    };
    unsupported(format!(
        "ECDSA with {} on a {} key is not supported; use SHA-256 or SHA-384{others}",
        hash.name(),
        curve.name()
    ))
}

fn ring_verify(
    algorithm: &'static dyn VerificationAlgorithm,
    key: &[u8],
    message: &[u8],
    signature: &[u8],
) -> bool {
    UnparsedPublicKey::new(algorithm, key).verify(message, signature).is_ok()
}

/// ECDSA P-521 over a SHA-2 digest of `message`. A point that is not on the curve or a
/// malformed signature fails verification like a wrong signature does.
fn p521_verify(
    hash: Hash,
    point: &[u8],
    message: &[u8],
    signature: &[u8],
) -> Result<bool, VerifyError> {
    let algorithm = match hash {
        Hash::Sha256 => &digest::SHA256,
        Hash::Sha384 => &digest::SHA384,
        Hash::Sha512 => &digest::SHA512,
        Hash::Sha1 => return Err(unsupported_ecdsa(Policy::Go, hash, Curve::P521)),
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
    let digest = digest::digest(algorithm, message);
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
    fn policies_differ_in_what_they_accept_not_in_how() {
        let small_rsa = PublicKey::Rsa { der: &[], bits: 1024 };
        // Go refuses SHA-384 with a small key with a reason; ring's verifiers just fail it.
        assert_eq!(
            verify(Policy::Go, Scheme::RsaPkcs1(Hash::Sha384), &small_rsa, b"m", b"s"),
            Err(VerifyError::Unsupported(
                "SHA-384 with a 1024-bit RSA key is not supported".to_string()
            ))
        );
        assert_eq!(
            verify(Policy::Ring, Scheme::RsaPkcs1(Hash::Sha384), &small_rsa, b"m", b"s"),
            Err(VerifyError::Invalid)
        );
        let p521 = PublicKey::Ecdsa { curve: Curve::P521, point: &[4; 133] };
        assert_eq!(
            verify(Policy::Go, Scheme::Ecdsa(Hash::Sha512), &p521, b"m", b"s"),
            Err(VerifyError::Invalid)
        );
        assert_eq!(
            verify(Policy::Ring, Scheme::Ecdsa(Hash::Sha512), &p521, b"m", b"s"),
            Err(VerifyError::Unsupported(
                "ECDSA with SHA-512 on a P-521 key is not supported; use SHA-256 or SHA-384 \
                 on P-256 or P-384"
                    .to_string()
            ))
        );
        assert_eq!(
            verify(Policy::Ring, Scheme::Ed25519, &small_rsa, b"m", b"s"),
            Err(VerifyError::WrongKey { needs: "an Ed25519" })
        );
    }
}
