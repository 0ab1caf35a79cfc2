//! Errors of `certgate crl`. Input errors are collected (every unreadable file is reported in
//! one run) and printed one per line; only a failure to write the output is returned as `Err`.

use std::path::PathBuf;

use crate::shared::manifests::LoadErrors;

/// One input that could not be used. Each message says what was wrong, where, and what to do.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("cannot read {}: {source}", path.display())]
    Read { path: PathBuf, source: std::io::Error },
    #[error("{}: larger than the {limit} byte limit; give a single PEM bundle, not a disk image or log", path.display())]
    TooLarge { path: PathBuf, limit: usize },
    #[error("{}: {source}", path.display())]
    Bundle { path: PathBuf, source: certgate_crl::BundleError },
    #[error(
        "{} holds no X509 CRL block: give PEM CRLs (-----BEGIN X509 CRL-----); convert a DER CRL with `openssl crl -inform DER -in FILE -out FILE.pem`",
        path.display()
    )]
    NoCrl { path: PathBuf },
    #[error(
        "{} holds no CERTIFICATE block: {what} must be PEM certificates (-----BEGIN CERTIFICATE-----)",
        path.display()
    )]
    NoCertificate { path: PathBuf, what: &'static str },
    #[error("{what}, certificate #{number}: {source}")]
    BadCertificate { what: String, number: usize, source: certgate_crl::CertParseError },
    /// Manifest files of `crl check` (messages from the shared loader).
    #[error(transparent)]
    Load(LoadErrors),
    #[error(
        "{0}: the object was not used; fix it (the API server would have refused it) or leave it out"
    )]
    Unusable(String),
    #[error(
        "no HTTPProxy (projectcontour.io/v1) in the inputs: give the HTTPProxies with -f, together with the Secrets and TLSCertificateDelegations they refer to"
    )]
    NoHttpProxy,
}

impl InputError {
    /// One line per problem (the manifest loader may report several at once).
    pub fn lines(&self) -> Vec<String> {
        match self {
            InputError::Load(LoadErrors(errors)) => {
                errors.iter().map(ToString::to_string).collect()
            }
            other => vec![other.to_string()],
        }
    }
}

/// What `certgate crl` returns to `main`.
#[derive(Debug, thiserror::Error)]
pub enum CrlError {
    #[error("cannot write the output: {0}")]
    Io(#[from] std::io::Error),
    #[error("cannot render the output: {0}")]
    Render(#[from] serde_json::Error),
}
