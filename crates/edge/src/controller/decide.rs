//! The edge controller's decision, pure: from the stores' contents to the HTTPProxy statuses
//! to write and the xDS snapshot to serve. No I/O, no clock (the time to write is an input),
//! so it is tested with plain values.

use std::collections::BTreeMap;

use certgate_ingress::envoy::{ResourceOptions, build_resources};
use certgate_ingress::ingress_class::proxy_matches;
use certgate_ingress::routing::{Snapshot as IngressSnapshot, process_snapshot};
use certgate_ingress::types::{EndpointSlice, HttpProxy, KubeService, TlsCertificateDelegation};
use certgate_ingress::{NamespacedName, ProcessorConfig, Secret};
use envoy_types::pb::google::protobuf::Any;

use super::status::{LoadBalancer, StatusWrite, status_write};
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

/// What Contour adds around processing: which HTTPProxies are this controller's, and the
/// load balancer's address written into their status. `Default` is Contour without
/// `--ingress-class-name` and before the Envoy Service has an address.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Scope {
    /// `--ingress-class-name`, split as Contour splits it
    /// ([`certgate_ingress::ingress_class::class_names`]); empty: class `contour` or none.
    pub ingress_class_names: Vec<String>,
    /// The Envoy Service's `status.loadBalancer`, or `--ingress-status-address`'s.
    pub load_balancer: LoadBalancer,
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
    /// Proxies of another ingress class: not processed, not served, status not written.
    pub ignored: usize,
    pub snapshot: Snapshot,
    /// The CRL Secrets of the served virtual hosts, each once.
    pub served_crls: Vec<NamespacedName>,
    /// The client validation with a CRL of each served root proxy.
    pub served_validations: Vec<ServedValidation>,
}

/// [`decide_in`] with the default [`Scope`].
pub fn decide(
    inputs: &Inputs,
    config: &ProcessorConfig,
    options: &ResourceOptions,
    now: &str,
) -> Result<Decision, SnapshotError> {
    decide_in(inputs, &Scope::default(), config, options, now)
}

/// Processes the objects as Contour does and builds the snapshot: only the proxies of
/// `scope`'s ingress classes exist for the processing (Contour leaves the others out of its
/// cache), and their statuses carry `scope`'s load balancer address. `now` is written as the
/// conditions' `lastTransitionTime`. An error is a programming error of the translation (a
/// resource under two names); nothing is served from such a build.
pub fn decide_in(
    inputs: &Inputs,
    scope: &Scope,
    config: &ProcessorConfig,
    options: &ResourceOptions,
    now: &str,
) -> Result<Decision, SnapshotError> {
    let ours = |proxy: &HttpProxy| proxy_matches(proxy, &scope.ingress_class_names);
    // Copied only when some proxy is left out.
    let kept: Vec<HttpProxy>;
    let proxies: &[HttpProxy] = if inputs.proxies.iter().all(ours) {
        &inputs.proxies
    } else {
        kept = inputs.proxies.iter().filter(|p| ours(p)).cloned().collect();
        &kept
    };
    let ignored = inputs.proxies.len() - proxies.len();
    let processed = process_snapshot(
        IngressSnapshot {
            proxies,
            secrets: &inputs.secrets,
            delegations: &inputs.delegations,
            services: &inputs.services,
        },
        config,
    );
    let load_balancer = scope.load_balancer.status_value();
    let mut counts = ProxyCounts::default();
    let mut writes = Vec::new();
    for (proxy, outcome) in proxies.iter().zip(&processed.outcomes) {
        let status = outcome.status.build(None, None);
        match status.current_status.as_deref() {
            Some("valid") => counts.valid += 1,
            Some("orphaned") => counts.orphaned += 1,
            _ => counts.invalid += 1,
        }
        writes.extend(status_write(proxy, outcome, load_balancer.as_ref(), now));
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
    Ok(Decision {
        writes,
        counts,
        ignored,
        snapshot: builder.build(),
        served_crls,
        served_validations,
    })
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

    fn service(name: &str) -> KubeService {
        KubeService::from_value(&serde_json::json!({
            "metadata": {"namespace": "ns", "name": name},
            "spec": {"ports": [{"port": 80, "protocol": "TCP"}]},
        }))
        .unwrap()
    }

    /// `root` (no class) and `other` (class `other`), each a root with a Service of its own.
    fn two_classes() -> Inputs {
        let root = proxy(serde_json::json!({
            "metadata": {"namespace": "ns", "name": "root", "generation": 1},
            "spec": {"virtualhost": {"fqdn": "a.example.com"},
                     "routes": [{"services": [{"name": "app", "port": 80}]}]},
        }));
        let other = proxy(serde_json::json!({
            "metadata": {"namespace": "ns", "name": "other", "generation": 1},
            "spec": {"ingressClassName": "other", "virtualhost": {"fqdn": "b.example.com"},
                     "routes": [{"services": [{"name": "other-app", "port": 80}]}]},
        }));
        Inputs {
            proxies: vec![other, root],
            services: vec![service("app"), service("other-app")],
            ..Inputs::default()
        }
    }

    fn scope(classes: &[&str], address: &str) -> Scope {
        Scope {
            ingress_class_names: classes.iter().map(|c| (*c).to_owned()).collect(),
            load_balancer: LoadBalancer::from_status_address(address),
        }
    }

    fn written(decision: &Decision) -> Vec<&str> {
        decision.writes.iter().map(|w| w.name.as_str()).collect()
    }

    fn clusters(decision: &Decision) -> Vec<&str> {
        decision.snapshot.resources(TypeUrl::Cluster).keys().map(String::as_str).collect()
    }

    #[test]
    fn proxies_of_another_class_are_neither_processed_nor_served() {
        let (config, options) = (ProcessorConfig::default(), ResourceOptions::default());
        let inputs = two_classes();
        let default = decide_in(&inputs, &Scope::default(), &config, &options, "t").unwrap();
        assert_eq!(written(&default), ["root"]);
        assert_eq!(default.counts, ProxyCounts { valid: 1, invalid: 0, orphaned: 0 });
        assert_eq!(default.ignored, 1);
        assert_eq!(clusters(&default), ["ns/app/80/da39a3ee5e"]);

        let other = decide_in(&inputs, &scope(&["other"], ""), &config, &options, "t").unwrap();
        assert_eq!(written(&other), ["other"]);
        assert_eq!(other.ignored, 1);
        assert_eq!(clusters(&other), ["ns/other-app/80/da39a3ee5e"]);

        let both = scope(&["other", ""], "");
        let both = decide_in(&inputs, &both, &config, &options, "t").unwrap();
        assert_eq!((written(&both), both.ignored), (vec!["other", "root"], 0));
    }

    #[test]
    fn an_include_of_another_class_is_not_found() {
        let mut inputs = inputs();
        inputs.proxies = vec![
            proxy(serde_json::json!({
                "metadata": {"namespace": "ns", "name": "child", "generation": 1,
                             "annotations": {"projectcontour.io/ingress.class": "other"}},
                "spec": {"routes": [{"services": [{"name": "app", "port": 80}]}]},
            })),
            proxy(serde_json::json!({
                "metadata": {"namespace": "ns", "name": "root", "generation": 1},
                "spec": {"virtualhost": {"fqdn": "a.example.com"},
                         "includes": [{"name": "child"}]},
            })),
        ];
        let decision =
            decide(&inputs, &ProcessorConfig::default(), &ResourceOptions::default(), "t").unwrap();
        assert_eq!(written(&decision), ["root"]);
        let status = &decision.writes[0].status;
        assert_eq!(status.current_status.as_deref(), Some("invalid"));
        let errors = &status.conditions.as_ref().unwrap()[0].errors;
        let messages: Vec<&str> = errors.iter().map(|e| e.message.as_str()).collect();
        assert_eq!(messages, ["include ns/child not found"]);
    }

    #[test]
    fn the_load_balancer_address_is_written_once_into_every_proxy_of_the_class() {
        let (config, options) = (ProcessorConfig::default(), ResourceOptions::default());
        let mut inputs = inputs();
        inputs.proxies.push(two_classes().proxies[0].clone());
        let scope = scope(&[], "192.0.2.10,lb.example.com");
        let first = decide_in(&inputs, &scope, &config, &options, "t1").unwrap();
        // `lonely` is orphaned and has it too; `other`, of another class, has nothing.
        assert_eq!(written(&first), ["root", "lonely"]);
        let expected = serde_json::json!({"ingress": [{"ip": "192.0.2.10"},
                                                       {"hostname": "lb.example.com"}]});
        for write in &first.writes {
            assert_eq!(write.status.load_balancer.as_ref(), Some(&expected));
        }
        for proxy in &mut inputs.proxies {
            let write = first.writes.iter().find(|w| w.name == proxy.name());
            proxy.status = write.map(|w| w.status.clone());
        }
        let second = decide_in(&inputs, &scope, &config, &options, "t2").unwrap();
        assert!(second.writes.is_empty(), "{:?}", second.writes);
        // The Service losing its address writes nothing either: the proxies keep it.
        let gone = Scope::default();
        assert!(decide_in(&inputs, &gone, &config, &options, "t3").unwrap().writes.is_empty());
    }
}
