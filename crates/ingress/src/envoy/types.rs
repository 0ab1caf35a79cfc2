//! The Envoy v3 messages a downstream TLS context needs, from the generated `envoy-types` API
//! (prost structs built from Envoy's own `.proto` files), re-exported under short paths.
//!
//! Only these messages, and only the fields `translate` sets, are rendered as JSON
//! (see `proto_json`); setting any other field makes rendering fail instead of dropping it.

pub use envoy_types::pb::envoy::config::core::v3::{
    ApiConfigSource, ApiVersion, ConfigSource, DataSource, GrpcService,
    api_config_source::ApiType,
    config_source::ConfigSourceSpecifier,
    data_source::Specifier as DataSourceSpecifier,
    grpc_service::{EnvoyGrpc, TargetSpecifier},
};
pub use envoy_types::pb::envoy::extensions::transport_sockets::tls::v3::{
    CertificateValidationContext, CommonTlsContext, DownstreamTlsContext, SdsSecretConfig,
    TlsParameters, certificate_validation_context::TrustChainVerification,
    common_tls_context::ValidationContextType, tls_parameters::TlsProtocol,
};
pub use envoy_types::pb::google::protobuf::{Any, BoolValue};
