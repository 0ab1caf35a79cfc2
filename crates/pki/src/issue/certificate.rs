//! The parts of an X.509 certificate issuing needs from the CA's certificates and from the
//! one just signed: raw names, key, key identifier and the constraints Go's
//! `CheckSignatureFrom` looks at. Read with the crate's strict DER reader; anything a
//! signing chain cannot use is an error naming the field.

use asn1_rs::Tag;

use super::usages::{CERT_SIGN, key_usage_from_names};
use crate::der::{Element, boolean, read, read_oid, read_universal};
use crate::signature::{Hash, Policy, Scheme, algorithm_identifier, verify_certificate};

const SUBJECT_KEY_ID: &str = "2.5.29.14";
const KEY_USAGE: &str = "2.5.29.15";
const BASIC_CONSTRAINTS: &str = "2.5.29.19";
const NAME_CONSTRAINTS: &str = "2.5.29.30";

#[derive(Clone, Debug)]
pub(super) struct Certificate {
    pub(super) der: Vec<u8>,
    /// 1 to 3, as Go numbers versions.
    pub(super) version: u8,
    pub(super) issuer: Vec<u8>,
    pub(super) subject: Vec<u8>,
    /// The full SubjectPublicKeyInfo encoding.
    pub(super) spki: Vec<u8>,
    /// `Some(cA)` when a basicConstraints extension is present.
    pub(super) basic_constraints: Option<bool>,
    /// keyUsage bits, 0 when absent.
    pub(super) key_usage: u16,
    pub(super) subject_key_id: Vec<u8>,
    /// Signed with SHA-1, which Go no longer accepts on certificates.
    pub(super) sha1_signature: bool,
}

impl Certificate {
    /// Go's `c.CheckSignatureFrom(parent)`: the parent may sign certificates, and `self`'s
    /// signature verifies with its key.
    pub(super) fn is_signed_by(&self, parent: &Certificate) -> bool {
        let may_sign = match parent.basic_constraints {
            Some(ca) => ca,
            None => parent.version < 3,
        };
        let cert_sign = parent.key_usage == 0 || parent.key_usage & CERT_SIGN != 0;
        may_sign
            && cert_sign
            && !self.sha1_signature
            && verify_certificate(&self.der, Some(&parent.spki), Policy::Go).is_ok()
    }
}

/// Reads a DER certificate.
pub(super) fn parse(der: &[u8]) -> Result<Certificate, String> {
    let (certificate, trailing) = read_universal(der, Tag::Sequence, "Certificate")?;
    if !trailing.is_empty() {
        return Err(format!("{} bytes follow the certificate", trailing.len()));
    }
    let (tbs, rest) = read_universal(certificate.content(), Tag::Sequence, "tbsCertificate")?;
    let (algorithm, _) = read_universal(rest, Tag::Sequence, "signatureAlgorithm")?;
    let algorithm = algorithm_identifier(algorithm.content(), "signatureAlgorithm")?;
    let sha1_signature = matches!(
        algorithm.scheme(),
        Ok(Some(Scheme::RsaPkcs1(Hash::Sha1) | Scheme::Ecdsa(Hash::Sha1)))
    );

    let (first, after_first) = read(tbs.content(), "version")?;
    let (version, rest) = if first.is_context_specific() && first.tag_number() == 0 {
        let (number, _) = read_universal(first.content(), Tag::Integer, "version")?;
        match number.content() {
            [v @ 0..=2] => (v + 1, after_first),
            _ => return Err("x509: invalid version".to_string()),
        }
    } else {
        (1, tbs.content())
    };
    let (_serial, rest) = read_universal(rest, Tag::Integer, "serialNumber")?;
    let (_signature, rest) = read_universal(rest, Tag::Sequence, "signature")?;
    let (issuer, rest) = read_universal(rest, Tag::Sequence, "issuer")?;
    let (_validity, rest) = read_universal(rest, Tag::Sequence, "validity")?;
    let (subject, rest) = read_universal(rest, Tag::Sequence, "subject")?;
    let (spki, mut rest) = read_universal(rest, Tag::Sequence, "subjectPublicKeyInfo")?;
    crate::key::parse_spki(spki.raw())?;

    let mut parsed = Certificate {
        der: der.to_vec(),
        version,
        issuer: issuer.raw().to_vec(),
        subject: subject.raw().to_vec(),
        spki: spki.raw().to_vec(),
        basic_constraints: None,
        key_usage: 0,
        subject_key_id: Vec::new(),
        sha1_signature,
    };
    if version < 3 {
        return Ok(parsed);
    }
    while !rest.is_empty() {
        let (element, next) = read(rest, "tbsCertificate")?;
        rest = next;
        if element.is_context_specific() && element.tag_number() == 3 {
            extensions(&element, &mut parsed)?;
        }
    }
    Ok(parsed)
}

fn extensions(wrapper: &Element<'_>, parsed: &mut Certificate) -> Result<(), String> {
    let (list, _) = read_universal(wrapper.content(), Tag::Sequence, "extensions")?;
    let mut remaining = list.content();
    let mut seen: Vec<String> = Vec::new();
    while !remaining.is_empty() {
        let field = format!("extension {}", seen.len());
        let (extension, rest) = read_universal(remaining, Tag::Sequence, &field)?;
        remaining = rest;
        let (oid, rest) = read_oid(extension.content(), &field)?;
        if seen.contains(&oid) {
            return Err("x509: certificate contains duplicate extensions".to_string());
        }
        let (next, rest) = read(rest, &field)?;
        let value = if next.is_universal_primitive(Tag::Boolean) {
            boolean(&next, &field)?;
            read_universal(rest, Tag::OctetString, &field)?.0
        } else {
            next
        };
        if !value.is_universal_primitive(Tag::OctetString) {
            return Err(format!("{field} ({oid}): extnValue is not an OCTET STRING"));
        }
        let value = value.content();
        match oid.as_str() {
            BASIC_CONSTRAINTS => {
                parsed.basic_constraints = Some(crate::usages::basic_constraints_ca(value)?);
            }
            KEY_USAGE => {
                parsed.key_usage = key_usage_from_names(&crate::usages::key_usages(value)?);
            }
            NAME_CONSTRAINTS => super::name_constraints::check_as_go_parses(value)?,
            SUBJECT_KEY_ID => {
                let (id, rest) = read_universal(value, Tag::OctetString, "subjectKeyIdentifier")
                    .map_err(|_| "x509: invalid subject key identifier".to_string())?;
                if !rest.is_empty() {
                    return Err("x509: invalid subject key identifier".to_string());
                }
                parsed.subject_key_id = id.content().to_vec();
            }
            _ => {}
        }
        seen.push(oid);
    }
    Ok(())
}
