//! The certificate template cert-manager makes from a CertificateRequest
//! (`CertificateTemplateFromCertificateRequest` and `CertificateTemplateFromCSR` in
//! pkg/util/pki/certificatetemplate.go):
//!
//! - subject and public key exactly as in the CSR;
//! - the CSR's subjectAltName extension copied byte for byte, critical exactly when the
//!   subject is empty (other requested extensions are not copied);
//! - NotBefore = now, NotAfter = now + `spec.duration` (90 days when unset; zero and negative
//!   durations are used as given, as cert-manager does); no clamping to the CA's validity;
//! - basicConstraints from `spec.isCA` (no path length); a requested basicConstraints must
//!   agree with it;
//! - keyUsage and extKeyUsage from `spec.usages` (defaults `digital signature`, `key
//!   encipherment`; `cert sign` added for a CA, for every key type); when the CSR requests
//!   keyUsage or extKeyUsage, its keyUsage bits and its known extended usages (in order)
//!   must equal those, and extended usages Go does not know are carried over after them;
//! - a requested nameConstraints extension re-encoded as Go writes it, criticality kept.

use std::time::SystemTime;

use asn1_rs::Tag;
use certgate_gofmt::GoDuration;

use super::request::{Request, SUBJECT_ALT_NAME, read_request};
use super::usages::{self, Usages};
use super::{TemplateError, name_constraints, time};
use crate::der::{read, read_oid, read_universal};
use crate::usages::KnownExtKeyUsage;

const KEY_USAGE: &str = "2.5.29.15";
const EXT_KEY_USAGE: &str = "2.5.29.37";
const BASIC_CONSTRAINTS: &str = "2.5.29.19";
const NAME_CONSTRAINTS: &str = "2.5.29.30";

/// cert-manager's `DefaultCertificateDuration`: 90 days.
pub const DEFAULT_CERTIFICATE_DURATION: GoDuration = GoDuration(90 * 24 * 3600 * 1_000_000_000);

/// The CertificateRequest fields a certificate is made from.
#[derive(Clone, Copy, Debug)]
pub struct RequestSpec<'a> {
    /// `spec.request`: a PEM PKCS#10 request.
    pub request: &'a [u8],
    /// `spec.duration`, parsed; `None` when unset.
    pub duration: Option<GoDuration>,
    /// `spec.usages`.
    pub usages: &'a [String],
    /// `spec.isCA`.
    pub is_ca: bool,
}

/// An extension value to write, with its criticality.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TemplateExtension {
    pub critical: bool,
    /// The extnValue content.
    pub value: Vec<u8>,
}

/// Everything about the certificate except issuer, serial number and signature.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CertificateTemplate {
    /// The subject Name's full encoding, as the CSR has it.
    pub subject: Vec<u8>,
    /// The CSR's SubjectPublicKeyInfo, full encoding.
    pub subject_public_key_info: Vec<u8>,
    pub not_before: SystemTime,
    pub not_after: SystemTime,
    pub is_ca: bool,
    /// keyUsage bits in Go's `x509.KeyUsage` numbering (bit 0 digital signature ... bit 8
    /// decipher only); never 0 for a CertificateRequest.
    pub key_usage: u16,
    /// Extended key usages (dotted OIDs) in the order written: `spec.usages` order, then the
    /// CSR's usages Go does not know.
    pub ext_key_usages: Vec<String>,
    pub subject_alt_name: Option<TemplateExtension>,
    pub name_constraints: Option<TemplateExtension>,
}

impl CertificateTemplate {
    /// Whether the subject has no attributes. cert-manager's SelfSigned issuer then emits a
    /// Warning event `BadConfig` with [`EMPTY_ISSUER_DN_MESSAGE`](super::EMPTY_ISSUER_DN_MESSAGE).
    pub fn subject_is_empty(&self) -> bool {
        self.subject == [0x30, 0x00]
    }

    /// The keyUsage names, in bit order (`digital signature`, `key encipherment`, ...).
    pub fn key_usage_names(&self) -> Vec<String> {
        usages::key_usage_names(self.key_usage)
    }
}

/// What the CSR itself requests, as cert-manager's `extractExtensions` reads it.
#[derive(Default)]
struct Requested {
    is_ca: Option<bool>,
    usage_extension: bool,
    key_usage: u16,
    known_ext_key_usages: Vec<&'static KnownExtKeyUsage>,
    unknown_ext_key_usages: Vec<String>,
    subject_alt_name: Option<Vec<u8>>,
    name_constraints: Option<TemplateExtension>,
}

/// Builds the template for a CertificateRequest at `now`. The first failure is reported, in
/// cert-manager's order: usages, the CSR (size, PEM, structure, extensions, signature),
/// the requested extensions in CSR order, then the basicConstraints and usage comparisons.
pub fn template_from_request(
    spec: &RequestSpec<'_>,
    now: SystemTime,
) -> Result<CertificateTemplate, TemplateError> {
    let wanted =
        usages::from_spec(spec.usages, spec.is_ca).map_err(TemplateError::UnknownUsages)?;
    let request = read_request(spec.request)?;
    let requested = extract(&request)?;

    let duration = spec.duration.unwrap_or(DEFAULT_CERTIFICATE_DURATION);
    let not_after = time::add_nanos(now, duration.0)
        .ok_or_else(|| TemplateError::DurationOutOfRange { duration: duration.to_string() })?;

    if let Some(requested) = requested.is_ca
        && requested != spec.is_ca
    {
        return Err(TemplateError::IsCaMismatch { requested, expected: spec.is_ca });
    }
    check_usages(&requested, &wanted)?;

    let subject_is_empty = request.subject == [0x30, 0x00];
    let mut ext_key_usages: Vec<String> =
        wanted.ext_key_usages.iter().map(|known| known.oid.to_string()).collect();
    ext_key_usages.extend(requested.unknown_ext_key_usages);
    Ok(CertificateTemplate {
        subject: request.subject,
        subject_public_key_info: request.spki,
        not_before: now,
        not_after,
        is_ca: spec.is_ca,
        key_usage: wanted.key_usage,
        ext_key_usages,
        subject_alt_name: requested
            .subject_alt_name
            .map(|value| TemplateExtension { critical: subject_is_empty, value }),
        name_constraints: requested.name_constraints,
    })
}

fn check_usages(requested: &Requested, wanted: &Usages) -> Result<(), TemplateError> {
    if !requested.usage_extension {
        return Ok(());
    }
    if requested.key_usage != wanted.key_usage {
        return Err(TemplateError::KeyUsageMismatch {
            requested: usages::key_usage_names(requested.key_usage),
            expected: usages::key_usage_names(wanted.key_usage),
        });
    }
    let oids = |list: &[&'static KnownExtKeyUsage]| list.iter().map(|k| k.oid).collect::<Vec<_>>();
    if oids(&requested.known_ext_key_usages) != oids(&wanted.ext_key_usages) {
        return Err(TemplateError::ExtKeyUsageMismatch {
            requested: usages::ext_key_usage_names(&requested.known_ext_key_usages),
            expected: usages::ext_key_usage_names(&wanted.ext_key_usages),
        });
    }
    Ok(())
}

fn extract(request: &Request) -> Result<Requested, TemplateError> {
    let failed = |reason: String| TemplateError::Extension { reason };
    let mut requested = Requested::default();
    for extension in &request.extensions {
        let value = extension.value.as_slice();
        match extension.oid.as_str() {
            BASIC_CONSTRAINTS => {
                single(value, "BasicConstraints").map_err(failed)?;
                requested.is_ca = Some(
                    crate::usages::basic_constraints_ca(value)
                        .map_err(|e| failed(format!("asn1: {e}")))?,
                );
            }
            NAME_CONSTRAINTS => {
                let value = name_constraints::reencode(value).map_err(failed)?;
                requested.name_constraints =
                    Some(TemplateExtension { critical: extension.critical, value });
            }
            KEY_USAGE => {
                single(value, "KeyUsage").map_err(failed)?;
                let names =
                    crate::usages::key_usages(value).map_err(|e| failed(format!("asn1: {e}")))?;
                requested.key_usage = usages::key_usage_from_names(&names);
                requested.usage_extension = true;
            }
            EXT_KEY_USAGE => {
                single(value, "ExtendedKeyUsage").map_err(failed)?;
                ext_key_usages(value, &mut requested).map_err(|e| failed(format!("asn1: {e}")))?;
                requested.usage_extension = true;
            }
            SUBJECT_ALT_NAME => requested.subject_alt_name = Some(value.to_vec()),
            _ => {}
        }
    }
    Ok(requested)
}

/// Go's "trailing data after X.509 <name>" check.
fn single(value: &[u8], name: &str) -> Result<(), String> {
    match read(value, name) {
        Ok((_, rest)) if !rest.is_empty() => Err(format!("x509: trailing data after X.509 {name}")),
        _ => Ok(()),
    }
}

/// extKeyUsage ::= SEQUENCE OF OID, split into the usages Go knows and the rest.
fn ext_key_usages(value: &[u8], requested: &mut Requested) -> Result<(), String> {
    let (sequence, _) = read_universal(value, Tag::Sequence, "extKeyUsage")?;
    let mut remaining = sequence.content();
    let mut index = 0usize;
    while !remaining.is_empty() {
        let (oid, rest) = read_oid(remaining, &format!("extKeyUsage entry {index}"))?;
        remaining = rest;
        match usages::known_ext_key_usage(&oid) {
            Some(known) => requested.known_ext_key_usages.push(known),
            None => requested.unknown_ext_key_usages.push(oid),
        }
        index += 1;
    }
    Ok(())
}
