//! The Envoy resources of a processed snapshot: names, SNI, matches, weights, clusters,
//! endpoints and secrets as Contour emits them, and the xDS encoding decoding back.

mod common;

use std::collections::BTreeMap;

use certgate_ingress::envoy::xds_types::*;
use certgate_ingress::envoy::{
    EnvoyResources, ResourceOptions, TranslateOptions, ValidationDelivery, build_resources,
    downstream_tls_context,
};
use certgate_ingress::routing::{Snapshot, process_snapshot};
use certgate_ingress::types::{EndpointSlice, KubeService, Secret as KubeSecret};
use certgate_ingress::{HttpProxy, NamespacedName, ProcessorConfig};
use envoy_types::pb::envoy::extensions::transport_sockets::tls::v3::DownstreamTlsContext;
use envoy_types::pb::google::protobuf::Any;
use prost::{Message, Name};
use serde_json::json;

fn build() -> (EnvoyResources, certgate_ingress::routing::Processed) {
    build_with(&ResourceOptions::default(), None)
}

/// The resources with `options`, and with `crl.pem` of the CRL Secret replaced by `crl`.
fn build_with(
    options: &ResourceOptions,
    crl: Option<&[u8]>,
) -> (EnvoyResources, certgate_ingress::routing::Processed) {
    let secret_values = [
        common::serving_secret("default", "server"),
        common::ca_secret("default", "ca"),
        common::crl_secret("default", "crl"),
    ];
    let secrets: BTreeMap<NamespacedName, KubeSecret> = secret_values
        .iter()
        .map(|v| {
            let mut s = KubeSecret::from_value(v).unwrap();
            if let (Some(crl), "crl") = (crl, s.name.as_str()) {
                s.data.insert("crl.pem".to_string(), crl.to_vec());
            }
            (NamespacedName::new(&s.namespace, &s.name), s)
        })
        .collect();
    let proxies: Vec<HttpProxy> = [
        json!({"metadata": {"namespace": "default", "name": "web"}, "spec": {
            "virtualhost": {"fqdn": "web.example.com", "tls": {"secretName": "server",
                "clientValidation": {"caSecret": "ca", "crlSecret": "crl", "forwardClientCertificate": {"subject": true}}}},
            "routes": [
                {"conditions": [{"prefix": "/"}], "services": [{"name": "app", "port": 80, "weight": 90}, {"name": "canary", "port": 80, "weight": 10}]},
                {"conditions": [{"exact": "/healthz"}], "services": [{"name": "app", "port": 80}], "permitInsecure": true}
            ],
            "includes": [{"name": "api", "conditions": [{"prefix": "/api"}]}]
        }}),
        json!({"metadata": {"namespace": "default", "name": "api"}, "spec": {
            "routes": [{"conditions": [{"prefix": "/v1"}], "services": [{"name": "app", "port": 80}], "enableWebsockets": true}]
        }}),
        json!({"metadata": {"namespace": "default", "name": "db"}, "spec": {
            "virtualhost": {"fqdn": "db.example.com", "tls": {"secretName": "server"}},
            "tcpproxy": {"services": [{"name": "pg", "port": 5432}]}
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
        json!({"metadata": {"namespace": "default", "name": "app"}, "spec": {"ports": [{"name": "http", "port": 80, "targetPort": 8080}]}}),
        json!({"metadata": {"namespace": "default", "name": "canary"}, "spec": {"ports": [{"port": 80}]}}),
        json!({"metadata": {"namespace": "default", "name": "pg"}, "spec": {"ports": [{"name": "pg", "port": 5432}]}}),
    ]
    .iter()
    .map(|v| KubeService::from_value(v).unwrap())
    .collect();
    let slices: Vec<EndpointSlice> = [
        json!({"metadata": {"namespace": "default", "name": "app-b", "labels": {"kubernetes.io/service-name": "app"}},
            "endpoints": [{"addresses": ["10.0.0.3"], "conditions": {"ready": false}}, {"addresses": ["10.0.0.2"]}],
            "ports": [{"name": "http", "port": 8080, "protocol": "TCP"}, {"name": "metrics", "port": 9090, "protocol": "TCP"}]}),
        json!({"metadata": {"namespace": "default", "name": "app-a", "labels": {"kubernetes.io/service-name": "app"}},
            "endpoints": [{"addresses": ["10.0.0.1"], "conditions": {"ready": true}}, {"addresses": ["10.0.0.2"]}],
            "ports": [{"name": "http", "port": 8080, "protocol": "TCP"}]}),
        json!({"metadata": {"namespace": "other", "name": "app-x", "labels": {"kubernetes.io/service-name": "app"}},
            "endpoints": [{"addresses": ["10.9.9.9"]}], "ports": [{"name": "http", "port": 8080, "protocol": "TCP"}]}),
    ]
    .iter()
    .map(|v| EndpointSlice::from_value(v).unwrap())
    .collect();
    let snapshot =
        Snapshot { proxies: &proxies, secrets: &secrets, delegations: &[], services: &services };
    let processed = process_snapshot(snapshot, &ProcessorConfig::default());
    for outcome in &processed.outcomes {
        assert!(outcome.status.is_valid(), "{}: {:?}", outcome.name, outcome.status.errors());
    }
    (build_resources(&processed, &slices, options), processed)
}

fn names<M>(items: &[(String, M)]) -> Vec<&str> {
    items.iter().map(|(n, _)| n.as_str()).collect()
}

fn unpack<M: Message + Name + Default>(any: &Any) -> M {
    assert_eq!(any.type_url, M::type_url());
    M::decode(any.value.as_slice()).unwrap()
}

fn typed(filter: &Filter) -> &Any {
    match filter.config_type.as_ref().unwrap() {
        FilterConfig::TypedConfig(any) => any,
        other => panic!("unexpected filter config {other:?}"),
    }
}

#[test]
fn resource_names_follow_contour() {
    let (resources, _) = build();
    assert_eq!(names(&resources.listeners), ["ingress_http", "ingress_https"]);
    assert_eq!(names(&resources.routes), ["https/web.example.com", "ingress_http"]);
    assert_eq!(
        names(&resources.clusters),
        ["default/app/80/da39a3ee5e", "default/canary/80/da39a3ee5e", "default/pg/5432/da39a3ee5e"]
    );
    assert_eq!(
        names(&resources.endpoints),
        ["default/app/http", "default/canary", "default/pg/pg"]
    );
    assert_eq!(resources.secrets.len(), 1);
    assert!(resources.secrets[0].0.starts_with("default/server/"), "{}", resources.secrets[0].0);
}

#[test]
fn listeners_have_one_chain_per_sni_with_the_validation_context() {
    let (resources, processed) = build();
    let http = &resources.listeners[0].1;
    let Some(AddressKind::SocketAddress(addr)) =
        http.address.as_ref().and_then(|a| a.address.clone())
    else {
        panic!("no socket address")
    };
    assert_eq!(
        (addr.address.as_str(), addr.port_specifier),
        ("0.0.0.0", Some(PortSpecifier::PortValue(8080)))
    );
    let https = &resources.listeners[1].1;
    assert_eq!(https.listener_filters[0].name, "envoy.filters.listener.tls_inspector");
    let snis: Vec<&str> = https
        .filter_chains
        .iter()
        .map(|c| c.filter_chain_match.as_ref().unwrap().server_names[0].as_str())
        .collect();
    assert_eq!(snis, ["db.example.com", "web.example.com"]);

    // The web chain carries exactly the context `translate` builds: CA and CRL inline.
    let web_vhost = processed.vhosts.iter().find(|v| v.fqdn == "web.example.com").unwrap();
    let expected =
        downstream_tls_context(web_vhost.tls.as_ref().unwrap(), &TranslateOptions::default());
    let web = &https.filter_chains[1];
    let Some(SocketConfig::TypedConfig(any)) =
        web.transport_socket.as_ref().unwrap().config_type.clone()
    else {
        panic!("no tls context")
    };
    let context: DownstreamTlsContext = unpack(&any);
    assert_eq!(context, expected);
    let common = context.common_tls_context.as_ref().unwrap();
    let Some(envoy_types::pb::envoy::extensions::transport_sockets::tls::v3::common_tls_context::ValidationContextType::ValidationContext(vc)) =
        common.validation_context_type.as_ref()
    else {
        panic!("no validation context")
    };
    assert!(vc.trusted_ca.is_some() && vc.crl.is_some());
    assert_eq!(common.tls_certificate_sds_secret_configs[0].name, resources.secrets[0].0);

    let hcm: HttpConnectionManager = unpack(typed(&web.filters[0]));
    assert_eq!(hcm.stat_prefix, "ingress_https");
    let Some(RouteSpecifier::Rds(rds)) = hcm.route_specifier.as_ref() else { panic!("no rds") };
    assert_eq!(rds.route_config_name, "https/web.example.com");
    assert_eq!(hcm.forward_client_cert_details, ForwardClientCertDetails::SanitizeSet as i32);
    assert!(hcm.set_current_client_cert_details.as_ref().unwrap().subject.unwrap().value);
    assert_eq!(hcm.http_filters.last().unwrap().name, "router");

    // The TCP proxy chain: no ALPN, one cluster, Contour's 9001 s idle timeout.
    let db = &https.filter_chains[0];
    let Some(SocketConfig::TypedConfig(any)) =
        db.transport_socket.as_ref().unwrap().config_type.clone()
    else {
        panic!("no tls context")
    };
    let context: DownstreamTlsContext = unpack(&any);
    assert!(context.common_tls_context.unwrap().alpn_protocols.is_empty());
    let tcp: TcpProxy = unpack(typed(&db.filters[0]));
    assert_eq!(
        tcp.cluster_specifier,
        Some(TcpClusterSpecifier::Cluster("default/pg/5432/da39a3ee5e".into()))
    );
    assert_eq!(tcp.idle_timeout.unwrap().seconds, 9001);
}

fn path(route: &Route) -> String {
    match route.r#match.as_ref().unwrap().path_specifier.as_ref().unwrap() {
        PathSpecifier::Prefix(p) => format!("prefix {p}"),
        PathSpecifier::Path(p) => format!("exact {p}"),
        other => format!("{other:?}"),
    }
}

#[test]
fn routes_match_sort_and_weight_as_contour() {
    let (resources, _) = build();
    let https = &resources.routes[0].1;
    assert!(https.ignore_port_in_host_matching);
    assert_eq!(https.request_headers_to_add[0].header.as_ref().unwrap().key, "x-request-start");
    let vhost = &https.virtual_hosts[0];
    assert_eq!(vhost.domains, ["web.example.com"]);
    let paths: Vec<String> = vhost.routes.iter().map(path).collect();
    assert_eq!(paths, ["exact /healthz", "prefix /api/v1", "prefix /"]);
    let Some(Action::Route(action)) = vhost.routes[2].action.as_ref() else {
        panic!("not forwarded")
    };
    let Some(ClusterSpecifier::WeightedClusters(weighted)) = action.cluster_specifier.as_ref()
    else {
        panic!("not weighted")
    };
    let weights: Vec<(&str, u32)> =
        weighted.clusters.iter().map(|c| (c.name.as_str(), c.weight.unwrap().value)).collect();
    assert_eq!(weights, [("default/app/80/da39a3ee5e", 90), ("default/canary/80/da39a3ee5e", 10)]);
    let Some(Action::Route(api)) = vhost.routes[1].action.as_ref() else { panic!("not forwarded") };
    assert_eq!(api.upgrade_configs[0].upgrade_type, "websocket");

    // On plain HTTP the TLS vhost redirects, except the permitInsecure route; the plain vhost
    // forwards.
    let http = &resources.routes[1].1;
    let domains: Vec<&str> = http.virtual_hosts.iter().map(|v| v.domains[0].as_str()).collect();
    assert_eq!(domains, ["plain.example.com", "web.example.com"]);
    let web = &http.virtual_hosts[1];
    let kinds: Vec<&str> = web
        .routes
        .iter()
        .map(|r| match r.action.as_ref().unwrap() {
            Action::Redirect(r)
                if r.scheme_rewrite_specifier
                    == Some(SchemeRewriteSpecifier::HttpsRedirect(true)) =>
            {
                "https"
            }
            Action::Route(_) => "route",
            _ => "other",
        })
        .collect();
    assert_eq!(kinds, ["route", "https", "https"]);
}

#[test]
fn clusters_and_endpoints() {
    let (resources, _) = build();
    let app = &resources.clusters[0].1;
    assert_eq!(
        app.cluster_discovery_type,
        Some(ClusterDiscoveryType::Type(DiscoveryType::Eds as i32))
    );
    assert_eq!(app.eds_cluster_config.as_ref().unwrap().service_name, "default/app/http");
    assert_eq!(app.alt_stat_name, "default_app_80");
    assert_eq!(app.connect_timeout.unwrap().seconds, 2);

    let endpoints = |index: usize| -> Vec<String> {
        resources.endpoints[index]
            .1
            .endpoints
            .iter()
            .flat_map(|l| l.lb_endpoints.iter())
            .map(|e| {
                let Some(HostIdentifier::Endpoint(ep)) = e.host_identifier.as_ref() else {
                    panic!()
                };
                let Some(AddressKind::SocketAddress(sa)) =
                    ep.address.as_ref().unwrap().address.as_ref()
                else {
                    panic!()
                };
                let Some(PortSpecifier::PortValue(port)) = sa.port_specifier else { panic!() };
                format!("{}:{port}", sa.address)
            })
            .collect()
    };
    // Ready (or unknown) endpoints, matching port name only, each address:port once; the
    // slice in another namespace does not count.
    assert_eq!(endpoints(0), ["10.0.0.1:8080", "10.0.0.2:8080"]);
    assert!(resources.endpoints[1].1.endpoints.is_empty(), "no slices: empty assignment");
}

#[test]
fn xds_encoding_decodes_back() {
    let (resources, _) = build();
    let xds = resources.to_xds();
    let total = resources.listeners.len()
        + resources.routes.len()
        + resources.clusters.len()
        + resources.endpoints.len()
        + resources.secrets.len();
    assert_eq!(xds.len(), total);
    for (type_url, name, bytes) in &xds {
        let any = Any { type_url: type_url.clone(), value: bytes.clone() };
        match type_url.as_str() {
            u if u == Listener::type_url() => assert_eq!(&unpack::<Listener>(&any).name, name),
            u if u == RouteConfiguration::type_url() => {
                assert_eq!(&unpack::<RouteConfiguration>(&any).name, name)
            }
            u if u == Cluster::type_url() => assert_eq!(&unpack::<Cluster>(&any).name, name),
            u if u == ClusterLoadAssignment::type_url() => {
                assert_eq!(&unpack::<ClusterLoadAssignment>(&any).cluster_name, name)
            }
            u if u == Secret::type_url() => assert_eq!(&unpack::<Secret>(&any).name, name),
            other => panic!("unexpected type {other}"),
        }
    }
    assert_eq!(xds[0].0, "type.googleapis.com/envoy.config.listener.v3.Listener");
    // Same input, same bytes: stable order for xDS versioning.
    assert_eq!(build().0.to_xds(), xds);
}

fn sds_options() -> ResourceOptions {
    ResourceOptions {
        translate: TranslateOptions { validation: ValidationDelivery::Sds, ..Default::default() },
        ..ResourceOptions::default()
    }
}

fn chain_context(resources: &EnvoyResources, sni: &str) -> DownstreamTlsContext {
    let https = &resources.listeners.iter().find(|(n, _)| n == "ingress_https").unwrap().1;
    let chain = https
        .filter_chains
        .iter()
        .find(|c| c.filter_chain_match.as_ref().unwrap().server_names[0] == sni)
        .unwrap();
    let Some(SocketConfig::TypedConfig(any)) =
        chain.transport_socket.as_ref().unwrap().config_type.clone()
    else {
        panic!("no tls context")
    };
    unpack(&any)
}

#[test]
fn sds_delivery_puts_the_validation_context_in_a_secret_named_after_the_host() {
    use envoy_types::pb::envoy::extensions::transport_sockets::tls::v3::common_tls_context::ValidationContextType;
    let (inline, processed) = build();
    let (sds, _) = build_with(&sds_options(), None);

    // The chain refers to `client-validation/<fqdn>` through the same config source as its
    // serving certificate; nothing else in the context changes.
    let mut context = chain_context(&sds, "web.example.com");
    let common = context.common_tls_context.as_mut().unwrap();
    let Some(ValidationContextType::ValidationContextSdsSecretConfig(reference)) =
        common.validation_context_type.take()
    else {
        panic!("no SDS validation context: {:?}", common.validation_context_type)
    };
    assert_eq!(reference.name, "client-validation/web.example.com");
    assert_eq!(reference.sds_config, common.tls_certificate_sds_secret_configs[0].sds_config);
    let mut inline_context = chain_context(&inline, "web.example.com");
    let Some(ValidationContextType::ValidationContext(expected)) =
        inline_context.common_tls_context.as_mut().unwrap().validation_context_type.take()
    else {
        panic!("no inline validation context")
    };
    assert_eq!(context, inline_context);

    // The secret holds exactly the context Contour inlines; the TCP proxy's vhost, which
    // validates no client, gets none.
    let names: Vec<&str> = sds.secrets.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names.len(), 2, "{names:?}");
    let secret =
        &sds.secrets.iter().find(|(n, _)| n == "client-validation/web.example.com").unwrap().1;
    assert_eq!(secret.r#type, Some(SecretType::ValidationContext(expected)));
    let web = processed.vhosts.iter().find(|v| v.fqdn == "web.example.com").unwrap();
    assert_eq!(
        certgate_ingress::envoy::validation_secret(web.tls.as_ref().unwrap()).as_ref(),
        Some(secret)
    );
    assert!(
        chain_context(&sds, "db.example.com")
            .common_tls_context
            .unwrap()
            .validation_context_type
            .is_none()
    );
}

#[test]
fn with_sds_delivery_a_new_crl_changes_the_validation_secret_and_nothing_else() {
    // A bundle of the same CRL twice: other bytes, still a CRL bundle.
    let other_crl = common::fixture("crl.pem").repeat(2);
    let (before, _) = build_with(&sds_options(), None);
    let (after, _) = build_with(&sds_options(), Some(other_crl.as_bytes()));
    assert_eq!(before.listeners, after.listeners);
    assert_eq!(before.routes, after.routes);
    assert_eq!(before.clusters, after.clusters);
    let changed: Vec<&str> = before
        .secrets
        .iter()
        .zip(&after.secrets)
        .filter(|(b, a)| b != a)
        .map(|(b, _)| b.0.as_str())
        .collect();
    assert_eq!(changed, ["client-validation/web.example.com"]);

    // Inline, as Contour does, the same CRL changes the listener (and Envoy drains the chain).
    let (inline_before, _) = build();
    let (inline_after, _) = build_with(&ResourceOptions::default(), Some(other_crl.as_bytes()));
    assert_ne!(inline_before.listeners, inline_after.listeners);
    assert_eq!(inline_before.secrets, inline_after.secrets);
}
