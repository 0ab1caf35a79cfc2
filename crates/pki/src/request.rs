//! The PKCS#10 envelope (RFC 2986): split into the parts the other modules decode. Extra
//! elements at the end of a SEQUENCE are ignored, as Go's `encoding/asn1` ignores them;
//! bytes after the whole request are an error, as in Go.

use asn1_rs::Tag;

use crate::csr::CsrError;
use crate::der::{octet_aligned_bits, read, read_universal};
use crate::signature::{Algorithm, algorithm_identifier};

/// A request split into its parts.
#[derive(Clone, Debug)]
pub(crate) struct Request<'a> {
    /// The full encoding of certificationRequestInfo: the bytes the signature covers.
    pub(crate) signed: &'a [u8],
    /// Content of the subject Name (the RDN SETs).
    pub(crate) subject: &'a [u8],
    /// Full encoding of the SubjectPublicKeyInfo.
    pub(crate) spki: &'a [u8],
    /// Content of the `[0]` attributes.
    pub(crate) attributes: &'a [u8],
    pub(crate) signature_algorithm: Algorithm<'a>,
    pub(crate) signature: &'a [u8],
}

/// Splits a DER CertificationRequest.
pub(crate) fn parse(der: &[u8]) -> Result<Request<'_>, CsrError> {
    let (outer, trailing) =
        read_universal(der, Tag::Sequence, "CertificationRequest").map_err(der_error)?;
    if !trailing.is_empty() {
        return Err(CsrError::TrailingData { bytes: trailing.len() });
    }
    split(outer.content()).map_err(der_error)
}

fn der_error(reason: String) -> CsrError {
    CsrError::Der { reason }
}

fn split(content: &[u8]) -> Result<Request<'_>, String> {
    let (info, rest) = read_universal(content, Tag::Sequence, "certificationRequestInfo")?;
    let (algorithm, rest) = read_universal(rest, Tag::Sequence, "signatureAlgorithm")?;
    let (signature, _) = read_universal(rest, Tag::BitString, "signature")?;

    let (version, rest) = read_universal(info.content(), Tag::Integer, "version")?;
    if version.content().len() > 8 {
        return Err("version: INTEGER does not fit in 64 bits".to_string());
    }
    let (subject, rest) = read_universal(rest, Tag::Sequence, "subject")?;
    let (spki, rest) = read_universal(rest, Tag::Sequence, "subjectPKInfo")?;
    let (attributes, _) = read(rest, "attributes")?;
    if !(attributes.is_context_specific()
        && attributes.tag_number() == 0
        && attributes.is_constructed())
    {
        return Err(format!("attributes: expected [0], found {}", attributes.describe()));
    }

    Ok(Request {
        signed: info.raw(),
        subject: subject.content(),
        spki: spki.raw(),
        attributes: attributes.content(),
        signature_algorithm: algorithm_identifier(algorithm.content(), "signatureAlgorithm")?,
        signature: octet_aligned_bits(&signature, "signature")?,
    })
}
