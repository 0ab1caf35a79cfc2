//! The TLS client configuration for one `caBundle`: its certificates are the only trust
//! anchors (ring provider, TLS 1.2 and 1.3, HTTP/1.1 through ALPN).

use std::sync::Arc;

use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use rustls::{ClientConfig, RootCertStore};

use crate::call_error::CallError;

/// Builds the client configuration. An empty bundle gives a configuration with no trust
/// anchors: upstream would fall back to the system roots, which the sandbox does not load,
/// so every server certificate fails verification (the error says a caBundle is needed).
pub(crate) fn client_config(ca_bundle: &[u8]) -> Result<Arc<ClientConfig>, CallError> {
    let mut roots = RootCertStore::empty();
    if !ca_bundle.is_empty() {
        let certificates: Vec<CertificateDer<'static>> =
            CertificateDer::pem_slice_iter(ca_bundle).filter_map(Result::ok).collect();
        // Go's `AppendCertsFromPEM` accepts the bundle when at least one certificate parses.
        let (added, _ignored) = roots.add_parsable_certificates(certificates);
        if added == 0 {
            return Err(CallError::RestClient(
                "unable to load root certificates: unable to parse bytes as PEM block".to_owned(),
            ));
        }
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13, &rustls::version::TLS12])
        .map_err(|e| CallError::RestClient(e.to_string()))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}
