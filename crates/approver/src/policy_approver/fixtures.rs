//! Test fixtures shared by the reconcile's tests: the examples' policies, RBAC and requests,
//! and a [`Context`] over them with the effects a test chooses.

use std::sync::{Arc, Mutex};

use certgate_api::{CertificateRequest, CertificateRequestPolicy};
use certgate_approval::Approver;
use certgate_clock::ManualClock;
use certgate_rbac::RbacObjects;
use certgate_runtime::{ControllerMetrics, QueueTracker};
use k8s_openapi::api::core::v1::Namespace;
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding};
use serde::de::DeserializeOwned;
use serde_json::json;

use super::{Context, Effects, LocalRbac, NAME};
use crate::world::World;

const DNS_POLICY: &str = include_str!("../../../../examples/dns/policy.yaml");
const SPIFFE_POLICY: &str = include_str!("../../../../examples/spiffe/policy.yaml");
const DNS_REQUESTS: &str = include_str!("../../../../examples/dns/requests.yaml");
const RBAC: &str = include_str!("../../../../examples/rbac.yaml");

fn documents<K: DeserializeOwned>(text: &str, kind: &str) -> Vec<K> {
    text.split("\n---")
        .filter(|document| document.lines().any(|line| line == format!("kind: {kind}")))
        .map(|document| serde_saphyr::from_str(document).unwrap())
        .collect()
}

/// The request `name` of `examples/dns/requests.yaml`.
pub(super) fn example_request(name: &str) -> CertificateRequest {
    documents::<CertificateRequest>(DNS_REQUESTS, "CertificateRequest")
        .into_iter()
        .find(|cr| cr.metadata.name.as_deref() == Some(name))
        .unwrap()
}

fn ready(mut policy: CertificateRequestPolicy) -> CertificateRequestPolicy {
    policy.metadata.generation = Some(1);
    policy.status = Some(
        serde_json::from_value(json!({"conditions": [{"type": "Ready", "status": "True",
            "reason": "Ready", "message": "ready", "observedGeneration": 1,
            "lastTransitionTime": "2026-01-01T00:00:00Z"}]}))
        .unwrap(),
    );
    policy
}

/// The examples' DNS and SPIFFE policies (Ready) and RBAC, answered by local RBAC;
/// `namespaces` as given; writes through `effects`.
pub(super) fn context_with<E: Effects>(namespaces: Vec<Namespace>, effects: E) -> Arc<Context<E>> {
    context_with_more(Vec::new(), namespaces, effects)
}

/// [`context_with`], with `more` policies (as they are, status included) besides the
/// examples'.
pub(super) fn context_with_more<E: Effects>(
    more: Vec<CertificateRequestPolicy>,
    namespaces: Vec<Namespace>,
    effects: E,
) -> Arc<Context<E>> {
    let policies = [DNS_POLICY, SPIFFE_POLICY]
        .iter()
        .flat_map(|text| documents::<CertificateRequestPolicy>(text, "CertificateRequestPolicy"))
        .map(ready)
        .chain(more)
        .collect();
    let rbac = RbacObjects {
        cluster_roles: documents::<ClusterRole>(RBAC, "ClusterRole"),
        cluster_role_bindings: documents::<ClusterRoleBinding>(RBAC, "ClusterRoleBinding"),
        ..RbacObjects::default()
    };
    let world = World::with_objects(policies, namespaces, rbac);
    Arc::new(Context {
        access: Box::new(LocalRbac(world.clone())),
        world,
        approver: Approver::new(Arc::new(certgate_cel::PolicyCel::default())),
        effects,
        clock: Arc::new(ManualClock::at(fixed_time())),
        metrics: Arc::new(ControllerMetrics::default()),
        queue: Arc::new(QueueTracker::new(NAME)),
        failures: Mutex::default(),
    })
}

/// The time the fixtures' clock stands at: `2026-11-04T11:30:45Z`.
pub(super) fn fixed_time() -> std::time::SystemTime {
    std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_793_791_845)
}

/// The Namespace `payments`, labelled for the SPIFFE policy.
pub(super) fn payments() -> Vec<Namespace> {
    vec![
        serde_json::from_value(json!({"metadata": {"name": "payments",
        "labels": {"spiffe.example.org/enabled": "true"}}}))
        .unwrap(),
    ]
}
