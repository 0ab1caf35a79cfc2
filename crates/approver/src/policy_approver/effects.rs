//! The policy approver's writes: the [`Effects`] seam every reconcile goes through, and
//! [`KubeEffects`], its implementation against the API server.
//!
//! The reconcile's branches are tested with a recording fake (`tests.rs`); the exact
//! requests [`KubeEffects`] sends are tested against a mocked API server (`wire_tests.rs`).

use certgate_api::CertificateRequest;
use certgate_api::certificate_request::CertificateRequestCondition;
use certgate_approval::outcome::{POLICY_FIELD_MANAGER, POLICY_REASON};
use certgate_runtime::EventSink;
use kube::api::{Api, Patch, PatchParams};
use kube::runtime::events::{Event, Reporter};
use kube::{Client, Resource as _};
use serde_json::json;

use super::NAME;

/// What a reconcile does to the cluster: the I/O seam, so every branch of the reconcile is
/// tested without one.
pub(crate) trait Effects: Send + Sync + 'static {
    /// Applies `condition` to the request's status.
    fn apply_condition(
        &self,
        cr: &CertificateRequest,
        condition: &CertificateRequestCondition,
    ) -> impl Future<Output = Result<(), kube::Error>> + Send;
    /// Records `event` about the request; failures are logged, not returned.
    fn publish(&self, cr: &CertificateRequest, event: &Event) -> impl Future<Output = ()> + Send;
}

/// [`Effects`] through the API server: server-side apply of the status, `events.k8s.io`
/// events from reporting controller `policy.cert-manager.io`.
pub(super) struct KubeEffects {
    client: Client,
    events: EventSink,
}

impl KubeEffects {
    /// Writes through `client`; events name `instance` (the pod) as their reporting
    /// instance, or the reporting controller when unset.
    pub(super) fn new(client: Client, instance: Option<String>) -> Self {
        let reporter = Reporter { controller: POLICY_REASON.to_owned(), instance };
        Self { events: EventSink::new(client.clone(), reporter, NAME), client }
    }
}

impl Effects for KubeEffects {
    async fn apply_condition(
        &self,
        cr: &CertificateRequest,
        condition: &CertificateRequestCondition,
    ) -> Result<(), kube::Error> {
        let body = json!({
            "apiVersion": "cert-manager.io/v1",
            "kind": "CertificateRequest",
            "metadata": {"name": cr.metadata.name, "namespace": cr.metadata.namespace},
            "status": {"conditions": [condition]},
        });
        let api: Api<CertificateRequest> = Api::namespaced(
            self.client.clone(),
            cr.metadata.namespace.as_deref().unwrap_or_default(),
        );
        api.patch_status(
            cr.metadata.name.as_deref().unwrap_or_default(),
            &PatchParams::apply(POLICY_FIELD_MANAGER).force(),
            &Patch::Apply(&body),
        )
        .await
        .map(|_| ())
    }

    async fn publish(&self, cr: &CertificateRequest, event: &Event) {
        self.events.publish(&cr.object_ref(&()), event).await;
    }
}
