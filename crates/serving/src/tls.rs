//! Building the rustls server configuration from a PEM certificate chain and private key:
//! the one place every certgate HTTPS server (the webhook, the sandbox API server) gets its
//! TLS settings from.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::ServerConfig;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

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
    #[error("the client CA PEM is malformed: {0}")]
    ClientCaPem(rustls::pki_types::pem::Error),
    #[error(
        "the client CA PEM holds no usable CERTIFICATE block; give the PEM of the CA that signs the clients' certificates"
    )]
    NoClientCa,
    #[error("cannot verify client certificates with the client CA: {0}")]
    ClientVerifier(String),
}

/// A serving certificate chain and its private key, as PEM.
#[derive(Clone, PartialEq, Eq)]
pub struct PemPair {
    pub cert: Vec<u8>,
    pub key: Vec<u8>,
}

impl std::fmt::Debug for PemPair {
    // The private key must never reach a log line.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PemPair").field("cert_bytes", &self.cert.len()).finish_non_exhaustive()
    }
}

impl PemPair {
    /// Reads the certificate and key files.
    pub async fn read(cert: &Path, key: &Path) -> Result<Self, TlsError> {
        let read = |role: &'static str, path: &Path| {
            let path = path.to_path_buf();
            async move {
                tokio::fs::read(&path).await.map_err(|source| TlsError::Read { role, path, source })
            }
        };
        Ok(Self {
            cert: read("TLS certificate", cert).await?,
            key: read("TLS private key", key).await?,
        })
    }
}

/// The server configuration for `pair`: TLS 1.3 and 1.2 through ring (the process's only
/// crypto provider), HTTP/2 and HTTP/1.1 offered through ALPN, no client certificates.
///
/// Fails when the key does not belong to the first certificate, so a half-written
/// rotation is refused instead of served.
pub fn server_config(pair: &PemPair) -> Result<Arc<ServerConfig>, TlsError> {
    let chain = CertificateDer::pem_slice_iter(&pair.cert)
        .collect::<Result<Vec<_>, _>>()
        .map_err(TlsError::CertificatePem)?;
    if chain.is_empty() {
        return Err(TlsError::NoCertificate);
    }
    let key = PrivateKeyDer::from_pem_slice(&pair.key).map_err(TlsError::KeyPem)?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13, &rustls::version::TLS12])
        .map_err(TlsError::Pair)?
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .map_err(TlsError::Pair)?;
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

/// The server configuration of a gRPC server whose clients must present a certificate signed
/// by `client_ca` (mutual TLS, as between Envoy and its xDS server): TLS 1.3 and 1.2 through
/// ring, HTTP/2 only through ALPN.
pub fn mutual_tls_server_config(
    pair: &PemPair,
    client_ca: &[u8],
) -> Result<Arc<ServerConfig>, TlsError> {
    let chain = CertificateDer::pem_slice_iter(&pair.cert)
        .collect::<Result<Vec<_>, _>>()
        .map_err(TlsError::CertificatePem)?;
    if chain.is_empty() {
        return Err(TlsError::NoCertificate);
    }
    let key = PrivateKeyDer::from_pem_slice(&pair.key).map_err(TlsError::KeyPem)?;
    let mut roots = rustls::RootCertStore::empty();
    for ca in CertificateDer::pem_slice_iter(client_ca) {
        roots.add(ca.map_err(TlsError::ClientCaPem)?).map_err(|_| TlsError::NoClientCa)?;
    }
    if roots.is_empty() {
        return Err(TlsError::NoClientCa);
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let verifier = rustls::server::WebPkiClientVerifier::builder_with_provider(
        Arc::new(roots),
        provider.clone(),
    )
    .build()
    .map_err(|e| TlsError::ClientVerifier(e.to_string()))?;
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13, &rustls::version::TLS12])
        .map_err(TlsError::Pair)?
        .with_client_cert_verifier(verifier)
        .with_single_cert(chain, key)
        .map_err(TlsError::Pair)?;
    config.alpn_protocols = vec![b"h2".to_vec()];
    Ok(Arc::new(config))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dev_cert::DevCertificates;

    fn dev_pair() -> PemPair {
        DevCertificates::generate(&[]).unwrap().serving
    }

    #[test]
    fn accepts_a_matching_pair() {
        let config = server_config(&dev_pair()).unwrap();
        assert_eq!(config.alpn_protocols, [b"h2".to_vec(), b"http/1.1".to_vec()]);
    }

    #[test]
    fn refuses_a_key_of_another_certificate() {
        let pair = PemPair { cert: dev_pair().cert, key: dev_pair().key };
        let err = server_config(&pair).unwrap_err();
        assert!(matches!(err, TlsError::Pair(_)), "{err:?}");
        assert!(
            err.to_string().contains("check that the key belongs to the first certificate"),
            "{err}"
        );
    }

    #[test]
    fn mutual_tls_needs_a_client_ca() {
        let certificates = DevCertificates::generate(&[]).unwrap();
        let config =
            mutual_tls_server_config(&certificates.serving, certificates.ca_pem.as_bytes())
                .unwrap();
        assert_eq!(config.alpn_protocols, [b"h2".to_vec()]);
        let none = mutual_tls_server_config(&certificates.serving, b"no pem here");
        assert!(matches!(none, Err(TlsError::NoClientCa)), "{none:?}");
    }

    #[test]
    fn refuses_pem_without_certificate() {
        let pair = PemPair { cert: b"not a pem file".to_vec(), key: dev_pair().key };
        assert!(matches!(server_config(&pair), Err(TlsError::NoCertificate)));
    }

    #[test]
    fn refuses_a_missing_key() {
        let pair = PemPair { cert: dev_pair().cert, key: Vec::new() };
        assert!(matches!(server_config(&pair), Err(TlsError::KeyPem(_))));
    }

    #[test]
    fn debug_output_hides_the_key() {
        let pair = dev_pair();
        let shown = format!("{pair:?}");
        assert!(!shown.contains("PRIVATE KEY"), "{shown}");
    }
}
