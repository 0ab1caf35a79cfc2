//! What can go wrong issuing a certificate. Texts are cert-manager's wherever cert-manager
//! has one users see (CertificateRequest conditions and events); the few certgate-only
//! cases say what to change.

use crate::csr::CsrError;

use super::usages::print;

/// Which issuer is signing: the condition reasons differ between them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IssuerKind {
    Ca,
    SelfSigned,
}

/// A failure after the issuer's secret was read. `Display` is the condition message
/// cert-manager writes (`<message>: <error>`, pkg/controller/certificaterequests/util), and
/// [`IssueError::reason`] its reason; cert-manager marks the request Failed for all of them.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IssueError {
    #[error("Error generating certificate template: {0}")]
    Template(#[from] TemplateError),
    /// SelfSigned: the private key in the referenced Secret is not the CSR's key.
    #[error("Error generating certificate template: CSR not signed by referenced private key")]
    KeyMismatch,
    #[error("Error signing certificate: {0}")]
    Signing(#[from] SigningError),
}

impl IssueError {
    /// The condition reason cert-manager's CA and SelfSigned issuers use (ca.go,
    /// selfsigned.go in pkg/controller/certificaterequests).
    pub fn reason(&self, issuer: IssuerKind) -> &'static str {
        match (issuer, self) {
            (IssuerKind::Ca, _) => "SigningError",
            (IssuerKind::SelfSigned, IssueError::Template(_)) => "ErrorGenerating",
            (IssuerKind::SelfSigned, IssueError::KeyMismatch) => "ErrorKeyMatch",
            (IssuerKind::SelfSigned, IssueError::Signing(_)) => "ErrorSigning",
        }
    }
}

/// Why no certificate template could be made from a CertificateRequest
/// (`CertificateTemplateFromCertificateRequest`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TemplateError {
    /// `spec.usages` names cert-manager does not know, in order.
    #[error("unknown key usages: [{}]", .0.join(" "))]
    UnknownUsages(Vec<String>),
    #[error(
        "error decoding certificate request PEM block: provided PEM data was larger than the maximum {limit}B"
    )]
    RequestTooLarge { limit: usize },
    #[error("error decoding certificate request PEM block: no PEM data was found in given input")]
    NoPem,
    /// The PKCS#10 structure, its key, subject or self-signature (the crate's texts).
    #[error("{0}")]
    Csr(#[from] CsrError),
    #[error("x509: certificate request contains duplicate requested extensions")]
    DuplicateExtension,
    /// A subjectAltName entry Go's request parser rejects; Go's text.
    #[error("{reason}")]
    SubjectAltName { reason: String },
    /// A requested basicConstraints, keyUsage, extKeyUsage or nameConstraints extension that
    /// cert-manager cannot read.
    #[error("{reason}")]
    Extension { reason: String },
    #[error("encoded CSR error: IsCA {requested} does not match expected value {expected}")]
    IsCaMismatch { requested: bool, expected: bool },
    /// The CSR's keyUsage differs from what `spec.usages` and `spec.isCA` ask for.
    #[error(
        "encoded CSR error: the KeyUsages {} do not match the expected KeyUsages {}",
        print(.requested),
        print(.expected)
    )]
    KeyUsageMismatch { requested: Vec<String>, expected: Vec<String> },
    /// The CSR's known extended key usages differ (order and repeats count).
    #[error(
        "encoded CSR error: the ExtKeyUsages {} do not match the expected ExtKeyUsages {}",
        print(.requested),
        print(.expected)
    )]
    ExtKeyUsageMismatch { requested: Vec<String>, expected: Vec<String> },
    /// certgate-only: `now + spec.duration` is outside what the platform's clock type holds.
    #[error("spec.duration {duration} puts the certificate's NotAfter out of range")]
    DurationOutOfRange { duration: String },
}

/// Why signing failed once the template was made (`pki.SignCertificate`,
/// `pki.SignCSRTemplate`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SigningError {
    /// `bits` is the modulus length in whole bytes, times 8, as Go's `Size() * 8`.
    #[error("invalid size {bits} for RSA key on signing certificate")]
    RsaKeyTooSmall { bits: usize },
    #[error("unknown / unsupported curve attached to ECDSA signing certificate")]
    UnsupportedCurve,
    /// certgate-only: the signer (ring) handles RSA moduli of 2048 to 4096 bits; cert-manager
    /// signs with up to 8192.
    #[error(
        "RSA signing keys must have a modulus of 2048 to 4096 bits in certgate, this one has \
         {bits} bits; use a smaller CA key"
    )]
    RsaKeyUnsupported { bits: usize },
    /// CA: `tls.key` is not the key of the first certificate in `tls.crt`.
    #[error(
        "error creating x509 certificate: x509: provided PrivateKey doesn't match parent's PublicKey"
    )]
    CaKeyMismatch,
    #[error(
        "error creating x509 certificate: asn1: structure error: cannot represent time as GeneralizedTime"
    )]
    TimeOutOfRange,
    /// The signer failed; should not happen with a key that parsed.
    #[error("error creating x509 certificate: {reason}")]
    Signer { reason: String },
    #[error(
        "error creating x509 certificate: x509: signature returned by signer is invalid: {reason}"
    )]
    InvalidSignature { reason: String },
    /// The certificate just made does not parse back.
    #[error("error decoding DER certificate bytes: {reason}")]
    Reparse { reason: String },
    #[error("certificate chain is too long, must be less than 1000 certificates")]
    ChainTooLong,
    /// The CA's certificates and the new one do not form a single chain.
    #[error("certificate chain is malformed or broken")]
    ChainBroken,
}

/// Why a private key (`tls.key`) could not be read (`pki.DecodePrivateKeyBytes`). The CA
/// issuer reports it as `Failed to parse signing CA keypair from secret <ns>/<name>: <this>`
/// (reason `SecretInvalidData`), SelfSigned as `Failed to get key "<name>" referenced in
/// annotation "cert-manager.io/private-key-secret-name": <this>` (reason `ErrorParsingKey`),
/// both leaving the request Pending.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PrivateKeyError {
    #[error(
        "error decoding private key PEM block: provided PEM data was larger than the maximum {limit}B"
    )]
    TooLarge { limit: usize },
    #[error("error decoding private key PEM block: no PEM data was found in given input")]
    NoPem,
    #[error("error parsing pkcs#8 private key: {reason}")]
    Pkcs8 { reason: String },
    #[error("error parsing ecdsa private key: {reason}")]
    Ec { reason: String },
    #[error("error parsing rsa private key: {reason}")]
    Rsa { reason: String },
    #[error("unknown private key type: {label}")]
    UnknownType { label: String },
}

/// Why the CA issuer's Secret (`tls.crt`, `tls.key`, `ca.crt`) could not be used
/// (`kube.SecretTLSKeyPairAndCA`); reported like [`PrivateKeyError`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CaError {
    #[error("{0}")]
    Key(#[from] PrivateKeyError),
    #[error("provided PEM data was larger than the maximum {limit}B")]
    TooLarge { limit: usize },
    #[error("error decoding certificate PEM block: no valid certificates found")]
    NoCertificates,
    #[error("error parsing X.509 certificate: {reason}")]
    Certificate { reason: String },
}
