//! Contour's `EnvoyGen.Cluster` for an EDS cluster (internal/envoy/v3/cluster.go): round
//! robin, 2 s connect timeout, panic threshold disabled, endpoints from EDS over the xDS
//! cluster, named `ns/service/port/hash` with the `ns_service_port` alt stat name.

use super::names::{alt_stat_name, cluster_name, load_assignment_name};
use super::translate::config_source;
use super::xds_types::{
    Cluster, ClusterDiscoveryType, CommonLbConfig, DiscoveryType, Duration, EdsClusterConfig,
    LbPolicy, Percent,
};
use crate::routing::ResolvedService;

/// The cluster name of an upstream.
pub fn name_of(service: &ResolvedService) -> String {
    cluster_name(&service.service.namespace, &service.service.name, service.port)
}

/// The EDS cluster for an upstream.
pub fn eds_cluster(service: &ResolvedService, xds_cluster: &str) -> Cluster {
    let (ns, name) = (&service.service.namespace, &service.service.name);
    Cluster {
        name: name_of(service),
        alt_stat_name: alt_stat_name(ns, name, service.port),
        cluster_discovery_type: Some(ClusterDiscoveryType::Type(DiscoveryType::Eds.into())),
        eds_cluster_config: Some(EdsClusterConfig {
            eds_config: Some(config_source(xds_cluster)),
            service_name: load_assignment_name(ns, name, &service.port_name),
        }),
        connect_timeout: Some(Duration { seconds: 2, nanos: 0 }),
        lb_policy: LbPolicy::RoundRobin.into(),
        common_lb_config: Some(CommonLbConfig {
            healthy_panic_threshold: Some(Percent { value: 0.0 }),
            ..CommonLbConfig::default()
        }),
        ..Cluster::default()
    }
}
