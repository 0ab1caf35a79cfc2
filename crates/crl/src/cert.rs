//! Certificates of the CA bundle and of client chains, reduced to what revocation needs.

use serde::Serialize;
use x509_parser::prelude::{FromDer, ParsedExtension, X509Certificate};

use crate::error::CertParseError;
use crate::time::Timestamp;
use certgate_pki::der::minimal_integer;

/// A certificate as the CRL logic sees it. Owns its DER.
#[derive(Debug, Clone, Serialize)]
pub struct Cert {
    /// Subject, RFC 4514.
    pub subject: String,
    /// Issuer, RFC 4514.
    pub issuer: String,
    /// Minimal serial bytes, hex.
    pub serial: String,
    /// Subject and issuer names are byte-identical (a root or a self-issued CA).
    pub self_issued: bool,
    /// basicConstraints cA.
    pub is_ca: bool,
    /// `Some(false)` when keyUsage is present without cRLSign (BoringSSL then refuses the
    /// issuer's CRLs with `KEYUSAGE_NO_CRL_SIGN`, webpki with `IssuerNotCrlSigner`).
    pub crl_sign: Option<bool>,
    pub not_before: Timestamp,
    pub not_after: Timestamp,
    #[serde(skip)]
    pub(crate) der: Vec<u8>,
    #[serde(skip)]
    pub(crate) subject_der: Vec<u8>,
    #[serde(skip)]
    pub(crate) issuer_der: Vec<u8>,
    #[serde(skip)]
    pub(crate) serial_der: Vec<u8>,
    #[serde(skip)]
    pub(crate) spki: Vec<u8>,
    #[serde(skip)]
    pub(crate) subject_key_id: Option<Vec<u8>>,
}

impl Cert {
    /// Parses one DER certificate.
    pub fn from_der(der: Vec<u8>) -> Result<Cert, CertParseError> {
        let parsed = {
            let (rest, cert) = X509Certificate::from_der(&der)
                .map_err(|e| CertParseError { detail: e.to_string() })?;
            if !rest.is_empty() {
                return Err(CertParseError {
                    detail: format!("{} bytes after the certificate", rest.len()),
                });
            }
            let mut crl_sign = None;
            let mut is_ca = false;
            let mut skid = None;
            for ext in cert.extensions() {
                match ext.parsed_extension() {
                    ParsedExtension::KeyUsage(ku) => crl_sign = Some(ku.crl_sign()),
                    ParsedExtension::BasicConstraints(bc) => is_ca = bc.ca,
                    ParsedExtension::SubjectKeyIdentifier(k) => skid = Some(k.0.to_vec()),
                    _ => {}
                }
            }
            let subject_der = cert.subject().as_raw().to_vec();
            let issuer_der = cert.issuer().as_raw().to_vec();
            let serial_der = minimal_integer(cert.raw_serial()).to_vec();
            Cert {
                subject: crate::name::rfc4514(&subject_der),
                issuer: crate::name::rfc4514(&issuer_der),
                serial: crate::name::hex(&serial_der),
                self_issued: subject_der == issuer_der,
                is_ca,
                crl_sign,
                not_before: Timestamp(cert.validity().not_before.timestamp()),
                not_after: Timestamp(cert.validity().not_after.timestamp()),
                der: Vec::new(),
                subject_der,
                issuer_der,
                serial_der,
                spki: cert.public_key().raw.to_vec(),
                subject_key_id: skid,
            }
        };
        Ok(Cert { der, ..parsed })
    }

    /// The certificate's DER.
    pub fn der(&self) -> &[u8] {
        &self.der
    }

    /// Minimal serial bytes.
    pub fn serial_bytes(&self) -> &[u8] {
        &self.serial_der
    }
}
