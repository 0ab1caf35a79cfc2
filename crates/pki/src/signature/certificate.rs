//! The signature of an X.509 certificate, checked with the issuer's key (or its own, for a
//! self-signed one). The certificate is only split as far as the signature needs.

use asn1_rs::Tag;

use super::request::with_article;
use super::{Policy, VerifyError, algorithm_identifier, parse_spki, verify};
use crate::der::{octet_aligned_bits, read, read_universal};

/// Why a certificate's signature was not accepted.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SignatureError {
    #[error("the certificate does not parse: {reason}")]
    Certificate { reason: String },
    #[error("the signer's public key does not parse: {reason}")]
    PublicKey { reason: String },
    #[error("signature algorithm {algorithm} is not supported")]
    UnsupportedAlgorithm { algorithm: String },
    #[error("signature algorithm {algorithm} cannot be verified: {reason}")]
    BadAlgorithm { algorithm: String, reason: String },
    #[error("the {algorithm} signature does not verify with the signer's public key")]
    Invalid { algorithm: String },
}

/// Verifies the signature of the DER certificate `der` with the DER SubjectPublicKeyInfo
/// `issuer_spki`, or with the certificate's own key when `None` (self-signed).
pub fn verify_certificate(
    der: &[u8],
    issuer_spki: Option<&[u8]>,
    policy: Policy,
) -> Result<(), SignatureError> {
    let parts = split(der).map_err(|reason| SignatureError::Certificate { reason })?;
    let spki = issuer_spki.unwrap_or(parts.spki);
    let key = parse_spki(spki).map_err(|reason| SignatureError::PublicKey { reason })?;
    let algorithm = parts.algorithm;
    let name = algorithm.display_name();
    let bad = |reason: String| SignatureError::BadAlgorithm { algorithm: name.clone(), reason };
    let Some(scheme) = algorithm.scheme().map_err(&bad)? else {
        return Err(SignatureError::UnsupportedAlgorithm { algorithm: name });
    };
    match verify(policy, scheme, &key, parts.signed, parts.signature) {
        Ok(()) => Ok(()),
        Err(VerifyError::Unsupported(reason)) => Err(bad(reason)),
        Err(VerifyError::WrongKey { needs }) => Err(bad(format!(
            "it needs {needs} public key, but the signer has {} key",
            with_article(&key.kind())
        ))),
        Err(VerifyError::Invalid) => Err(SignatureError::Invalid { algorithm: name }),
    }
}

/// What signature verification needs from a certificate.
struct Parts<'a> {
    /// The full encoding of tbsCertificate.
    signed: &'a [u8],
    algorithm: super::Algorithm<'a>,
    signature: &'a [u8],
    /// The full encoding of the certificate's own SubjectPublicKeyInfo.
    spki: &'a [u8],
}

fn split(der: &[u8]) -> Result<Parts<'_>, String> {
    let (certificate, trailing) = read_universal(der, Tag::Sequence, "Certificate")?;
    if !trailing.is_empty() {
        return Err(format!("{} bytes follow the certificate", trailing.len()));
    }
    let (tbs, rest) = read_universal(certificate.content(), Tag::Sequence, "tbsCertificate")?;
    let (algorithm, rest) = read_universal(rest, Tag::Sequence, "signatureAlgorithm")?;
    let (signature, _) = read_universal(rest, Tag::BitString, "signatureValue")?;

    // version [0] EXPLICIT (optional), serialNumber, signature, issuer, validity, subject.
    let (first, mut rest) = read(tbs.content(), "version")?;
    if !(first.is_context_specific() && first.tag_number() == 0) {
        rest = tbs.content();
    }
    for field in ["serialNumber", "signature", "issuer", "validity", "subject"] {
        rest = read(rest, field)?.1;
    }
    let (spki, _) = read_universal(rest, Tag::Sequence, "subjectPublicKeyInfo")?;
    Ok(Parts {
        signed: tbs.raw(),
        algorithm: algorithm_identifier(algorithm.content(), "signatureAlgorithm")?,
        signature: octet_aligned_bits(&signature, "signatureValue")?,
        spki: spki.raw(),
    })
}
