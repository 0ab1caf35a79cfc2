//! Which HTTPProxy statuses to write, as Contour's status writers decide it: the status
//! processing gives is written only when it differs from what the object carries, ignoring
//! `lastTransitionTime` (Contour's `isStatusEqual` ignores that field; certgate also treats an
//! empty list as an absent one).
//!
//! `loadBalancer` is Contour's load-balancer status writer's part (`cmd/contour/ingressstatus.go`,
//! `internal/k8s/statusaddress.go`): when the load balancer has an address (the Envoy Service's
//! `status.loadBalancer`, or `--ingress-status-address`), that whole `LoadBalancerStatus` is the
//! proxy's, whether it is valid, invalid or orphaned. Without an address Contour writes none, so
//! the object keeps what it has (an address stays after the Service loses it), or the zero
//! `LoadBalancerStatus`, `{}`, that Contour's Go struct writes.

use std::net::IpAddr;

use certgate_ingress::types::{DetailedCondition, HttpProxy, HttpProxyStatus};
use certgate_ingress::validate::ProcessOutcome;
use k8s_openapi::api::core::v1::{LoadBalancerIngress, LoadBalancerStatus};
use serde_json::Value;

/// A load balancer's address as Contour copies it into `status.loadBalancer`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LoadBalancer(pub LoadBalancerStatus);

impl LoadBalancer {
    /// `--ingress-status-address` as Contour parses it (`parseStatusFlag`): a comma-separated
    /// list, each item trimmed, empty items skipped; an item that parses as an IP address
    /// (v4 or v6) is an `ip`, any other a `hostname`, written as given.
    pub fn from_status_address(flag: &str) -> LoadBalancer {
        let ingress = flag
            .split(',')
            .map(str::trim)
            .filter(|item| !item.is_empty())
            .map(|item| {
                let (ip, hostname) = match item.parse::<IpAddr>() {
                    Ok(_) => (Some(item.to_owned()), None),
                    Err(_) => (None, Some(item.to_owned())),
                };
                LoadBalancerIngress { ip, hostname, ..LoadBalancerIngress::default() }
            })
            .collect();
        LoadBalancer(LoadBalancerStatus { ingress: Some(ingress) })
    }

    /// Whether there is an address to write: Contour's writer does nothing without one.
    pub fn has_address(&self) -> bool {
        self.0.ingress.as_ref().is_some_and(|ingress| !ingress.is_empty())
    }

    /// The JSON written, with the fields of Kubernetes' `LoadBalancerStatus` only (those the
    /// HTTPProxy CRD keeps), or `None` when there is no address.
    pub fn status_value(&self) -> Option<Value> {
        self.has_address().then(|| serde_json::to_value(&self.0).unwrap_or_default())
    }
}

/// One status to write with a merge patch on the `status` subresource.
#[derive(Clone, Debug, PartialEq)]
pub struct StatusWrite {
    pub namespace: String,
    pub name: String,
    pub status: HttpProxyStatus,
}

impl StatusWrite {
    /// The merge-patch body: `{"status": …}`. Lists are replaced whole by a merge patch, so
    /// the conditions written are exactly these.
    pub fn patch(&self) -> Value {
        serde_json::json!({ "status": self.status })
    }
}

/// The status to write for `outcome` on `proxy`, or `None` when the object already carries
/// it. `load_balancer` is [`LoadBalancer::status_value`]: the address every proxy gets, `None`
/// to keep the object's. `now` is the RFC 3339 time written as `lastTransitionTime`
/// (Contour: the build's time).
pub fn status_write(
    proxy: &HttpProxy,
    outcome: &ProcessOutcome,
    load_balancer: Option<&Value>,
    now: &str,
) -> Option<StatusWrite> {
    let mut status = outcome.status.build(outcome.generation, Some(now));
    let current = proxy.status.as_ref().and_then(|s| s.load_balancer.as_ref());
    if let Some(address) = load_balancer.or(current) {
        status.load_balancer = Some(address.clone());
    }
    let unchanged = proxy.status.as_ref().is_some_and(|current| equal(current, &status));
    (!unchanged).then(|| StatusWrite {
        namespace: outcome.namespace.clone(),
        name: outcome.name.clone(),
        status,
    })
}

/// Contour's `isStatusEqual`: `lastTransitionTime` ignored, empty equals absent (in
/// `loadBalancer` too, at any depth), and fields certgate does not model (Go would not have
/// decoded them) left out.
fn equal(a: &HttpProxyStatus, b: &HttpProxyStatus) -> bool {
    normal(a) == normal(b)
}

fn normal(status: &HttpProxyStatus) -> HttpProxyStatus {
    let non_empty = |s: &Option<String>| s.clone().filter(|s| !s.is_empty());
    let conditions: Vec<DetailedCondition> = status
        .conditions
        .iter()
        .flatten()
        .map(|c| DetailedCondition { last_transition_time: None, ..c.clone() })
        .collect();
    let load_balancer = status.load_balancer.as_ref().and_then(without_empties);
    HttpProxyStatus {
        current_status: non_empty(&status.current_status),
        description: non_empty(&status.description),
        load_balancer,
        conditions: (!conditions.is_empty()).then_some(conditions),
        extra: serde_json::Map::new(),
    }
}

/// `value` without nulls, empty strings, empty lists and empty object fields (at any depth;
/// list items keep their places), `None` if nothing remains: what Go's `omitempty` drops is
/// not a difference.
fn without_empties(value: &Value) -> Option<Value> {
    match value {
        Value::Null => None,
        Value::String(text) if text.is_empty() => None,
        Value::Object(map) => {
            let kept: serde_json::Map<String, Value> = map
                .iter()
                .filter_map(|(key, value)| Some((key.clone(), without_empties(value)?)))
                .collect();
            (!kept.is_empty()).then_some(Value::Object(kept))
        }
        Value::Array(items) => {
            let kept = items.iter().map(|item| without_empties(item).unwrap_or(Value::Null));
            (!items.is_empty()).then(|| Value::Array(kept.collect()))
        }
        other => Some(other.clone()),
    }
}

#[cfg(test)]
mod tests {
    use certgate_ingress::StatusBuilder;

    use super::*;

    fn outcome(errors: &[(&str, &str, &str)]) -> ProcessOutcome {
        let mut status = StatusBuilder::new();
        for (t, r, m) in errors {
            status.add_error(t, r, m);
        }
        ProcessOutcome {
            namespace: "ns".into(),
            name: "p".into(),
            generation: Some(2),
            status,
            vhost: None,
        }
    }

    fn proxy_with(status: Option<HttpProxyStatus>) -> HttpProxy {
        let mut proxy = HttpProxy::from_value(&serde_json::json!({
            "metadata": {"namespace": "ns", "name": "p", "generation": 2}, "spec": {}
        }))
        .unwrap();
        proxy.status = status;
        proxy
    }

    #[test]
    fn a_new_status_is_written_with_contours_shape() {
        let write =
            status_write(&proxy_with(None), &outcome(&[]), None, "2026-11-29T08:00:00Z").unwrap();
        assert_eq!(
            write.patch(),
            serde_json::json!({"status": {
                "currentStatus": "valid",
                "description": "Valid HTTPProxy",
                "loadBalancer": {},
                "conditions": [{
                    "type": "Valid", "status": "True", "observedGeneration": 2,
                    "lastTransitionTime": "2026-11-29T08:00:00Z",
                    "reason": "Valid", "message": "Valid HTTPProxy",
                }],
            }})
        );
    }

    #[test]
    fn only_the_transition_time_differing_is_no_write() {
        let first =
            status_write(&proxy_with(None), &outcome(&[]), None, "2026-11-29T08:00:00Z").unwrap();
        let proxy = proxy_with(Some(first.status));
        assert_eq!(status_write(&proxy, &outcome(&[]), None, "2026-11-29T09:00:00Z"), None);
        let invalid = outcome(&[("TLSError", "SecretNotValid", "nope")]);
        let write = status_write(&proxy, &invalid, None, "2026-11-29T09:00:00Z").unwrap();
        assert_eq!(write.status.current_status.as_deref(), Some("invalid"));
    }

    #[test]
    fn without_an_address_the_objects_load_balancer_is_kept() {
        let mut carried = outcome(&[]).status.build(Some(2), Some("t"));
        let address = serde_json::json!({"ingress": [{"ip": "192.0.2.1"}]});
        carried.load_balancer = Some(address.clone());
        let proxy = proxy_with(Some(carried));
        assert_eq!(status_write(&proxy, &outcome(&[]), None, "later"), None);
        let write = status_write(&proxy, &outcome(&[("Orphaned", "Orphaned", "x")]), None, "later")
            .unwrap();
        assert_eq!(write.status.load_balancer, Some(address));
    }

    fn addresses(status: &HttpProxyStatus) -> Value {
        status.load_balancer.clone().unwrap()
    }

    #[test]
    fn the_status_address_flag_is_parsed_as_contour_parses_it() {
        let parsed = LoadBalancer::from_status_address(
            " 192.0.2.1, lb.example.com,,2001:db8::1 ,::ffff:192.0.2.2,01.2.3.4",
        );
        assert_eq!(
            parsed.status_value().unwrap(),
            serde_json::json!({"ingress": [
                {"ip": "192.0.2.1"}, {"hostname": "lb.example.com"}, {"ip": "2001:db8::1"},
                {"ip": "::ffff:192.0.2.2"},
                // Go's net.ParseIP refuses leading zeros, as Rust does: a hostname.
                {"hostname": "01.2.3.4"},
            ]})
        );
        assert!(!LoadBalancer::from_status_address("").has_address());
        assert!(!LoadBalancer::from_status_address(" , ").has_address());
        assert_eq!(LoadBalancer::default().status_value(), None);
    }

    #[test]
    fn an_address_goes_to_every_proxy_whatever_its_status() {
        let address = LoadBalancer::from_status_address("192.0.2.10").status_value().unwrap();
        for errors in [vec![], vec![("Orphaned", "Orphaned", "x")], vec![("TLSError", "R", "m")]] {
            let write =
                status_write(&proxy_with(None), &outcome(&errors), Some(&address), "t").unwrap();
            assert_eq!(
                addresses(&write.status),
                serde_json::json!({"ingress": [{"ip": "192.0.2.10"}]})
            );
        }
    }

    #[test]
    fn an_address_replaces_the_objects_and_is_written_once() {
        let mut carried = outcome(&[]).status.build(Some(2), Some("t"));
        carried.load_balancer = Some(serde_json::json!({"ingress": [{"hostname": "old.example"}]}));
        let proxy = proxy_with(Some(carried));
        let address = LoadBalancer::from_status_address("192.0.2.10").status_value().unwrap();
        let write = status_write(&proxy, &outcome(&[]), Some(&address), "later").unwrap();
        assert_eq!(write.patch()["status"]["loadBalancer"], address);
        let written = proxy_with(Some(write.status));
        assert_eq!(status_write(&written, &outcome(&[]), Some(&address), "again"), None);
    }

    #[test]
    fn a_service_address_read_back_with_empty_fields_is_no_rewrite() {
        // The Envoy Service's status as the watch decodes it, ports and all.
        let service: LoadBalancerStatus = serde_json::from_value(serde_json::json!({
            "ingress": [{"ip": "192.0.2.10", "ipMode": "VIP",
                         "ports": [{"port": 80, "protocol": "TCP"}]}],
        }))
        .unwrap();
        let address = LoadBalancer(service).status_value().unwrap();
        let mut carried = outcome(&[]).status.build(Some(2), Some("t"));
        carried.load_balancer = Some(serde_json::json!({"ingress": [{
            "ip": "192.0.2.10", "hostname": "", "ipMode": "VIP",
            "ports": [{"port": 80, "protocol": "TCP", "error": null}],
        }]}));
        assert_eq!(
            status_write(&proxy_with(Some(carried)), &outcome(&[]), Some(&address), "t"),
            None
        );
        // Contour's `{}` against an object without `loadBalancer`, or with an empty list.
        for absent in [None, Some(serde_json::json!({"ingress": []}))] {
            let mut status = outcome(&[]).status.build(Some(2), Some("t"));
            status.load_balancer = absent;
            let mut computed = outcome(&[]).status.build(Some(2), Some("t"));
            computed.load_balancer = Some(serde_json::json!({}));
            assert!(equal(&status, &computed), "{status:?}");
        }
    }
}
