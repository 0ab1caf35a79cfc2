//! The full set of Envoy resources for the processed snapshot, as Contour's xDS caches hold
//! them: listeners, route configurations, clusters, cluster load assignments and SDS secrets,
//! each a `(name, message)` list sorted by name, plus their xDS `Any` encoding.
//!
//! Known differences from Contour's output, all in fields that do not change routing or TLS
//! decisions: the HTTP connection managers carry only the router filter (Contour adds gzip,
//! grpc-web, grpc_stats, CORS, local rate limit and Lua filters, the last one for 421
//! misdirected requests), no access log (Contour logs to `/dev/stdout`), and the defaults of
//! Contour's timeouts are left to Envoy (as Contour does when none are configured).

use std::collections::BTreeMap;

use prost::Name;

use super::cluster::{eds_cluster, name_of};
use super::endpoint::load_assignment;
use super::listener::{
    ChainKind, ListenerOptions, http_listener, https_listener, tls_filter_chain,
};
use super::route_config::{
    HTTP_ROUTE_CONFIG, https_route_config_name, route_configuration, virtual_host,
};
use super::sds::{serving_secret, validation_secret};
use super::translate::{TranslateOptions, ValidationDelivery};
use super::xds_types::{Cluster, ClusterLoadAssignment, Listener, RouteConfiguration, Secret};
use crate::routing::{Processed, ResolvedService, RouteAction, SecureServing};
use crate::types::EndpointSlice;

/// Everything that shapes the resources beyond the objects.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResourceOptions {
    pub translate: TranslateOptions,
    pub listeners: ListenerOptions,
}

/// The resources of one snapshot, each list sorted by resource name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EnvoyResources {
    pub listeners: Vec<(String, Listener)>,
    pub routes: Vec<(String, RouteConfiguration)>,
    pub clusters: Vec<(String, Cluster)>,
    pub endpoints: Vec<(String, ClusterLoadAssignment)>,
    pub secrets: Vec<(String, Secret)>,
}

/// One resource as xDS carries it: `Any.type_url`, the resource name, `Any.value`.
pub type XdsResource = (String, String, Vec<u8>);

fn encode<M: prost::Message + Name>(
    items: &[(String, M)],
) -> impl Iterator<Item = XdsResource> + '_ {
    items.iter().map(|(name, m)| (M::type_url(), name.clone(), m.encode_to_vec()))
}

impl EnvoyResources {
    /// Every resource as `(type_url, name, bytes)`: listeners, routes, clusters, endpoints,
    /// secrets, in that order, each group sorted by name.
    pub fn to_xds(&self) -> Vec<XdsResource> {
        encode(&self.listeners)
            .chain(encode(&self.routes))
            .chain(encode(&self.clusters))
            .chain(encode(&self.endpoints))
            .chain(encode(&self.secrets))
            .collect()
    }
}

/// Builds the resources for the virtual hosts `process_snapshot` found servable.
pub fn build_resources(
    processed: &Processed,
    endpoint_slices: &[EndpointSlice],
    options: &ResourceOptions,
) -> EnvoyResources {
    let xds_cluster = &options.translate.xds_cluster_name;
    let mut http_vhosts = Vec::new();
    let mut routes: BTreeMap<String, RouteConfiguration> = BTreeMap::new();
    let mut chains = Vec::new();
    let mut upstreams: BTreeMap<String, ResolvedService> = BTreeMap::new();
    let mut secrets: BTreeMap<String, Secret> = BTreeMap::new();
    for vhost in &processed.vhosts {
        let mut note = |service: &ResolvedService| {
            upstreams.entry(name_of(service)).or_insert_with(|| service.clone());
        };
        for route in &vhost.http_routes {
            // Redirect-only routes reference no cluster on `ingress_http`, but the same
            // routes on `https/<fqdn>` do; either way Contour emits the cluster once.
            if let RouteAction::Forward(list) = &route.action {
                list.iter().for_each(|u| note(&u.service));
            }
        }
        if !vhost.http_routes.is_empty() {
            http_vhosts.push(virtual_host(&vhost.fqdn, &vhost.http_routes, false));
        }
        let (Some(tls), Some(secure)) = (&vhost.tls, &vhost.secure) else { continue };
        let chain = match secure {
            SecureServing::Http(secure_routes) => {
                let name = https_route_config_name(&vhost.fqdn);
                let config = route_configuration(
                    &name,
                    vec![virtual_host(&vhost.fqdn, secure_routes, true)],
                );
                routes.insert(name, config);
                tls_filter_chain(tls, ChainKind::Http, &options.translate)
            }
            SecureServing::TcpProxy(list) => {
                list.iter().for_each(|u| note(&u.service));
                tls_filter_chain(tls, ChainKind::Tcp(list), &options.translate)
            }
        };
        chains.push(chain);
        let secret = serving_secret(tls);
        secrets.insert(secret.name.clone(), secret);
        if options.translate.validation == ValidationDelivery::Sds
            && let Some(secret) = validation_secret(tls)
        {
            secrets.insert(secret.name.clone(), secret);
        }
    }
    // Contour always programs `ingress_http` in static listener mode, even without vhosts.
    routes
        .insert(HTTP_ROUTE_CONFIG.to_string(), route_configuration(HTTP_ROUTE_CONFIG, http_vhosts));

    let mut listeners = Vec::new();
    if routes.get(HTTP_ROUTE_CONFIG).is_some_and(|r| !r.virtual_hosts.is_empty()) {
        listeners
            .push((HTTP_ROUTE_CONFIG.to_string(), http_listener(&options.listeners, xds_cluster)));
    }
    if !chains.is_empty() {
        let https = https_listener(&options.listeners, chains);
        listeners.push((https.name.clone(), https));
    }
    listeners.sort_by(|a, b| a.0.cmp(&b.0));

    let slices: Vec<&EndpointSlice> = endpoint_slices.iter().collect();
    let mut clusters = Vec::new();
    let mut endpoints: BTreeMap<String, ClusterLoadAssignment> = BTreeMap::new();
    for (name, service) in &upstreams {
        clusters.push((name.clone(), eds_cluster(service, xds_cluster)));
        let assignment = load_assignment(service, &slices);
        endpoints.entry(assignment.cluster_name.clone()).or_insert(assignment);
    }
    EnvoyResources {
        listeners,
        routes: routes.into_iter().collect(),
        clusters,
        endpoints: endpoints.into_iter().collect(),
        secrets: secrets.into_iter().collect(),
    }
}
