//! Contour's SDS `Secret` for a serving certificate (internal/envoy/v3/secret.go): the chain
//! and key inline, named `ns/name/<hash of tls.crt>` (`envoy.Secretname`), the name the
//! downstream TLS context refers to.

use super::names::secret_name;
use super::types::{DataSource, DataSourceSpecifier};
use super::xds_types::{Secret, SecretType, TlsCertificate};
use crate::validate::ValidatedVhost;

fn inline(bytes: &[u8]) -> DataSource {
    DataSource {
        specifier: Some(DataSourceSpecifier::InlineBytes(bytes.to_vec())),
        ..DataSource::default()
    }
}

/// The serving-certificate secret of a TLS vhost.
pub fn serving_secret(vhost: &ValidatedVhost) -> Secret {
    Secret {
        name: secret_name(&vhost.serving_secret, &vhost.serving_certificate),
        r#type: Some(SecretType::TlsCertificate(TlsCertificate {
            certificate_chain: Some(inline(&vhost.serving_certificate)),
            private_key: Some(inline(&vhost.serving_private_key)),
            ..TlsCertificate::default()
        })),
    }
}
