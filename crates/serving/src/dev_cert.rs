//! `--dev-self-signed`: a throw-away CA and a serving certificate it signs, for running the
//! webhook locally (the CA bundle goes into a webhook configuration's `caBundle`).

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa,
    KeyPair, KeyUsagePurpose,
};

use crate::tls::PemPair;

/// Names every development serving certificate carries, so loopback clients can verify it.
const LOOPBACK_NAMES: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// Why `--dev-self-signed` could not generate its certificates.
#[derive(Debug, thiserror::Error)]
pub enum DevCertError {
    #[error("invalid --dns-name {name:?}: {source}")]
    DnsName { name: String, source: rcgen::Error },
    #[error("cannot generate the development {what}: {source}")]
    Generate { what: &'static str, source: rcgen::Error },
}

/// A development CA and a serving certificate signed by it (ECDSA P-256 keys).
#[derive(Debug)]
pub struct DevCertificates {
    /// The CA certificate, PEM: what clients must trust.
    pub ca_pem: String,
    /// The serving certificate and its key.
    pub serving: PemPair,
}

impl DevCertificates {
    /// Generates a fresh CA and a serving certificate for `localhost`, `127.0.0.1`, `::1`
    /// and `dns_names` (each a DNS name or an IP address).
    pub fn generate(dns_names: &[String]) -> Result<Self, DevCertError> {
        let generate = |what| move |source| DevCertError::Generate { what, source };

        let mut ca_params =
            CertificateParams::new(Vec::<String>::new()).map_err(generate("CA certificate"))?;
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
        ca_params.distinguished_name.push(DnType::CommonName, "certgate webhook development CA");
        ca_params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let ca_key = KeyPair::generate().map_err(generate("CA key"))?;
        let ca =
            CertifiedIssuer::self_signed(ca_params, ca_key).map_err(generate("CA certificate"))?;

        let mut names: Vec<String> = LOOPBACK_NAMES.iter().map(|n| (*n).to_owned()).collect();
        for name in dns_names {
            // Checked one by one so the error names the offending flag value.
            CertificateParams::new(vec![name.clone()])
                .map_err(|source| DevCertError::DnsName { name: name.clone(), source })?;
            if !names.contains(name) {
                names.push(name.clone());
            }
        }
        let mut params = CertificateParams::new(names).map_err(generate("serving certificate"))?;
        params.distinguished_name.push(DnType::CommonName, "certgate webhook (development)");
        params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        let key = KeyPair::generate().map_err(generate("serving key"))?;
        let cert = params.signed_by(&key, &ca).map_err(generate("serving certificate"))?;

        Ok(Self {
            ca_pem: ca.pem(),
            serving: PemPair {
                cert: cert.pem().into_bytes(),
                key: key.serialize_pem().into_bytes(),
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::sync::Arc;

    use rustls::pki_types::ServerName;
    use rustls::pki_types::pem::PemObject;
    use rustls::{ClientConnection, RootCertStore, ServerConnection};

    /// A full TLS handshake in memory: a client trusting only `ca_pem` connects to `name`.
    fn handshake(certificates: &DevCertificates, name: &str) -> Result<(), rustls::Error> {
        let mut roots = RootCertStore::empty();
        roots.add(
            rustls::pki_types::CertificateDer::from_pem_slice(certificates.ca_pem.as_bytes())
                .unwrap(),
        )?;
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let client_config = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()?
            .with_root_certificates(roots)
            .with_no_client_auth();
        let server_name = ServerName::try_from(name.to_owned()).unwrap();
        let mut client = ClientConnection::new(Arc::new(client_config), server_name)?;
        let mut server =
            ServerConnection::new(crate::tls::server_config(&certificates.serving).unwrap())?;
        for _ in 0..10 {
            let mut flight = Vec::new();
            while client.wants_write() {
                client.write_tls(&mut flight).unwrap();
            }
            server.read_tls(&mut flight.as_slice()).unwrap();
            server.process_new_packets()?;
            let mut flight = Vec::new();
            while server.wants_write() {
                server.write_tls(&mut flight).unwrap();
            }
            client.read_tls(&mut flight.as_slice()).unwrap();
            client.process_new_packets()?;
            if !client.is_handshaking() && !server.is_handshaking() {
                return Ok(());
            }
        }
        panic!("the handshake did not finish");
    }

    #[test]
    fn the_ca_verifies_the_serving_certificate_for_every_name() {
        let names = ["certgate-webhook.certgate.svc".to_owned(), "10.0.0.7".to_owned()];
        let certificates = DevCertificates::generate(&names).unwrap();
        for name in ["localhost", "127.0.0.1", "::1", &names[0], &names[1]] {
            handshake(&certificates, name).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        let err = handshake(&certificates, "other.example").unwrap_err();
        assert!(
            matches!(
                err,
                rustls::Error::InvalidCertificate(
                    rustls::CertificateError::NotValidForNameContext { .. }
                )
            ),
            "{err:?}"
        );
    }

    #[test]
    fn rejects_an_invalid_dns_name_by_name() {
        let err = DevCertificates::generate(&["b\u{fc}cher.example".to_owned()]).unwrap_err();
        assert!(err.to_string().starts_with("invalid --dns-name \"bücher.example\": "), "{err}");
    }

    #[test]
    fn each_run_makes_a_new_ca() {
        let a = DevCertificates::generate(&[]).unwrap();
        let b = DevCertificates::generate(&[]).unwrap();
        assert_ne!(a.ca_pem, b.ca_pem);
        assert!(a.ca_pem.starts_with("-----BEGIN CERTIFICATE-----\n"));
    }
}
