//! Errors of the webhook server: each says what failed, on which file or address, and what to do.

use std::net::SocketAddr;

/// The serving-certificate errors, defined with the helpers that raise them.
pub use certgate_serving::{DevCertError, TlsError};

/// Why the server could not start or stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error(transparent)]
    Tls(#[from] TlsError),
    #[error("cannot listen on {addr}: {source}; choose a free address with --listen")]
    Bind { addr: SocketAddr, source: std::io::Error },
    #[error(
        "cannot serve the metrics port on {addr}: {source}; choose a free address with --metrics-listen"
    )]
    MetricsBind { addr: SocketAddr, source: std::io::Error },
    #[error(
        "the dynamic serving certificate provider stopped before producing a certificate; see the errors logged before this one"
    )]
    NoDynamicCertificate,
    #[error("the HTTPS server stopped: {0}")]
    Server(std::io::Error),
    #[error("the HTTPS server task failed: {0}")]
    Task(#[from] tokio::task::JoinError),
}
