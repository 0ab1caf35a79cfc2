//! Contour's `DownstreamTLSContext` (internal/envoy/v3/auth.go) for a validated secure vhost.

use super::names::{secret_name, validation_secret_name};
use super::types::{
    ApiConfigSource, ApiType, ApiVersion, BoolValue, CertificateValidationContext,
    CommonTlsContext, ConfigSource, ConfigSourceSpecifier, DataSource, DataSourceSpecifier,
    DownstreamTlsContext, EnvoyGrpc, GrpcService, SdsSecretConfig, TargetSpecifier, TlsParameters,
    TlsProtocol, TrustChainVerification, ValidationContextType,
};
use crate::validate::{PeerValidation, ValidatedVhost};

/// Contour's `DefaultTLSCiphers` (BoringSSL names; bracketed groups are equal preference).
pub const DEFAULT_CIPHER_SUITES: [&str; 4] = [
    "[ECDHE-ECDSA-AES128-GCM-SHA256|ECDHE-ECDSA-CHACHA20-POLY1305]",
    "[ECDHE-RSA-AES128-GCM-SHA256|ECDHE-RSA-CHACHA20-POLY1305]",
    "ECDHE-ECDSA-AES256-GCM-SHA384",
    "ECDHE-RSA-AES256-GCM-SHA384",
];

/// ALPN protocols of Contour's HTTPS filter chains.
pub const DEFAULT_ALPN_PROTOCOLS: [&str; 2] = ["h2", "http/1.1"];

/// Where a virtual host's client validation (CA, CRL and their settings) is put.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ValidationDelivery {
    /// Inline in the listener's filter chain, as Contour does. A changed CA or CRL then changes
    /// the filter chain, and Envoy drains the connections the old chain holds.
    #[default]
    Inline,
    /// In an SDS secret of its own per virtual host, with a name that does not change with its
    /// content ([`validation_secret_name`]). A changed CA or CRL then changes only that secret:
    /// new handshakes use it at once, and established connections stay open.
    Sds,
}

/// The parts of the Contour/Envoy configuration that are not in the objects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TranslateOptions {
    /// Name of the xDS cluster in Envoy's bootstrap (Contour's default: `contour`).
    pub xds_cluster_name: String,
    pub cipher_suites: Vec<String>,
    pub validation: ValidationDelivery,
}

impl Default for TranslateOptions {
    fn default() -> Self {
        TranslateOptions {
            xds_cluster_name: "contour".to_string(),
            cipher_suites: DEFAULT_CIPHER_SUITES.iter().map(|s| s.to_string()).collect(),
            validation: ValidationDelivery::Inline,
        }
    }
}

fn protocol(version: &str) -> TlsProtocol {
    match version {
        "1.3" => TlsProtocol::TlSv13,
        _ => TlsProtocol::TlSv12,
    }
}

fn inline_bytes(bytes: &[u8]) -> DataSource {
    DataSource {
        specifier: Some(DataSourceSpecifier::InlineBytes(bytes.to_vec())),
        ..DataSource::default()
    }
}

/// Contour's `GetConfigSource`: gRPC to the xDS cluster, v3 everywhere, authority = cluster name
/// with `/` turned into `.`.
pub(crate) fn config_source(cluster: &str) -> ConfigSource {
    let grpc = GrpcService {
        target_specifier: Some(TargetSpecifier::EnvoyGrpc(EnvoyGrpc {
            cluster_name: cluster.to_string(),
            authority: cluster.replace('/', "."),
            ..EnvoyGrpc::default()
        })),
        ..GrpcService::default()
    };
    ConfigSource {
        config_source_specifier: Some(ConfigSourceSpecifier::ApiConfigSource(ApiConfigSource {
            api_type: ApiType::Grpc.into(),
            transport_api_version: ApiVersion::V3.into(),
            grpc_services: vec![grpc],
            ..ApiConfigSource::default()
        })),
        resource_api_version: ApiVersion::V3.into(),
        ..ConfigSource::default()
    }
}

/// Contour's `validationContext`: CA and CRL inline (not SDS), chain verification relaxed to
/// `ACCEPT_UNTRUSTED` by `skipClientCertValidation`, no SAN matchers downstream.
pub(crate) fn validation_context(peer: &PeerValidation) -> CertificateValidationContext {
    let mut vc = CertificateValidationContext {
        trust_chain_verification: if peer.skip_client_cert_validation {
            TrustChainVerification::AcceptUntrusted
        } else {
            TrustChainVerification::VerifyTrustChain
        }
        .into(),
        ..CertificateValidationContext::default()
    };
    if let Some((_, ca)) = &peer.ca
        && !ca.is_empty()
    {
        vc.trusted_ca = Some(inline_bytes(ca));
    }
    if let Some((_, crl)) = &peer.crl
        && !crl.is_empty()
    {
        // Passed through unchanged, even when it is not PEM (Envoy then rejects the config).
        vc.crl = Some(inline_bytes(crl));
        vc.only_verify_leaf_cert_crl = peer.only_verify_leaf_cert_crl;
    }
    vc
}

/// The `DownstreamTlsContext` Contour attaches to the vhost's filter chain.
pub fn downstream_tls_context(
    vhost: &ValidatedVhost,
    options: &TranslateOptions,
) -> DownstreamTlsContext {
    let mut common = CommonTlsContext {
        tls_params: Some(TlsParameters {
            tls_minimum_protocol_version: protocol(&vhost.min_tls_version).into(),
            tls_maximum_protocol_version: protocol(&vhost.max_tls_version).into(),
            cipher_suites: options.cipher_suites.clone(),
            ..TlsParameters::default()
        }),
        tls_certificate_sds_secret_configs: vec![SdsSecretConfig {
            name: secret_name(&vhost.serving_secret, &vhost.serving_certificate),
            sds_config: Some(config_source(&options.xds_cluster_name)),
        }],
        alpn_protocols: DEFAULT_ALPN_PROTOCOLS.iter().map(|s| s.to_string()).collect(),
        ..CommonTlsContext::default()
    };
    let mut context = DownstreamTlsContext::default();
    if let Some(peer) = &vhost.peer_validation {
        common.validation_context_type = Some(match options.validation {
            ValidationDelivery::Inline => {
                ValidationContextType::ValidationContext(validation_context(peer))
            }
            ValidationDelivery::Sds => {
                ValidationContextType::ValidationContextSdsSecretConfig(SdsSecretConfig {
                    name: validation_secret_name(&vhost.fqdn),
                    sds_config: Some(config_source(&options.xds_cluster_name)),
                })
            }
        });
        context.require_client_certificate =
            Some(BoolValue { value: !peer.optional_client_certificate });
    }
    context.common_tls_context = Some(common);
    context
}
