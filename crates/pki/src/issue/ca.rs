//! The CA issuer's Secret as cert-manager reads it (`kube.SecretTLSKeyPairAndCA` in
//! pkg/util/kube/pki.go): `tls.key` first, then every PEM block of `tls.crt` (any label) as a
//! certificate, the first being the signer's, then the first certificate of `ca.crt` when
//! that key is present and not empty, appended to the chain.

use super::CaError;
use super::certificate::{self, Certificate};
use super::private_key::{PrivateKey, parse_private_key};
use crate::pem;

/// cert-manager's size limit for `tls.crt` (`maxCertificateChainSize` in internal/pem:
/// nine 6,500-byte CA certificates and one 36,500-byte leaf).
pub const MAX_CHAIN_PEM_BYTES: usize = 9 * 6_500 + 36_500;
/// cert-manager's size limit for `ca.crt` (`maxBundleSize`: 150 certificates of 2,200 bytes).
pub const MAX_BUNDLE_PEM_BYTES: usize = 150 * 2_200;

/// A CA certificate chain and the signer's private key.
#[derive(Debug)]
pub struct CaKeyPair {
    /// `tls.crt` in order, then `ca.crt`'s first certificate; never empty.
    pub(super) certificates: Vec<Certificate>,
    pub(super) key: PrivateKey,
}

impl CaKeyPair {
    /// Reads the Secret's `tls.crt`, `tls.key` and (optional) `ca.crt` values.
    pub fn from_secret(
        tls_crt: &[u8],
        tls_key: &[u8],
        ca_crt: Option<&[u8]>,
    ) -> Result<Self, CaError> {
        let key = parse_private_key(tls_key)?;
        let mut certificates = decode_certificates(tls_crt, MAX_CHAIN_PEM_BYTES)?;
        if let Some(ca) = ca_crt.filter(|ca| !ca.is_empty()) {
            // Every certificate of ca.crt must parse; the first is used.
            let bundle = decode_certificates(ca, MAX_BUNDLE_PEM_BYTES)?;
            certificates.extend(bundle.into_iter().take(1));
        }
        Ok(CaKeyPair { certificates, key })
    }

    /// The signing certificate's DER (the first of `tls.crt`).
    pub fn signer_certificate(&self) -> &[u8] {
        self.certificates.first().map(|c| c.der.as_slice()).unwrap_or_default()
    }

    pub(super) fn signer(&self) -> Option<&Certificate> {
        self.certificates.first()
    }
}

/// `decodeMultipleCerts`: every PEM block in turn; the size limit applies to what is left
/// before each block.
fn decode_certificates(mut input: &[u8], limit: usize) -> Result<Vec<Certificate>, CaError> {
    let mut certificates = Vec::new();
    loop {
        if input.len() > limit {
            return Err(CaError::TooLarge { limit });
        }
        let Some((block, rest)) = pem::decode(input) else { break };
        input = rest;
        let certificate =
            certificate::parse(&block.der).map_err(|reason| CaError::Certificate { reason })?;
        certificates.push(certificate);
    }
    if certificates.is_empty() {
        return Err(CaError::NoCertificates);
    }
    Ok(certificates)
}
