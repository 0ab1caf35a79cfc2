//! Contour's static listeners (internal/xdscache/v3/listener.go, internal/envoy/v3/listener.go):
//! `ingress_http` with one HTTP connection manager on `ingress_http`, and `ingress_https` with
//! the TLS inspector and one filter chain per TLS vhost matched on SNI, carrying the vhost's
//! `DownstreamTlsContext` and either an HTTP connection manager on `https/<fqdn>` or a TCP
//! proxy.

use super::endpoint::socket_address;
use super::route_config::{HTTP_ROUTE_CONFIG, https_route_config_name};
use super::translate::{TranslateOptions, config_source, downstream_tls_context};
use super::types::BoolValue;
use super::xds_types::{
    Duration, Filter, FilterChain, FilterChainMatch, FilterConfig, ForwardClientCertDetails,
    Http1ProtocolOptions, HttpConnectionManager, HttpFilter, HttpFilterConfig, Listener,
    ListenerFilter, ListenerFilterConfig, Rds, RouteSpecifier, Router, SetCurrentClientCertDetails,
    SocketConfig, TcpClusterSpecifier, TcpClusterWeight, TcpProxy, TcpWeightedCluster,
    TlsInspector, TransportSocket, to_any,
};
use crate::routing::Upstream;
use crate::types::ClientCertificateDetails;
use crate::validate::ValidatedVhost;

/// Name of the HTTPS listener (also the stat prefix of its connection managers).
pub const HTTPS_LISTENER: &str = "ingress_https";

/// Where the two listeners bind (Contour's defaults: `0.0.0.0`, 8080 and 8443).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListenerOptions {
    pub http_address: String,
    pub http_port: u32,
    pub https_address: String,
    pub https_port: u32,
}

impl Default for ListenerOptions {
    fn default() -> Self {
        ListenerOptions {
            http_address: "0.0.0.0".to_string(),
            http_port: 8080,
            https_address: "0.0.0.0".to_string(),
            https_port: 8443,
        }
    }
}

/// The filter chain of one TLS vhost: what it serves behind TLS.
pub enum ChainKind<'a> {
    Http,
    Tcp(&'a [Upstream]),
}

/// Contour's HTTP connection manager, with only the router filter (see the module docs of
/// `resources` for the filters Contour adds and certgate does not).
fn connection_manager(
    route_config: &str,
    stat_prefix: &str,
    xds_cluster: &str,
    forward: Option<&ClientCertificateDetails>,
) -> Filter {
    let mut hcm = HttpConnectionManager {
        stat_prefix: stat_prefix.to_string(),
        route_specifier: Some(RouteSpecifier::Rds(Rds {
            route_config_name: route_config.to_string(),
            config_source: Some(config_source(xds_cluster)),
        })),
        http_filters: vec![HttpFilter {
            name: "router".to_string(),
            config_type: Some(HttpFilterConfig::TypedConfig(to_any(&Router::default()))),
            ..HttpFilter::default()
        }],
        common_http_protocol_options: Some(Default::default()),
        // HTTP/1.0 requests with a Host header are accepted (Contour #537).
        http_protocol_options: Some(Http1ProtocolOptions {
            accept_http_10: true,
            ..Default::default()
        }),
        use_remote_address: Some(BoolValue { value: true }),
        normalize_path: Some(BoolValue { value: true }),
        preserve_external_request_id: true,
        ..HttpConnectionManager::default()
    };
    if let Some(details) = forward {
        hcm.forward_client_cert_details = ForwardClientCertDetails::SanitizeSet.into();
        hcm.set_current_client_cert_details = Some(SetCurrentClientCertDetails {
            subject: Some(BoolValue { value: details.subject.unwrap_or(false) }),
            cert: details.cert.unwrap_or(false),
            chain: details.chain.unwrap_or(false),
            dns: details.dns.unwrap_or(false),
            uri: details.uri.unwrap_or(false),
            ..SetCurrentClientCertDetails::default()
        });
    }
    Filter {
        name: "envoy.filters.network.http_connection_manager".to_string(),
        config_type: Some(FilterConfig::TypedConfig(to_any(&hcm))),
    }
}

/// Contour's `TCPProxy` filter: one cluster, or the non-zero-weight clusters weighted (all
/// weighted 1 when every weight is zero), idle timeout 9001 s.
fn tcp_proxy(upstreams: &[Upstream]) -> Filter {
    let mut keep: Vec<&Upstream> = upstreams.iter().filter(|u| u.weight > 0).collect();
    if keep.is_empty() {
        keep = upstreams.iter().collect();
    }
    let cluster_specifier = match keep.as_slice() {
        [single] => TcpClusterSpecifier::Cluster(super::cluster::name_of(&single.service)),
        _ => {
            let mut clusters: Vec<TcpClusterWeight> = keep
                .iter()
                .map(|u| TcpClusterWeight {
                    name: super::cluster::name_of(&u.service),
                    weight: u.weight.max(1),
                    ..TcpClusterWeight::default()
                })
                .collect();
            clusters.sort_by(|a, b| a.name.cmp(&b.name).then(a.weight.cmp(&b.weight)));
            TcpClusterSpecifier::WeightedClusters(TcpWeightedCluster { clusters })
        }
    };
    let proxy = TcpProxy {
        stat_prefix: HTTPS_LISTENER.to_string(),
        idle_timeout: Some(Duration { seconds: 9001, nanos: 0 }),
        cluster_specifier: Some(cluster_specifier),
        ..TcpProxy::default()
    };
    Filter {
        name: "envoy.filters.network.tcp_proxy".to_string(),
        config_type: Some(FilterConfig::TypedConfig(to_any(&proxy))),
    }
}

/// `ingress_http`, with one filter chain.
pub fn http_listener(options: &ListenerOptions, xds_cluster: &str) -> Listener {
    Listener {
        name: HTTP_ROUTE_CONFIG.to_string(),
        address: Some(socket_address(&options.http_address, options.http_port)),
        filter_chains: vec![FilterChain {
            filters: vec![connection_manager(
                HTTP_ROUTE_CONFIG,
                HTTP_ROUTE_CONFIG,
                xds_cluster,
                None,
            )],
            ..FilterChain::default()
        }],
        ..Listener::default()
    }
}

/// One SNI filter chain of `ingress_https`.
pub fn tls_filter_chain(
    vhost: &ValidatedVhost,
    kind: ChainKind<'_>,
    translate: &TranslateOptions,
) -> FilterChain {
    let mut context = downstream_tls_context(vhost, translate);
    let filter = match kind {
        ChainKind::Http => {
            let forward =
                vhost.peer_validation.as_ref().and_then(|p| p.forward_client_certificate.as_ref());
            connection_manager(
                &https_route_config_name(&vhost.fqdn),
                HTTPS_LISTENER,
                &translate.xds_cluster_name,
                forward,
            )
        }
        ChainKind::Tcp(upstreams) => {
            // No ALPN for TCP proxying: the backend's protocols are not known.
            if let Some(common) = context.common_tls_context.as_mut() {
                common.alpn_protocols.clear();
            }
            tcp_proxy(upstreams)
        }
    };
    FilterChain {
        filter_chain_match: Some(FilterChainMatch {
            server_names: vec![vhost.fqdn.clone()],
            ..FilterChainMatch::default()
        }),
        filters: vec![filter],
        transport_socket: Some(TransportSocket {
            name: "envoy.transport_sockets.tls".to_string(),
            config_type: Some(SocketConfig::TypedConfig(to_any(&context))),
        }),
        ..FilterChain::default()
    }
}

/// `ingress_https` with the TLS inspector and the given chains (sorted by server name).
pub fn https_listener(options: &ListenerOptions, mut chains: Vec<FilterChain>) -> Listener {
    chains.sort_by(|a, b| {
        let key = |c: &FilterChain| {
            c.filter_chain_match.as_ref().and_then(|m| m.server_names.first().cloned())
        };
        key(a).cmp(&key(b))
    });
    Listener {
        name: HTTPS_LISTENER.to_string(),
        address: Some(socket_address(&options.https_address, options.https_port)),
        listener_filters: vec![ListenerFilter {
            name: "envoy.filters.listener.tls_inspector".to_string(),
            config_type: Some(ListenerFilterConfig::TypedConfig(to_any(&TlsInspector::default()))),
            ..ListenerFilter::default()
        }],
        filter_chains: chains,
        ..Listener::default()
    }
}
