//! The signature algorithm cert-manager picks for a signing key
//! (`signatureAlgorithmFromPublicKey` in pkg/util/pki/csr.go) and the signing itself.
//!
//! RSA: SHA-512 from 4096 bits, SHA-384 from 3072, SHA-256 from 2048, smaller refused (the
//! size is the modulus length in bytes times 8). ECDSA: the curve's own hash (P-256 SHA-256,
//! P-384 SHA-384, P-521 SHA-512), other curves refused. Ed25519: pure Ed25519.

use p521::ecdsa::signature::hazmat::PrehashSigner as _;
use ring::rand::SystemRandom;
use ring::signature::{RSA_PKCS1_SHA256, RSA_PKCS1_SHA384, RSA_PKCS1_SHA512, RsaEncoding};

use super::SigningError;
use super::asn1::{sequence, unsigned_integer};
use super::private_key::{Curve, EcSigner, Kind, PrivateKey};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum SignatureAlgorithm {
    RsaSha256,
    RsaSha384,
    RsaSha512,
    EcdsaSha256,
    EcdsaSha384,
    EcdsaSha512,
    Ed25519,
}

impl SignatureAlgorithm {
    /// The full AlgorithmIdentifier encoding Go writes (NULL parameters for RSA only).
    pub(super) fn identifier(self) -> &'static [u8] {
        match self {
            SignatureAlgorithm::RsaSha256 => &[
                0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0b, 0x05,
                0x00,
            ],
            SignatureAlgorithm::RsaSha384 => &[
                0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0c, 0x05,
                0x00,
            ],
            SignatureAlgorithm::RsaSha512 => &[
                0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0d, 0x05,
                0x00,
            ],
            SignatureAlgorithm::EcdsaSha256 => {
                &[0x30, 0x0a, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02]
            }
            SignatureAlgorithm::EcdsaSha384 => {
                &[0x30, 0x0a, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x03]
            }
            SignatureAlgorithm::EcdsaSha512 => {
                &[0x30, 0x0a, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x04]
            }
            SignatureAlgorithm::Ed25519 => &[0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70],
        }
    }
}

/// cert-manager's choice for `key`, with its error texts.
pub(super) fn signature_algorithm(key: &PrivateKey) -> Result<SignatureAlgorithm, SigningError> {
    Ok(match &key.kind {
        Kind::Rsa { size_bits, .. } => match *size_bits {
            4096.. => SignatureAlgorithm::RsaSha512,
            3072.. => SignatureAlgorithm::RsaSha384,
            2048.. => SignatureAlgorithm::RsaSha256,
            bits => return Err(SigningError::RsaKeyTooSmall { bits }),
        },
        Kind::Ecdsa { curve: Curve::P256, .. } => SignatureAlgorithm::EcdsaSha256,
        Kind::Ecdsa { curve: Curve::P384, .. } => SignatureAlgorithm::EcdsaSha384,
        Kind::Ecdsa { curve: Curve::P521, .. } => SignatureAlgorithm::EcdsaSha512,
        Kind::Ecdsa { curve: Curve::P224, .. } => return Err(SigningError::UnsupportedCurve),
        Kind::Ed25519(_) => SignatureAlgorithm::Ed25519,
    })
}

/// Signs `message` with `key` under `algorithm` (from [`signature_algorithm`] for the same
/// key). ECDSA on P-256/P-384 and RSA blinding draw from the operating system's random
/// source; the other signatures are deterministic.
pub(super) fn sign(
    key: &PrivateKey,
    algorithm: SignatureAlgorithm,
    message: &[u8],
) -> Result<Vec<u8>, SigningError> {
    let failed = |what: &str| SigningError::Signer { reason: format!("{what} signing failed") };
    match (&key.kind, algorithm) {
        (Kind::Rsa { pair, modulus_bits, .. }, _) => {
            let pair =
                pair.as_ref().ok_or(SigningError::RsaKeyUnsupported { bits: *modulus_bits })?;
            let padding: &'static dyn RsaEncoding = match algorithm {
                SignatureAlgorithm::RsaSha512 => &RSA_PKCS1_SHA512,
                SignatureAlgorithm::RsaSha384 => &RSA_PKCS1_SHA384,
                _ => &RSA_PKCS1_SHA256,
            };
            let mut signature = vec![0; pair.public().modulus_len()];
            pair.sign(padding, &SystemRandom::new(), message, &mut signature)
                .map_err(|_| failed("RSA"))?;
            Ok(signature)
        }
        (Kind::Ecdsa { signer: EcSigner::Ring(pair), .. }, _) => pair
            .sign(&SystemRandom::new(), message)
            .map(|signature| signature.as_ref().to_vec())
            .map_err(|_| failed("ECDSA")),
        (Kind::Ecdsa { signer: EcSigner::P521(signing_key), .. }, _) => {
            let digest = ring::digest::digest(&ring::digest::SHA512, message);
            let signature: p521::ecdsa::Signature =
                signing_key.sign_prehash(digest.as_ref()).map_err(|_| failed("ECDSA P-521"))?;
            let (r, s) = signature.split_bytes();
            Ok(sequence(&[&unsigned_integer(&r), &unsigned_integer(&s)]))
        }
        (Kind::Ecdsa { signer: EcSigner::None, .. }, _) => Err(SigningError::UnsupportedCurve),
        (Kind::Ed25519(pair), _) => Ok(pair.sign(message).as_ref().to_vec()),
    }
}
