//! The SDS `Secret`s: Contour's for a serving certificate (internal/envoy/v3/secret.go), the
//! chain and key inline, named `ns/name/<hash of tls.crt>` (`envoy.Secretname`), the name the
//! downstream TLS context refers to; and certgate's for a client validation context when it is
//! delivered over SDS ([`super::ValidationDelivery::Sds`]).

use super::names::{secret_name, validation_secret_name};
use super::translate::validation_context;
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

/// The client-validation secret of a TLS vhost that validates client certificates: the same
/// `CertificateValidationContext` Contour inlines, under [`validation_secret_name`].
pub fn validation_secret(vhost: &ValidatedVhost) -> Option<Secret> {
    let peer = vhost.peer_validation.as_ref()?;
    Some(Secret {
        name: validation_secret_name(&vhost.fqdn),
        r#type: Some(SecretType::ValidationContext(validation_context(peer))),
    })
}
