//! The edge controller's decision, pure: from the stores' contents to the HTTPProxy statuses
//! to write and the xDS snapshot to serve. No I/O, no clock (the time to write is an input),
//! so it is tested with plain values.

use std::collections::BTreeMap;

use certgate_ingress::envoy::{ResourceOptions, build_resources};
use certgate_ingress::routing::{Snapshot as IngressSnapshot, process_snapshot};
use certgate_ingress::types::{EndpointSlice, HttpProxy, KubeService, TlsCertificateDelegation};
use certgate_ingress::{NamespacedName, ProcessorConfig, Secret};
use envoy_types::pb::google::protobuf::Any;

use super::status::{StatusWrite, status_write};
use super::warnings::ServedValidation;
use crate::snapshot::{Snapshot, SnapshotBuilder, SnapshotError, TypeUrl};

/// Everything the decision reads: the watched objects, converted.
#[derive(Clone, Debug, Default)]
pub struct Inputs {
    /// Sorted by namespace and name, so the decision does not depend on store order.
    pub proxies: Vec<HttpProxy>,
    pub secrets: BTreeMap<NamespacedName, Secret>,
    pub delegations: Vec<TlsCertificateDelegation>,
    pub services: Vec<KubeService>,
    pub slices: Vec<EndpointSlice>,
}

/// How many proxies have each `currentStatus`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProxyCounts {
    pub valid: usize,
    pub invalid: usize,
    pub orphaned: usize,
}

/// What to write and what to serve.
#[derive(Debug)]
pub struct Decision {
    /// Only the statuses that differ from what the objects carry.
    pub writes: Vec<StatusWrite>,
    pub counts: ProxyCounts,
    pub snapshot: Snapshot,
    /// The CRL Secrets of the served virtual hosts, each once.
    pub served_crls: Vec<NamespacedName>,
    /// The client validation with a CRL of each served root proxy.
    pub served_validations: Vec<ServedValidation>,
}

/// Processes the objects as Contour does and builds the snapshot. `now` is written as the
/// conditions' `lastTransitionTime`. An error is a programming error of the translation (a
/// resource under two names); nothing is served from such a build.
pub fn decide(
    inputs: &Inputs,
    config: &ProcessorConfig,
    options: &ResourceOptions,
    now: &str,
) -> Result<Decision, SnapshotError> {
    let processed = process_snapshot(
        IngressSnapshot {
            proxies: &inputs.proxies,
            secrets: &inputs.secrets,
            delegations: &inputs.delegations,
            services: &inputs.services,
        },
        config,
    );
    let mut counts = ProxyCounts::default();
    let mut writes = Vec::new();
    for (proxy, outcome) in inputs.proxies.iter().zip(&processed.outcomes) {
        let status = outcome.status.build(None, None);
        match status.current_status.as_deref() {
            Some("valid") => counts.valid += 1,
            Some("orphaned") => counts.orphaned += 1,
            _ => counts.invalid += 1,
        }
        writes.extend(status_write(proxy, outcome, now));
    }
    let served_validations: Vec<ServedValidation> = processed
        .vhosts
        .iter()
        .filter_map(|v| {
            let peer = v.tls.as_ref()?.peer_validation.as_ref()?;
            Some(ServedValidation {
                proxy: NamespacedName { namespace: v.namespace.clone(), name: v.name.clone() },
                crl_secret: peer.crl.as_ref()?.0.clone(),
                ca_secret: peer.ca.as_ref().map(|(name, _)| name.clone()),
                only_verify_leaf: peer.only_verify_leaf_cert_crl,
                skip_client_cert_validation: peer.skip_client_cert_validation,
            })
        })
        .collect();
    let mut served_crls: Vec<NamespacedName> = processed
        .vhosts
        .iter()
        .filter_map(|v| {
            let crl = v.tls.as_ref()?.peer_validation.as_ref()?.crl.as_ref()?;
            Some(crl.0.clone())
        })
        .collect();
    served_crls.sort();
    served_crls.dedup();
    let resources = build_resources(&processed, &inputs.slices, options);
    let mut builder = SnapshotBuilder::default();
    for (type_url, name, value) in resources.to_xds() {
        let Some(kind) = TypeUrl::parse(&type_url) else {
            return Err(SnapshotError::UnknownType { type_url });
        };
        builder.add(kind, name, Any { type_url, value })?;
    }
    Ok(Decision { writes, counts, snapshot: builder.build(), served_crls, served_validations })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proxy(value: serde_json::Value) -> HttpProxy {
        HttpProxy::from_value(&value).unwrap()
    }

    fn inputs() -> Inputs {
        let service = KubeService::from_value(&serde_json::json!({
            "metadata": {"namespace": "ns", "name": "app"},
            "spec": {"ports": [{"port": 80, "protocol": "TCP"}]},
        }))
        .unwrap();
        let slice = EndpointSlice::from_value(&serde_json::json!({
            "metadata": {"namespace": "ns", "name": "app-1",
                         "labels": {"kubernetes.io/service-name": "app"}},
            "endpoints": [{"addresses": ["127.0.0.1"]}],
            "ports": [{"port": 9000, "protocol": "TCP"}],
        }))
        .unwrap();
        Inputs {
            proxies: vec![
                proxy(serde_json::json!({
                    "metadata": {"namespace": "ns", "name": "root", "generation": 1},
                    "spec": {"virtualhost": {"fqdn": "a.example.com"},
                             "routes": [{"services": [{"name": "app", "port": 80}]}]},
                })),
                proxy(serde_json::json!({
                    "metadata": {"namespace": "ns", "name": "lonely", "generation": 1},
                    "spec": {"routes": [{"services": [{"name": "app", "port": 80}]}]},
                })),
            ],
            services: vec![service],
            slices: vec![slice],
            ..Inputs::default()
        }
    }

    #[test]
    fn statuses_counts_and_resources_come_from_one_pass() {
        let decision =
            decide(&inputs(), &ProcessorConfig::default(), &ResourceOptions::default(), "t")
                .unwrap();
        assert_eq!(decision.counts, ProxyCounts { valid: 1, invalid: 0, orphaned: 1 });
        let statuses: Vec<_> = decision
            .writes
            .iter()
            .map(|w| (w.name.as_str(), w.status.current_status.as_deref().unwrap()))
            .collect();
        assert_eq!(statuses, [("root", "valid"), ("lonely", "orphaned")]);
        let snapshot = &decision.snapshot;
        assert!(snapshot.resources(TypeUrl::Listener).contains_key("ingress_http"));
        assert!(snapshot.resources(TypeUrl::Cluster).contains_key("ns/app/80/da39a3ee5e"));
        assert!(snapshot.resources(TypeUrl::ClusterLoadAssignment).contains_key("ns/app"));
    }

    #[test]
    fn the_same_inputs_give_the_same_snapshot_and_no_second_write() {
        let mut inputs = inputs();
        let options = ResourceOptions::default();
        let first = decide(&inputs, &ProcessorConfig::default(), &options, "t1").unwrap();
        for (proxy, write) in inputs.proxies.iter_mut().zip(&first.writes) {
            proxy.status = Some(write.status.clone());
        }
        let second = decide(&inputs, &ProcessorConfig::default(), &options, "t2").unwrap();
        assert!(second.writes.is_empty());
        assert_eq!(second.snapshot, first.snapshot);
    }
}
