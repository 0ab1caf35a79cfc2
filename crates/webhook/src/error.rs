//! Errors of the webhook server: each says what failed, on which file or address, and what to do.

use std::net::SocketAddr;
use std::path::PathBuf;

/// Why a serving certificate could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    #[error("cannot read {role} file {path}: {source}")]
    Read { role: &'static str, path: PathBuf, source: std::io::Error },
    #[error(
        "the TLS certificate PEM holds no CERTIFICATE block; give a PEM file starting with the serving certificate, followed by its intermediates"
    )]
    NoCertificate,
    #[error("the TLS certificate PEM is malformed: {0}")]
    CertificatePem(rustls::pki_types::pem::Error),
    #[error(
        "the TLS private key PEM is unusable ({0}); give one PKCS#8, PKCS#1 (RSA) or SEC1 (EC) private key"
    )]
    KeyPem(rustls::pki_types::pem::Error),
    #[error(
        "the TLS certificate and private key do not form a usable pair ({0}); check that the key belongs to the first certificate"
    )]
    Pair(rustls::Error),
}

/// Why `--dev-self-signed` could not generate its certificates.
#[derive(Debug, thiserror::Error)]
pub enum DevCertError {
    #[error("invalid --dns-name {name:?}: {source}")]
    DnsName { name: String, source: rcgen::Error },
    #[error("cannot generate the development {what}: {source}")]
    Generate { what: &'static str, source: rcgen::Error },
}

/// Why the server could not start or stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error(transparent)]
    Tls(#[from] TlsError),
    #[error("cannot listen on {addr}: {source}; choose a free address with --listen")]
    Bind { addr: SocketAddr, source: std::io::Error },
    #[error(
        "the dynamic serving certificate provider stopped before producing a certificate; see the errors logged before this one"
    )]
    NoDynamicCertificate,
    #[error("the HTTPS server stopped: {0}")]
    Server(std::io::Error),
    #[error("the HTTPS server task failed: {0}")]
    Task(#[from] tokio::task::JoinError),
}
