//! Contour's EndpointSlice translator (internal/xdscache/v3/endpointslicetranslator.go): one
//! `ClusterLoadAssignment` per served Service port, named like the cluster's EDS service
//! name, with the ready endpoints of every slice labelled with the Service's name.

use std::collections::BTreeSet;

use super::names::load_assignment_name;
use super::xds_types::{
    Address, AddressKind, ClusterLoadAssignment, Endpoint, HostIdentifier, LbEndpoint,
    LocalityLbEndpoints, PortSpecifier, SocketAddress, SocketProtocol, UInt32Value,
};
use crate::routing::ResolvedService;
use crate::types::EndpointSlice;

/// Contour's `SocketAddress(address, port)` (TCP; `::` also accepts IPv4).
pub fn socket_address(address: &str, port: u32) -> Address {
    Address {
        address: Some(AddressKind::SocketAddress(SocketAddress {
            protocol: SocketProtocol::Tcp.into(),
            address: address.to_string(),
            ipv4_compat: address == "::",
            port_specifier: Some(PortSpecifier::PortValue(port)),
            ..SocketAddress::default()
        })),
    }
}

/// The assignment for one Service port. Contour walks the slices in map order and sorts each
/// slice's endpoints by first address; certgate walks slices by name so the output is stable.
/// For every ready endpoint (readiness unknown counts as ready) and every TCP port of its
/// slice that matches the Service port's name (any port when either name is empty), the first
/// address is an endpoint, each `address:port` once. A Service without slices gets an empty
/// assignment, as in Contour.
pub fn load_assignment(
    service: &ResolvedService,
    slices: &[&EndpointSlice],
) -> ClusterLoadAssignment {
    let (ns, name) = (&service.service.namespace, &service.service.name);
    let mut ordered: Vec<&&EndpointSlice> =
        slices.iter().filter(|s| &s.namespace == ns && &s.service_name == name).collect();
    ordered.sort_by(|a, b| a.name.cmp(&b.name));
    let mut seen: BTreeSet<(String, i32)> = BTreeSet::new();
    let mut lb_endpoints = Vec::new();
    for slice in ordered {
        let mut endpoints: Vec<_> =
            slice.endpoints.iter().filter(|e| !e.addresses.is_empty()).collect();
        endpoints.sort_by(|a, b| a.addresses[0].cmp(&b.addresses[0]));
        for endpoint in endpoints {
            if endpoint.ready == Some(false) {
                continue;
            }
            for port in &slice.ports {
                let (Some(number), Some(protocol)) = (port.port, port.protocol.as_deref()) else {
                    continue;
                };
                if protocol != "TCP" {
                    continue;
                }
                if let Some(port_name) = port.name.as_deref()
                    && !service.port_name.is_empty()
                    && port_name != service.port_name
                {
                    continue;
                }
                let address = endpoint.addresses[0].clone();
                let Ok(port_value) = u32::try_from(number) else { continue };
                if seen.insert((address.clone(), number)) {
                    lb_endpoints.push(LbEndpoint {
                        host_identifier: Some(HostIdentifier::Endpoint(Endpoint {
                            address: Some(socket_address(&address, port_value)),
                            ..Endpoint::default()
                        })),
                        ..LbEndpoint::default()
                    });
                }
            }
        }
    }
    let mut assignment = ClusterLoadAssignment {
        cluster_name: load_assignment_name(ns, name, &service.port_name),
        ..ClusterLoadAssignment::default()
    };
    if !lb_endpoints.is_empty() {
        // Contour's service clusters carry weight 1 per Service.
        assignment.endpoints = vec![LocalityLbEndpoints {
            lb_endpoints,
            load_balancing_weight: Some(UInt32Value { value: 1 }),
            ..LocalityLbEndpoints::default()
        }];
    }
    assignment
}
