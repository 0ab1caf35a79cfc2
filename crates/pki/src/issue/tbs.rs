//! The certificate DER, laid out as Go's `x509.CreateCertificate` writes it from
//! cert-manager's template: version 3, serial number, signature algorithm, issuer and subject
//! names as raw bytes, validity, the subject's key, then the extensions in Go's order
//! (keyUsage, extKeyUsage, basicConstraints, subjectKeyIdentifier, authorityKeyIdentifier,
//! authorityInfoAccess, nameConstraints, cRLDistributionPoints) and last the copied
//! subjectAltName.

use super::SigningError;
use super::asn1::{OCTET_STRING, bit_string, extension, oid, sequence, unsigned_integer};
use super::template::CertificateTemplate;
use super::time;
use crate::der::tlv;

const KEY_USAGE: &[u8] = &[0x06, 0x03, 0x55, 0x1d, 0x0f];
const EXT_KEY_USAGE: &[u8] = &[0x06, 0x03, 0x55, 0x1d, 0x25];
const BASIC_CONSTRAINTS: &[u8] = &[0x06, 0x03, 0x55, 0x1d, 0x13];
const SUBJECT_KEY_ID: &[u8] = &[0x06, 0x03, 0x55, 0x1d, 0x0e];
const AUTHORITY_KEY_ID: &[u8] = &[0x06, 0x03, 0x55, 0x1d, 0x23];
const AUTHORITY_INFO_ACCESS: &[u8] = &[0x06, 0x08, 0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x01, 0x01];
const NAME_CONSTRAINTS: &[u8] = &[0x06, 0x03, 0x55, 0x1d, 0x1e];
const CRL_DISTRIBUTION_POINTS: &[u8] = &[0x06, 0x03, 0x55, 0x1d, 0x1f];
const SUBJECT_ALT_NAME: &[u8] = &[0x06, 0x03, 0x55, 0x1d, 0x11];
const OCSP: &[u8] = &[0x06, 0x08, 0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x30, 0x01];
const CA_ISSUERS: &[u8] = &[0x06, 0x08, 0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x30, 0x02];
/// `[6]` uniformResourceIdentifier, implicitly tagged.
const URI: u8 = 0x86;

/// Where the issuer's URLs go (the CA issuer's `crlDistributionPoints`, `ocspServers` and
/// `issuingCertificateURLs`; the SelfSigned issuer has only the first).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IssuerUrls {
    pub crl_distribution_points: Vec<String>,
    pub ocsp_servers: Vec<String>,
    pub issuing_certificate_urls: Vec<String>,
}

/// What the signer contributes besides its signature.
pub(super) struct Issuer<'a> {
    /// Full encoding of the issuer Name.
    pub(super) name: &'a [u8],
    /// The issuer's subjectKeyIdentifier (empty when it has none).
    pub(super) key_id: &'a [u8],
    pub(super) urls: &'a IssuerUrls,
}

/// The serial number Go's `CreateCertificate` generates when the template has none (as
/// cert-manager's does not): 20 random bytes with the top bit cleared, a positive number of
/// at most 20 octets.
pub(super) fn serial_number(random: &[u8; 20]) -> Vec<u8> {
    let mut bytes = *random;
    bytes[0] &= 0x7f;
    unsigned_integer(&bytes)
}

/// The tbsCertificate encoding.
pub(super) fn tbs_certificate(
    template: &CertificateTemplate,
    issuer: &Issuer<'_>,
    serial: &[u8],
    signature_algorithm: &[u8],
) -> Result<Vec<u8>, SigningError> {
    let not_before = time::encode(template.not_before).ok_or(SigningError::TimeOutOfRange)?;
    let not_after = time::encode(template.not_after).ok_or(SigningError::TimeOutOfRange)?;
    let validity = sequence(&[&not_before, &not_after]);
    let extensions = extensions(template, issuer)?;
    let version = tlv(0xa0, &[0x02, 0x01, 0x02]);
    let extensions = tlv(0xa3, &tlv(0x30, &extensions.concat()));
    Ok(sequence(&[
        &version,
        serial,
        signature_algorithm,
        issuer.name,
        &validity,
        &template.subject,
        &template.subject_public_key_info,
        &extensions,
    ]))
}

/// Certificate ::= SEQUENCE { tbsCertificate, signatureAlgorithm, signatureValue }.
pub(super) fn certificate(tbs: &[u8], signature_algorithm: &[u8], signature: &[u8]) -> Vec<u8> {
    sequence(&[tbs, signature_algorithm, &bit_string(signature)])
}

fn extensions(
    template: &CertificateTemplate,
    issuer: &Issuer<'_>,
) -> Result<Vec<Vec<u8>>, SigningError> {
    let mut out = Vec::new();
    if template.key_usage != 0 {
        out.push(extension(KEY_USAGE, true, &key_usage(template.key_usage)));
    }
    if !template.ext_key_usages.is_empty() {
        let mut oids = Vec::new();
        for dotted in &template.ext_key_usages {
            oids.extend(oid(dotted).ok_or_else(|| SigningError::Signer {
                reason: format!("extended key usage {dotted} is not an OID"),
            })?);
        }
        out.push(extension(EXT_KEY_USAGE, false, &tlv(0x30, &oids)));
    }
    // cert-manager always sets basicConstraints, never a path length.
    let ca: &[u8] = if template.is_ca { &[0x01, 0x01, 0xff] } else { &[] };
    out.push(extension(BASIC_CONSTRAINTS, true, &tlv(0x30, ca)));
    if template.is_ca {
        let key = subject_public_key(&template.subject_public_key_info)?;
        let digest = ring::digest::digest(&ring::digest::SHA256, key);
        let key_id = digest.as_ref().get(..20).unwrap_or_default();
        out.push(extension(SUBJECT_KEY_ID, false, &tlv(OCTET_STRING, key_id)));
    }
    if issuer.name != template.subject.as_slice() && !issuer.key_id.is_empty() {
        out.push(extension(AUTHORITY_KEY_ID, false, &tlv(0x30, &tlv(0x80, issuer.key_id))));
    }
    let urls = issuer.urls;
    if !urls.ocsp_servers.is_empty() || !urls.issuing_certificate_urls.is_empty() {
        let mut access = Vec::new();
        for (method, locations) in
            [(OCSP, &urls.ocsp_servers), (CA_ISSUERS, &urls.issuing_certificate_urls)]
        {
            for location in locations {
                access.extend(sequence(&[method, &tlv(URI, location.as_bytes())]));
            }
        }
        out.push(extension(AUTHORITY_INFO_ACCESS, false, &tlv(0x30, &access)));
    }
    if let Some(constraints) = &template.name_constraints {
        out.push(extension(NAME_CONSTRAINTS, constraints.critical, &constraints.value));
    }
    if !urls.crl_distribution_points.is_empty() {
        let mut points = Vec::new();
        for url in &urls.crl_distribution_points {
            // DistributionPoint { distributionPoint [0] { fullName [0] { [6] url } } }
            points.extend(tlv(0x30, &tlv(0xa0, &tlv(0xa0, &tlv(URI, url.as_bytes())))));
        }
        out.push(extension(CRL_DISTRIBUTION_POINTS, false, &tlv(0x30, &points)));
    }
    if let Some(san) = &template.subject_alt_name {
        out.push(extension(SUBJECT_ALT_NAME, san.critical, &san.value));
    }
    Ok(out)
}

/// keyUsage as Go marshals it: bits in ASN.1 order, trailing zero bits trimmed.
fn key_usage(bits: u16) -> Vec<u8> {
    let bytes = [(bits as u8).reverse_bits(), ((bits >> 8) as u8).reverse_bits()];
    let used = if bytes[1] != 0 { &bytes[..] } else { &bytes[..1] };
    let last = used.last().copied().unwrap_or_default();
    let unused = if last == 0 { 0 } else { last.trailing_zeros() as u8 };
    let mut content = vec![unused];
    content.extend_from_slice(used);
    tlv(0x03, &content)
}

/// The subjectPublicKey bits of an SPKI (what the key identifier is hashed from).
fn subject_public_key(spki: &[u8]) -> Result<&[u8], SigningError> {
    use asn1_rs::Tag;
    let reparse = |reason: String| SigningError::Signer { reason };
    let (outer, _) =
        crate::der::read_universal(spki, Tag::Sequence, "subjectPublicKeyInfo").map_err(reparse)?;
    let (_, rest) =
        crate::der::read_universal(outer.content(), Tag::Sequence, "algorithm").map_err(reparse)?;
    let (bits, _) =
        crate::der::read_universal(rest, Tag::BitString, "subjectPublicKey").map_err(reparse)?;
    crate::der::octet_aligned_bits(&bits, "subjectPublicKey").map_err(reparse)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_usage_bits_as_go_writes_them() {
        // digital signature + key encipherment.
        assert_eq!(key_usage(0b101), [0x03, 0x02, 0x05, 0xa0]);
        // ... + cert sign.
        assert_eq!(key_usage(0b10_0101), [0x03, 0x02, 0x02, 0xa4]);
        // decipher only needs a second byte.
        assert_eq!(key_usage(1 << 8 | 1), [0x03, 0x03, 0x07, 0x80, 0x80]);
        assert_eq!(key_usage(1 << 7), [0x03, 0x02, 0x00, 0x01]);
    }

    #[test]
    fn serial_numbers_are_positive_and_at_most_20_octets() {
        assert_eq!(serial_number(&[0xff; 20]).len(), 2 + 20);
        assert_eq!(serial_number(&[0xff; 20])[2], 0x7f);
        assert_eq!(serial_number(&[0; 20]), [0x02, 0x01, 0x00]);
        let mut small = [0; 20];
        small[19] = 0x80;
        assert_eq!(serial_number(&small), [0x02, 0x02, 0x00, 0x80]);
    }
}
