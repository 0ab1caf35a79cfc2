//! Contour's Secret checks for the three roles a Secret can play on an `HTTPProxy`: CA bundle
//! (`ca.crt`), CRL bundle (`crl.pem`) and serving certificate (`tls.crt` + `tls.key`).
//!
//! The error texts are Contour's, because they end up verbatim in the `HTTPProxy` status.
//! CA and CRL checks are deliberately shallow (spec §2): PEM framing and block types only;
//! the DER is never parsed, so an expired or wrongly signed CRL passes.

use certgate_crl::{
    CERTIFICATE_LABEL, ContourBlocks, ContourPemError, validate_ca_pem, validate_crl_pem,
};

use crate::types::Secret;

/// Key of the CA bundle in a Secret.
pub const CA_CERTIFICATE_KEY: &str = "ca.crt";
/// Key of the CRL bundle in a Secret.
pub const CRL_KEY: &str = "crl.pem";
/// Key of the serving certificate chain.
pub const TLS_CERT_KEY: &str = "tls.crt";
/// Key of the serving private key.
pub const TLS_PRIVATE_KEY_KEY: &str = "tls.key";

const SECRET_TYPE_TLS: &str = "kubernetes.io/tls";
const SECRET_TYPE_OPAQUE: &str = "Opaque";

/// A Secret check failure; `Display` is Contour's message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SecretError {
    #[error("secret type is not \"kubernetes.io/tls\" or \"Opaque\"")]
    WrongType,
    #[error("empty \"{0}\" key")]
    EmptyKey(&'static str),
    #[error("invalid CA certificate bundle: {0}")]
    CaBundle(PemError),
    #[error("{0}")]
    Crl(PemError),
    #[error("missing TLS certificate")]
    MissingTlsCertificate,
    #[error("invalid TLS certificate: {0}")]
    TlsCertificate(PemError),
    #[error("missing TLS private key")]
    MissingTlsPrivateKey,
    #[error("invalid TLS private key: {0}")]
    TlsPrivateKey(PemError),
}

/// The inner error of a PEM bundle walk. The texts of the walk errors shared with the CA and
/// CRL checks are `certgate-crl`'s [`ContourPemError`] ones, written once there.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PemError {
    #[error("{}", ContourPemError::FailedToParse)]
    ParseBlock,
    /// The label is shown as Go's `%s` of a string: invalid UTF-8 is passed through, which JSON
    /// encoding later replaces with U+FFFD, as `String::from_utf8_lossy` does here.
    #[error("{}", ContourPemError::UnexpectedBlockType(.0.clone()))]
    UnexpectedBlockType(String),
    #[error("{}", ContourPemError::NoCertificate)]
    NoCertificate,
    #[error("{}", ContourPemError::NoCrl)]
    NoCrl,
    /// Go's `x509.ParseCertificate` failure (its exact wording is not reproduced).
    #[error("x509: malformed certificate")]
    MalformedCertificate,
    #[error("certificate has no common name or subject alt name")]
    NoNameInCertificate,
    #[error("failed to locate private key")]
    NoPrivateKey,
    #[error("multiple private keys")]
    MultiplePrivateKeys,
}

impl From<ContourPemError> for PemError {
    fn from(error: ContourPemError) -> Self {
        match error {
            ContourPemError::FailedToParse => Self::ParseBlock,
            ContourPemError::UnexpectedBlockType(label) => Self::UnexpectedBlockType(label),
            ContourPemError::NoCertificate => Self::NoCertificate,
            ContourPemError::NoCrl => Self::NoCrl,
        }
    }
}

fn type_is_tls_or_opaque(secret: &Secret) -> bool {
    secret.type_ == SECRET_TYPE_TLS || secret.type_ == SECRET_TYPE_OPAQUE
}

/// The value of `key` in a TLS or Opaque Secret, which must not be empty (the first two steps
/// of Contour's CA and CRL Secret checks).
fn bundle_key<'a>(secret: &'a Secret, key: &'static str) -> Result<&'a [u8], SecretError> {
    if !type_is_tls_or_opaque(secret) {
        return Err(SecretError::WrongType);
    }
    let data = secret.data.get(key).map(Vec::as_slice).unwrap_or_default();
    if data.is_empty() {
        return Err(SecretError::EmptyKey(key));
    }
    Ok(data)
}

/// Contour's `validCASecret` (spec §2.1).
pub fn validate_ca_secret(secret: &Secret) -> Result<(), SecretError> {
    validate_ca_bundle(bundle_key(secret, CA_CERTIFICATE_KEY)?).map_err(SecretError::CaBundle)
}

/// Contour's `validateCABundle`: every block must be a `CERTIFICATE`, at least one must exist.
pub fn validate_ca_bundle(data: &[u8]) -> Result<(), PemError> {
    validate_ca_pem(data).map_err(PemError::from)
}

/// Contour's `validCRLSecret` (spec §2.2). Errors of the CRL walk are not wrapped.
pub fn validate_crl_secret(secret: &Secret) -> Result<(), SecretError> {
    validate_crl_bundle(bundle_key(secret, CRL_KEY)?).map_err(SecretError::Crl)
}

/// Contour's `validateCRL`: succeeds at the first `X509 CRL` block; other blocks are skipped.
pub fn validate_crl_bundle(data: &[u8]) -> Result<(), PemError> {
    validate_crl_pem(data).map_err(PemError::from)
}

/// Contour's `validTLSSecret` for the serving certificate. The first certificate is parsed (for
/// the CN/SAN check, as Contour does); private-key DER is not parsed (see crate docs).
pub fn validate_tls_secret(secret: &Secret) -> Result<(), SecretError> {
    if !type_is_tls_or_opaque(secret) {
        return Err(SecretError::WrongType);
    }
    let cert = secret.data.get(TLS_CERT_KEY).ok_or(SecretError::MissingTlsCertificate)?;
    validate_serving_bundle(cert).map_err(SecretError::TlsCertificate)?;
    let key = secret.data.get(TLS_PRIVATE_KEY_KEY).ok_or(SecretError::MissingTlsPrivateKey)?;
    validate_private_key(key).map_err(SecretError::TlsPrivateKey)
}

fn validate_serving_bundle(data: &[u8]) -> Result<(), PemError> {
    let mut certificates = 0usize;
    for block in ContourBlocks::new(data) {
        let block = block?;
        if block.label != CERTIFICATE_LABEL {
            return Err(PemError::UnexpectedBlockType(block.label));
        }
        let has_name = certificate_has_name(&block.der)?;
        // Only the first certificate of a serving bundle needs a CN or SAN.
        if certificates == 0 && !has_name {
            return Err(PemError::NoNameInCertificate);
        }
        certificates += 1;
    }
    if certificates > 0 { Ok(()) } else { Err(PemError::NoCertificate) }
}

/// Go's `hasCommonName || hasSubjectAltNames` (DNS names or IP addresses).
fn certificate_has_name(der: &[u8]) -> Result<bool, PemError> {
    use x509_parser::prelude::{FromDer, GeneralName, X509Certificate};
    let (_, cert) = X509Certificate::from_der(der).map_err(|_| PemError::MalformedCertificate)?;
    let has_cn = cert
        .subject()
        .iter_common_name()
        .filter_map(|cn| cn.as_str().ok())
        .last()
        .is_some_and(|cn| !cn.trim().is_empty());
    let has_san = match cert.subject_alternative_name() {
        Ok(Some(san)) => san
            .value
            .general_names
            .iter()
            .any(|name| matches!(name, GeneralName::DNSName(_) | GeneralName::IPAddress(_))),
        _ => false,
    };
    Ok(has_cn || has_san)
}

fn validate_private_key(data: &[u8]) -> Result<(), PemError> {
    let mut keys = 0usize;
    for block in ContourBlocks::new(data) {
        let block = block?;
        match block.label.as_str() {
            "PRIVATE KEY" | "RSA PRIVATE KEY" | "EC PRIVATE KEY" => keys += 1,
            "EC PARAMETERS" => {}
            _ => return Err(PemError::UnexpectedBlockType(block.label)),
        }
    }
    match keys {
        0 => Err(PemError::NoPrivateKey),
        1 => Ok(()),
        _ => Err(PemError::MultiplePrivateKeys),
    }
}
