//! Processing arbitrary small proxy sets (includes in any shape, cycles, TCP proxies, routes
//! to present and missing Services) never panics, and the resources built from the result
//! always encode and name every cluster a route or TCP proxy refers to.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use certgate_ingress::envoy::{ResourceOptions, build_resources};
use certgate_ingress::routing::{Snapshot, process_snapshot};
use certgate_ingress::types::{EndpointSlice, KubeService, Secret};
use certgate_ingress::{HttpProxy, NamespacedName, ProcessorConfig};
use proptest::prelude::*;
use serde_json::{Value, json};

const NAMES: [&str; 4] = ["a", "b", "c", "d"];

fn condition() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!({"prefix": "/"})),
        Just(json!({"prefix": "/x"})),
        Just(json!({"prefix": "y"})),
        Just(json!({"exact": "/e"})),
        Just(json!({"regex": "/r.*"})),
        Just(json!({"header": {"name": "h", "present": true}})),
        Just(json!({})),
    ]
}

fn service() -> impl Strategy<Value = Value> {
    (
        prop::sample::select(vec!["app", "nope", "udp"]),
        prop_oneof![Just(json!(80)), Just(json!(0)), Just(json!(53)), Just(json!("x"))],
        prop::option::of(0i64..200),
    )
        .prop_map(|(name, port, weight)| {
            let mut s = json!({"name": name, "port": port});
            if let Some(w) = weight {
                s["weight"] = json!(w);
            }
            s
        })
}

fn route() -> impl Strategy<Value = Value> {
    (
        prop::collection::vec(condition(), 0..3),
        prop::collection::vec(service(), 0..3),
        any::<bool>(),
        prop::sample::select(vec![None, Some("timeoutPolicy"), Some("requestRedirectPolicy")]),
    )
        .prop_map(|(conditions, services, insecure, extra)| {
            let mut route =
                json!({"conditions": conditions, "services": services, "permitInsecure": insecure});
            if let Some(field) = extra {
                route[field] = json!({});
            }
            route
        })
}

fn include() -> impl Strategy<Value = Value> {
    (prop::sample::select(NAMES.to_vec()), prop::collection::vec(condition(), 0..2))
        .prop_map(|(name, conditions)| json!({"name": name, "conditions": conditions}))
}

fn proxy(name: &'static str) -> impl Strategy<Value = Value> {
    (
        prop::option::of(prop::sample::select(vec!["h1.example.com", "h2.example.com"])),
        any::<bool>(),
        prop::collection::vec(route(), 0..3),
        prop::collection::vec(include(), 0..3),
        prop::option::of(prop_oneof![
            service().prop_map(|s| json!({"services": [s]})),
            prop::sample::select(NAMES.to_vec()).prop_map(|n| json!({"include": {"name": n}})),
            Just(json!({})),
        ]),
    )
        .prop_map(move |(fqdn, tls, routes, includes, tcp)| {
            let mut spec = json!({"routes": routes, "includes": includes});
            if let Some(fqdn) = fqdn {
                spec["virtualhost"] = json!({"fqdn": fqdn});
                if tls {
                    spec["virtualhost"]["tls"] = json!({"secretName": "server"});
                }
            }
            if let Some(tcp) = tcp {
                spec["tcpproxy"] = tcp;
            }
            json!({"metadata": {"namespace": "default", "name": name}, "spec": spec})
        })
}

fn snapshot_inputs() -> impl Strategy<Value = Vec<Value>> {
    (proxy(NAMES[0]), proxy(NAMES[1]), proxy(NAMES[2]), proxy(NAMES[3]), 0usize..=4)
        .prop_map(|(a, b, c, d, n)| vec![a, b, c, d].into_iter().take(n).collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn processing_never_panics(values in snapshot_inputs()) {
        let proxies: Vec<HttpProxy> = values.iter().map(|v| HttpProxy::from_value(v).unwrap()).collect();
        let serving = Secret::from_value(&common::serving_secret("default", "server")).unwrap();
        let secrets = BTreeMap::from([(NamespacedName::new("default", "server"), serving)]);
        let services: Vec<KubeService> = [
            json!({"metadata": {"namespace": "default", "name": "app"}, "spec": {"ports": [{"name": "http", "port": 80}]}}),
            json!({"metadata": {"namespace": "default", "name": "udp"}, "spec": {"ports": [{"port": 53, "protocol": "UDP"}]}}),
        ].iter().map(|v| KubeService::from_value(v).unwrap()).collect();
        let slices = [EndpointSlice::from_value(&json!({
            "metadata": {"namespace": "default", "name": "app-1", "labels": {"kubernetes.io/service-name": "app"}},
            "endpoints": [{"addresses": ["10.0.0.1"]}, {"addresses": []}],
            "ports": [{"name": "http", "port": 8080, "protocol": "TCP"}, {"port": -1, "protocol": "TCP"}]
        })).unwrap()];
        let snapshot = Snapshot { proxies: &proxies, secrets: &secrets, delegations: &[], services: &services };
        let processed = process_snapshot(snapshot, &ProcessorConfig::default());
        prop_assert_eq!(processed.outcomes.len(), proxies.len());
        // A served vhost never carries one of certgate's own "not supported" errors.
        for vhost in &processed.vhosts {
            let root = processed.outcomes.iter().find(|o| o.namespace == vhost.namespace && o.name == vhost.name).unwrap();
            prop_assert!(
                root.status.errors().iter().all(|e| e.type_ != "UnsupportedByCertgate"),
                "served {} with {:?}", vhost.fqdn, root.status.errors()
            );
        }
        // Every proxy gets a status that renders.
        for outcome in &processed.outcomes {
            let status = outcome.status.build(None, None);
            prop_assert!(status.current_status.is_some());
        }
        let resources = build_resources(&processed, &slices, &ResourceOptions::default());
        let xds = resources.to_xds();
        let clusters: BTreeSet<&str> = resources.clusters.iter().map(|(n, _)| n.as_str()).collect();
        let endpoints: BTreeSet<String> = resources.endpoints.iter().map(|(n, _)| n.clone()).collect();
        for (_, cluster) in &resources.clusters {
            let eds = cluster.eds_cluster_config.as_ref().unwrap();
            prop_assert!(endpoints.contains(&eds.service_name));
        }
        for (type_url, _, bytes) in &xds {
            if type_url.ends_with("RouteConfiguration") {
                let rc = <certgate_ingress::envoy::xds_types::RouteConfiguration as prost::Message>::decode(bytes.as_slice()).unwrap();
                for route in rc.virtual_hosts.iter().flat_map(|v| v.routes.iter()) {
                    use certgate_ingress::envoy::xds_types::{Action, ClusterSpecifier};
                    if let Some(Action::Route(action)) = &route.action {
                        match action.cluster_specifier.as_ref().unwrap() {
                            ClusterSpecifier::Cluster(name) => prop_assert!(clusters.contains(name.as_str())),
                            ClusterSpecifier::WeightedClusters(w) => {
                                for c in &w.clusters {
                                    prop_assert!(clusters.contains(c.name.as_str()));
                                }
                            }
                            _ => prop_assert!(false, "unexpected specifier"),
                        }
                    }
                }
            }
        }
    }
}
