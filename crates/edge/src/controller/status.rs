//! Which HTTPProxy statuses to write, as Contour's status updater decides it: the status
//! processing gives is written only when it differs from what the object carries, ignoring
//! `lastTransitionTime` (Contour's `IsStatusEqual` ignores that field and treats an empty list
//! as an absent one). `loadBalancer` is kept as the object has it: another writer (Contour's
//! load-balancer status writer) owns it; when nothing set it, Contour writes the zero
//! `LoadBalancerStatus`, `{}`.

use certgate_ingress::types::{DetailedCondition, HttpProxy, HttpProxyStatus};
use certgate_ingress::validate::ProcessOutcome;
use serde_json::Value;

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
/// it. `now` is the RFC 3339 time written as `lastTransitionTime` (Contour: the build's time).
pub fn status_write(proxy: &HttpProxy, outcome: &ProcessOutcome, now: &str) -> Option<StatusWrite> {
    let mut status = outcome.status.build(outcome.generation, Some(now));
    if let Some(current) = proxy.status.as_ref().and_then(|s| s.load_balancer.clone()) {
        status.load_balancer = Some(current);
    }
    let unchanged = proxy.status.as_ref().is_some_and(|current| equal(current, &status));
    (!unchanged).then(|| StatusWrite {
        namespace: outcome.namespace.clone(),
        name: outcome.name.clone(),
        status,
    })
}

/// Contour's `IsStatusEqual`: `lastTransitionTime` ignored, empty equals absent, and fields
/// certgate does not model (Go would not have decoded them) left out.
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
    let load_balancer = status.load_balancer.clone().filter(|v| !is_empty(v));
    HttpProxyStatus {
        current_status: non_empty(&status.current_status),
        description: non_empty(&status.description),
        load_balancer,
        conditions: (!conditions.is_empty()).then_some(conditions),
        extra: serde_json::Map::new(),
    }
}

fn is_empty(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Object(map) => map.values().all(is_empty),
        Value::Array(items) => items.is_empty(),
        _ => false,
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
        let write = status_write(&proxy_with(None), &outcome(&[]), "2026-11-29T08:00:00Z").unwrap();
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
        let first = status_write(&proxy_with(None), &outcome(&[]), "2026-11-29T08:00:00Z").unwrap();
        let proxy = proxy_with(Some(first.status));
        assert_eq!(status_write(&proxy, &outcome(&[]), "2026-11-29T09:00:00Z"), None);
        let invalid = outcome(&[("TLSError", "SecretNotValid", "nope")]);
        let write = status_write(&proxy, &invalid, "2026-11-29T09:00:00Z").unwrap();
        assert_eq!(write.status.current_status.as_deref(), Some("invalid"));
    }

    #[test]
    fn a_load_balancer_set_by_another_writer_is_kept() {
        let mut carried = outcome(&[]).status.build(Some(2), Some("t"));
        let address = serde_json::json!({"ingress": [{"ip": "192.0.2.1"}]});
        carried.load_balancer = Some(address.clone());
        let proxy = proxy_with(Some(carried));
        assert_eq!(status_write(&proxy, &outcome(&[]), "later"), None);
        let write =
            status_write(&proxy, &outcome(&[("Orphaned", "Orphaned", "x")]), "later").unwrap();
        assert_eq!(write.status.load_balancer, Some(address));
    }
}
