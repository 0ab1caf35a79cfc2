//! Signing a template: by a CA (`pki.SignCSRTemplate`, then `ParseSingleCertificateChain`
//! for the chain and CA) or with the CSR's own key (the SelfSigned issuer, which first checks
//! that the key in the referenced Secret is the CSR's).

use super::ca::CaKeyPair;
use super::private_key::PrivateKey;
use super::signer::{sign, signature_algorithm};
use super::tbs::{Issuer, IssuerUrls, certificate, serial_number, tbs_certificate};
use super::template::CertificateTemplate;
use super::{IssueError, SigningError, certificate as x509, chain};
use crate::key::parse_spki;
use crate::pem;
use crate::signature::{Policy, verify_certificate};

/// A signed certificate and what cert-manager writes to the CertificateRequest status.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Issued {
    /// The new certificate, DER.
    pub der: Vec<u8>,
    /// The new certificate alone, PEM.
    pub pem: String,
    /// `status.certificate`: the new certificate followed by the CA's intermediates (no
    /// self-signed root); the certificate alone for SelfSigned.
    pub chain_pem: String,
    /// `status.ca`: the top of the chain (the root when the CA's chain has one); the
    /// certificate itself for SelfSigned.
    pub ca_pem: String,
}

/// Signs `template` with the CA. `serial_random` is 20 bytes from a cryptographic random
/// source (the serial number is made from it as Go makes it).
pub fn sign_with_ca(
    template: &CertificateTemplate,
    ca: &CaKeyPair,
    urls: &IssuerUrls,
    serial_random: &[u8; 20],
) -> Result<Issued, IssueError> {
    let signer = ca.signer().ok_or(SigningError::ChainBroken)?;
    let algorithm = signature_algorithm(&ca.key)?;
    if !same_key(ca.key.public_key_info(), &signer.spki) {
        return Err(SigningError::CaKeyMismatch.into());
    }
    let issuer = Issuer { name: &signer.subject, key_id: &signer.subject_key_id, urls };
    let serial = serial_number(serial_random);
    let tbs = tbs_certificate(template, &issuer, &serial, algorithm.identifier())?;
    let signature = sign(&ca.key, algorithm, &tbs)?;
    let der = certificate(&tbs, algorithm.identifier(), &signature);
    check_signature(&der, &signer.spki)?;
    let leaf = x509::parse(&der).map_err(|reason| SigningError::Reparse { reason })?;
    let mut all: Vec<&x509::Certificate> = ca.certificates.iter().collect();
    all.push(&leaf);
    let bundle = chain::bundle(&all)?;
    Ok(Issued {
        pem: pem::encode("CERTIFICATE", &der),
        der,
        chain_pem: bundle.chain_pem,
        ca_pem: bundle.ca_pem,
    })
}

/// Signs `template` with `key`, which must be the CSR's key (the SelfSigned issuer's
/// `cert-manager.io/private-key-secret-name` Secret). `crl_distribution_points` is the
/// issuer's `spec.selfSigned.crlDistributionPoints`.
pub fn sign_self_signed(
    template: &CertificateTemplate,
    key: &PrivateKey,
    crl_distribution_points: &[String],
    serial_random: &[u8; 20],
) -> Result<Issued, IssueError> {
    if !same_key(key.public_key_info(), &template.subject_public_key_info) {
        return Err(IssueError::KeyMismatch);
    }
    let algorithm = signature_algorithm(key)?;
    let urls = IssuerUrls {
        crl_distribution_points: crl_distribution_points.to_vec(),
        ..IssuerUrls::default()
    };
    let issuer = Issuer { name: &template.subject, key_id: &[], urls: &urls };
    let serial = serial_number(serial_random);
    let tbs = tbs_certificate(template, &issuer, &serial, algorithm.identifier())?;
    let signature = sign(key, algorithm, &tbs)?;
    let der = certificate(&tbs, algorithm.identifier(), &signature);
    check_signature(&der, &template.subject_public_key_info)?;
    x509::parse(&der).map_err(|reason| SigningError::Reparse { reason })?;
    let pem = pem::encode("CERTIFICATE", &der);
    Ok(Issued { der, chain_pem: pem.clone(), ca_pem: pem.clone(), pem })
}

/// Go's `PublicKey.Equal`: the same key, however each side happens to be encoded.
fn same_key(ours: Option<&[u8]>, theirs: &[u8]) -> bool {
    match (ours.map(parse_spki), parse_spki(theirs)) {
        (Some(Ok(ours)), Ok(theirs)) => ours == theirs,
        _ => false,
    }
}

/// Go checks every signature it makes before returning the certificate.
fn check_signature(der: &[u8], signer_spki: &[u8]) -> Result<(), SigningError> {
    verify_certificate(der, Some(signer_spki), Policy::Go)
        .map_err(|e| SigningError::InvalidSignature { reason: e.to_string() })
}
