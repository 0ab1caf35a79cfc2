//! The Envoy v3 messages of the served resources (listeners, routes, clusters, endpoints,
//! secrets and the filters inside them), from the generated `envoy-types` API, re-exported
//! under short paths for the translation modules.

pub use envoy_types::pb::envoy::config::cluster::v3::{
    Cluster, cluster::ClusterDiscoveryType, cluster::CommonLbConfig, cluster::DiscoveryType,
    cluster::EdsClusterConfig, cluster::LbPolicy,
};
pub use envoy_types::pb::envoy::config::core::v3::{
    Address, HeaderValue, HeaderValueOption, Http1ProtocolOptions, SocketAddress, TransportSocket,
    address::Address as AddressKind, header_value_option::HeaderAppendAction,
    socket_address::PortSpecifier, socket_address::Protocol as SocketProtocol,
    transport_socket::ConfigType as SocketConfig,
};
pub use envoy_types::pb::envoy::config::endpoint::v3::{
    ClusterLoadAssignment, Endpoint, LbEndpoint, LocalityLbEndpoints, lb_endpoint::HostIdentifier,
};
pub use envoy_types::pb::envoy::config::listener::v3::{
    Filter, FilterChain, FilterChainMatch, Listener, ListenerFilter,
    filter::ConfigType as FilterConfig, listener_filter::ConfigType as ListenerFilterConfig,
};
pub use envoy_types::pb::envoy::config::route::v3::{
    DirectResponseAction, RedirectAction, Route, RouteAction, RouteConfiguration, RouteMatch,
    VirtualHost, WeightedCluster, redirect_action::SchemeRewriteSpecifier, route::Action,
    route_action::ClusterSpecifier, route_action::UpgradeConfig, route_match::PathSpecifier,
    weighted_cluster::ClusterWeight,
};
pub use envoy_types::pb::envoy::extensions::filters::http::router::v3::Router;
pub use envoy_types::pb::envoy::extensions::filters::listener::tls_inspector::v3::TlsInspector;
pub use envoy_types::pb::envoy::extensions::filters::network::http_connection_manager::v3::{
    HttpConnectionManager, HttpFilter, Rds, http_connection_manager::CodecType,
    http_connection_manager::ForwardClientCertDetails, http_connection_manager::RouteSpecifier,
    http_connection_manager::SetCurrentClientCertDetails,
    http_filter::ConfigType as HttpFilterConfig,
};
pub use envoy_types::pb::envoy::extensions::filters::network::tcp_proxy::v3::{
    TcpProxy, tcp_proxy::ClusterSpecifier as TcpClusterSpecifier,
    tcp_proxy::WeightedCluster as TcpWeightedCluster,
    tcp_proxy::weighted_cluster::ClusterWeight as TcpClusterWeight,
};
pub use envoy_types::pb::envoy::extensions::transport_sockets::tls::v3::{
    Secret, TlsCertificate, secret::Type as SecretType,
};
pub use envoy_types::pb::envoy::r#type::v3::Percent;
pub use envoy_types::pb::google::protobuf::{Duration, UInt32Value};

use super::types::Any;

/// Packs a message into `google.protobuf.Any` (type URL from `prost::Name`).
pub fn to_any<M: prost::Message + prost::Name>(message: &M) -> Any {
    Any { type_url: M::type_url(), value: message.encode_to_vec() }
}

pub use envoy_types::pb::envoy::extensions::filters::http::ext_authz::v3::{
    ExtAuthzPerRoute, ext_authz_per_route::Override as ExtAuthzOverride,
};
