//! A real Envoy (1.40, `tools/envoy/install`, or `CERTGATE_ENVOY`) configured from this xDS
//! server over ADS, over delta ADS and over the singleton services `contour bootstrap` uses: it
//! ACKs listeners, routes, clusters and endpoints, serves HTTP through the listener it was
//! given, NACKs an invalid cluster while it keeps serving, takes the next good snapshot, and
//! (over ADS) resumes after the xDS server restarts without being sent its listeners and
//! clusters again.
//!
//! Waits are bounded by a hang guard and poll the server's metrics or Envoy's listener; no
//! assertion is about time. Each Envoy runs in its own process (hot restart off, so parallel
//! tests do not share its shared memory) and is killed when its test ends.

mod support;
// The certgate crate's tests pick ports for their processes through this one helper too.
#[path = "../../certgate/tests/ports/mod.rs"]
mod ports;
use ports::free_port;

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use certgate_edge::{Snapshot, SnapshotCache, TypeUrl};
use envoy_types::pb::envoy::config::bootstrap::v3::Bootstrap;
use envoy_types::pb::envoy::config::bootstrap::v3::bootstrap::{DynamicResources, StaticResources};
use envoy_types::pb::envoy::config::cluster::v3::Cluster;
use envoy_types::pb::envoy::config::cluster::v3::cluster::{
    ClusterDiscoveryType, DiscoveryType, EdsClusterConfig,
};
use envoy_types::pb::envoy::config::core::v3::address::Address as AddressKind;
use envoy_types::pb::envoy::config::core::v3::api_config_source::ApiType;
use envoy_types::pb::envoy::config::core::v3::config_source::ConfigSourceSpecifier;
use envoy_types::pb::envoy::config::core::v3::data_source::Specifier;
use envoy_types::pb::envoy::config::core::v3::grpc_service::{EnvoyGrpc, TargetSpecifier};
use envoy_types::pb::envoy::config::core::v3::socket_address::PortSpecifier;
use envoy_types::pb::envoy::config::core::v3::{
    Address, AggregatedConfigSource, ApiConfigSource, ApiVersion, ConfigSource, DataSource,
    GrpcService, Http2ProtocolOptions, Node, SocketAddress,
};
use envoy_types::pb::envoy::config::endpoint::v3::lb_endpoint::HostIdentifier;
use envoy_types::pb::envoy::config::endpoint::v3::{
    ClusterLoadAssignment, Endpoint, LbEndpoint, LocalityLbEndpoints,
};
use envoy_types::pb::envoy::config::listener::v3::{Filter, FilterChain, Listener, filter};
use envoy_types::pb::envoy::config::route::v3::{
    DirectResponseAction, Route, RouteConfiguration, RouteMatch, VirtualHost, route, route_match,
};
use envoy_types::pb::envoy::extensions::filters::http::router::v3::Router;
use envoy_types::pb::envoy::extensions::filters::network::http_connection_manager::v3::{
    HttpConnectionManager, HttpFilter, Rds, http_connection_manager, http_filter,
};
use envoy_types::pb::envoy::extensions::upstreams::http::v3::HttpProtocolOptions;
use envoy_types::pb::envoy::extensions::upstreams::http::v3::http_protocol_options::{
    ExplicitHttpConfig, UpstreamProtocolOptions, explicit_http_config::ProtocolConfig,
};
use envoy_types::pb::google::protobuf::{Any, Duration as ProtoDuration};
use prost::{Message, Name};
use support::{Server, envoy_binary, start};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Bounds every wait for Envoy (its start, its reconnect back-off); nothing is measured.
const ENVOY_HANG_GUARD: Duration = Duration::from_secs(90);
const XDS_CLUSTER: &str = "xds";

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// `ads_config` and `ads: {}` config sources: one ADS stream.
    Ads,
    /// `ads_config` with `DELTA_GRPC`: one delta ADS stream.
    DeltaAds,
    /// Per-type gRPC config sources, as `contour bootstrap` writes them.
    Singleton,
}

fn any<M: Message + Name>(message: &M) -> Any {
    Any { type_url: M::type_url(), value: message.encode_to_vec() }
}

fn socket(port: u16) -> Address {
    Address {
        address: Some(AddressKind::SocketAddress(SocketAddress {
            address: "127.0.0.1".into(),
            port_specifier: Some(PortSpecifier::PortValue(u32::from(port))),
            ..SocketAddress::default()
        })),
    }
}

fn config_source(mode: Mode) -> ConfigSource {
    let specifier = match mode {
        Mode::Ads | Mode::DeltaAds => ConfigSourceSpecifier::Ads(AggregatedConfigSource {}),
        Mode::Singleton => ConfigSourceSpecifier::ApiConfigSource(api_config_source(ApiType::Grpc)),
    };
    ConfigSource {
        config_source_specifier: Some(specifier),
        resource_api_version: ApiVersion::V3 as i32,
        ..ConfigSource::default()
    }
}

fn api_config_source(api_type: ApiType) -> ApiConfigSource {
    ApiConfigSource {
        api_type: api_type as i32,
        transport_api_version: ApiVersion::V3 as i32,
        grpc_services: vec![GrpcService {
            target_specifier: Some(TargetSpecifier::EnvoyGrpc(EnvoyGrpc {
                cluster_name: XDS_CLUSTER.into(),
                ..EnvoyGrpc::default()
            })),
            ..GrpcService::default()
        }],
        ..ApiConfigSource::default()
    }
}

fn endpoint(port: u16) -> LbEndpoint {
    LbEndpoint {
        host_identifier: Some(HostIdentifier::Endpoint(Endpoint {
            address: Some(socket(port)),
            ..Endpoint::default()
        })),
        ..LbEndpoint::default()
    }
}

fn load_assignment(name: &str, port: u16) -> ClusterLoadAssignment {
    ClusterLoadAssignment {
        cluster_name: name.into(),
        endpoints: vec![LocalityLbEndpoints {
            lb_endpoints: vec![endpoint(port)],
            ..LocalityLbEndpoints::default()
        }],
        ..ClusterLoadAssignment::default()
    }
}

fn bootstrap(mode: Mode, xds_port: u16) -> Bootstrap {
    let http2 = HttpProtocolOptions {
        upstream_protocol_options: Some(UpstreamProtocolOptions::ExplicitHttpConfig(
            ExplicitHttpConfig {
                protocol_config: Some(ProtocolConfig::Http2ProtocolOptions(
                    Http2ProtocolOptions::default(),
                )),
            },
        )),
        ..HttpProtocolOptions::default()
    };
    let xds = Cluster {
        name: XDS_CLUSTER.into(),
        cluster_discovery_type: Some(ClusterDiscoveryType::Type(DiscoveryType::Static as i32)),
        connect_timeout: Some(ProtoDuration { seconds: 1, nanos: 0 }),
        load_assignment: Some(load_assignment(XDS_CLUSTER, xds_port)),
        typed_extension_protocol_options: [(
            "envoy.extensions.upstreams.http.v3.HttpProtocolOptions".to_owned(),
            any(&http2),
        )]
        .into_iter()
        .collect(),
        ..Cluster::default()
    };
    Bootstrap {
        node: Some(Node { id: "envoy-real".into(), cluster: "certgate".into(), ..Node::default() }),
        static_resources: Some(StaticResources {
            clusters: vec![xds],
            ..StaticResources::default()
        }),
        dynamic_resources: Some(DynamicResources {
            lds_config: Some(config_source(mode)),
            cds_config: Some(config_source(mode)),
            ads_config: match mode {
                Mode::Ads => Some(api_config_source(ApiType::Grpc)),
                Mode::DeltaAds => Some(api_config_source(ApiType::DeltaGrpc)),
                Mode::Singleton => None,
            },
            ..DynamicResources::default()
        }),
        ..Bootstrap::default()
    }
}

/// A listener on `port` whose routes (over RDS) answer every request with `body`, and an
/// EDS cluster; `connect_timeout_seconds` ≤ 0 makes the cluster invalid (Envoy requires > 0).
fn resources(mode: Mode, port: u16, body: &str, connect_timeout_seconds: i64) -> Snapshot {
    let router = HttpFilter {
        name: "envoy.filters.http.router".into(),
        config_type: Some(http_filter::ConfigType::TypedConfig(any(&Router::default()))),
        ..HttpFilter::default()
    };
    let manager = HttpConnectionManager {
        stat_prefix: "http".into(),
        route_specifier: Some(http_connection_manager::RouteSpecifier::Rds(Rds {
            config_source: Some(config_source(mode)),
            route_config_name: "routes".into(),
        })),
        http_filters: vec![router],
        ..HttpConnectionManager::default()
    };
    let listener = Listener {
        name: "http".into(),
        address: Some(socket(port)),
        filter_chains: vec![FilterChain {
            filters: vec![Filter {
                name: "envoy.filters.network.http_connection_manager".into(),
                config_type: Some(filter::ConfigType::TypedConfig(any(&manager))),
            }],
            ..FilterChain::default()
        }],
        ..Listener::default()
    };
    let routes = RouteConfiguration {
        name: "routes".into(),
        virtual_hosts: vec![VirtualHost {
            name: "all".into(),
            domains: vec!["*".into()],
            routes: vec![Route {
                r#match: Some(RouteMatch {
                    path_specifier: Some(route_match::PathSpecifier::Prefix("/".into())),
                    ..RouteMatch::default()
                }),
                action: Some(route::Action::DirectResponse(DirectResponseAction {
                    status: 200,
                    body: Some(DataSource {
                        specifier: Some(Specifier::InlineString(body.into())),
                        ..DataSource::default()
                    }),
                    ..DirectResponseAction::default()
                })),
                ..Route::default()
            }],
            ..VirtualHost::default()
        }],
        ..RouteConfiguration::default()
    };
    let cluster = Cluster {
        name: "backend".into(),
        cluster_discovery_type: Some(ClusterDiscoveryType::Type(DiscoveryType::Eds as i32)),
        eds_cluster_config: Some(EdsClusterConfig {
            eds_config: Some(config_source(mode)),
            service_name: "backend".into(),
        }),
        connect_timeout: Some(ProtoDuration { seconds: connect_timeout_seconds, nanos: 0 }),
        ..Cluster::default()
    };
    let mut builder = Snapshot::builder();
    builder
        .add_message("http", &listener)
        .unwrap()
        .add_message("routes", &routes)
        .unwrap()
        .add_message("backend", &cluster)
        .unwrap()
        .add_message("backend", &load_assignment("backend", 9))
        .unwrap();
    builder.build()
}

/// The Envoy process of one test, killed when dropped; its log is kept for failure messages.
struct Envoy {
    child: Child,
    log: PathBuf,
    bootstrap: PathBuf,
}

impl Envoy {
    fn start(bootstrap: &Bootstrap, tag: &str) -> Envoy {
        let dir = std::env::temp_dir();
        let id = format!("certgate-edge-{}-{tag}", std::process::id());
        let config = dir.join(format!("{id}.pb"));
        let log = dir.join(format!("{id}.log"));
        std::fs::write(&config, bootstrap.encode_to_vec()).unwrap();
        let child = Command::new(envoy_binary())
            .args(["--disable-hot-restart", "--concurrency", "1", "--log-level", "info"])
            .arg("--log-path")
            .arg(&log)
            .arg("-c")
            .arg(&config)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("envoy starts");
        Envoy { child, log, bootstrap: config }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Envoy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_file(&self.bootstrap);
        let _ = std::fs::remove_file(&self.log);
    }
}

/// Waits until `done` holds, polling; fails with Envoy's log after the hang guard.
async fn wait_for(envoy: &Envoy, what: &str, mut done: impl AsyncFnMut() -> bool) {
    let waited = tokio::time::timeout(ENVOY_HANG_GUARD, async {
        while !done().await {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
    assert!(waited.is_ok(), "{what} did not happen (hang guard); Envoy's log:\n{}", envoy.log());
}

/// The body Envoy answers `GET /` with on `port`, or `None` while nothing listens there.
async fn get(port: u16) -> Option<String> {
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port)).await.ok()?;
    let request = "GET / HTTP/1.1\r\nHost: edge.test\r\nConnection: close\r\n\r\n";
    stream.write_all(request.as_bytes()).await.ok()?;
    let mut response = String::new();
    stream.read_to_string(&mut response).await.ok()?;
    response.split_once("\r\n\r\n").map(|(_, body)| body.to_owned())
}

fn acked_everything(server: &Server) -> bool {
    [
        TypeUrl::Listener,
        TypeUrl::RouteConfiguration,
        TypeUrl::Cluster,
        TypeUrl::ClusterLoadAssignment,
    ]
    .into_iter()
    .all(|t| server.metrics.acks(t) >= 1)
}

async fn served_configures_a_real_envoy(mode: Mode, tag: &str) -> (Envoy, Server, u16) {
    let port = free_port();
    let cache = SnapshotCache::new();
    cache.set(resources(mode, port, "first", 1));
    let server = start(cache).await;
    let envoy = Envoy::start(&bootstrap(mode, server.address.port()), tag);

    wait_for(&envoy, "ACKs of LDS, RDS, CDS and EDS", async || acked_everything(&server)).await;
    wait_for(&envoy, "the listener answering", async || get(port).await.is_some()).await;
    assert_eq!(get(port).await.as_deref(), Some("first"));
    for t in TypeUrl::ALL {
        assert_eq!(server.metrics.nacks(t), 0, "{t} NACKed; Envoy's log:\n{}", envoy.log());
    }

    // An invalid cluster is NACKed; Envoy keeps serving what it had.
    server.cache.set(resources(mode, port, "first", -1));
    wait_for(&envoy, "a NACK of the invalid cluster", async || {
        server.metrics.nacks(TypeUrl::Cluster) >= 1
    })
    .await;
    assert_eq!(get(port).await.as_deref(), Some("first"));

    // The next good snapshot (new routes, valid cluster) is taken.
    let acks = server.metrics.acks(TypeUrl::Cluster);
    server.cache.set(resources(mode, port, "second", 1));
    wait_for(&envoy, "the new route served", async || get(port).await.as_deref() == Some("second"))
        .await;
    wait_for(&envoy, "an ACK of the fixed cluster", async || {
        server.metrics.acks(TypeUrl::Cluster) > acks
    })
    .await;
    (envoy, server, port)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_envoy_is_configured_over_ads_and_resumes_after_a_restart() {
    let (envoy, mut server, port) = served_configures_a_real_envoy(Mode::Ads, "ads").await;

    // Restart the xDS server on the same port with the same content.
    let address = server.address;
    let snapshot = server.cache.current().unwrap();
    server.stop.take().unwrap().send(()).unwrap();
    tokio::time::timeout(ENVOY_HANG_GUARD, &mut server.task)
        .await
        .expect("the server stops (hang guard)")
        .unwrap()
        .unwrap();
    let cache = SnapshotCache::new();
    cache.set((*snapshot).clone());
    let restarted = support::start_on(address, cache).await;

    // Envoy reconnects; over one ADS stream it asks for clusters and listeners before routes,
    // so once routes are ACKed (named: always answered on a new stream) its LDS and CDS
    // requests were handled, and the current versions they stated were not answered.
    wait_for(&envoy, "the reconnect and an RDS ACK", async || {
        restarted.metrics.acks(TypeUrl::RouteConfiguration) >= 1
    })
    .await;
    assert_eq!(restarted.metrics.responses(TypeUrl::Listener), 0, "{}", envoy.log());
    assert_eq!(restarted.metrics.responses(TypeUrl::Cluster), 0, "{}", envoy.log());
    assert_eq!(get(port).await.as_deref(), Some("second"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_envoy_is_configured_over_the_singleton_services() {
    let (_envoy, server, _port) =
        served_configures_a_real_envoy(Mode::Singleton, "singleton").await;
    assert_eq!(server.metrics.streams(), 4, "one stream per type: LDS, RDS, CDS, EDS");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_envoy_is_configured_over_delta_ads() {
    let (_envoy, server, _port) = served_configures_a_real_envoy(Mode::DeltaAds, "delta").await;
    assert_eq!(server.metrics.streams(), 1, "one delta ADS stream");
}
