//! The one I/O seam of every controller in this crate: reading a Secret, writing a status,
//! recording an event. [`KubeEffects`] goes through the API server; the tests record.

use certgate_api::CertificateRequest;
use certgate_runtime::EventSink;
use k8s_openapi::api::core::v1::{ObjectReference, Secret};
use kube::Client;
use kube::api::{Api, PostParams};
use kube::runtime::events::{Event, EventType, Reporter};

use crate::generic::IssuerApi;
use crate::setup::SecretData;

/// What a reconcile reads and writes besides its snapshot.
pub(crate) trait Effects: Send + Sync + 'static {
    /// The Secret's decoded `data`; `Ok(None)` when it does not exist.
    fn read_secret(
        &self,
        namespace: &str,
        name: &str,
    ) -> impl Future<Output = Result<Option<SecretData>, kube::Error>> + Send;
    /// Replaces the request's status with `updated`'s (an update of the cached object: a
    /// stale copy fails with a conflict, as upstream's `UpdateStatus` does).
    fn write_request_status(
        &self,
        updated: &CertificateRequest,
    ) -> impl Future<Output = Result<(), kube::Error>> + Send;
    /// Replaces the issuer's status with `updated`'s.
    fn write_issuer_status<I: IssuerApi>(
        &self,
        updated: &I,
    ) -> impl Future<Output = Result<(), kube::Error>> + Send;
    /// Records `event` about `regarding`; failures are logged, not returned.
    fn publish(
        &self,
        regarding: &ObjectReference,
        event: &Event,
    ) -> impl Future<Output = ()> + Send;
}

/// [`Effects`] through the API server, events from `reporter`.
pub(crate) struct KubeEffects {
    client: Client,
    events: EventSink,
}

impl KubeEffects {
    pub(crate) fn new(client: Client, reporter: Reporter, controller: &'static str) -> Self {
        KubeEffects { events: EventSink::new(client.clone(), reporter, controller), client }
    }
}

impl Effects for KubeEffects {
    async fn read_secret(
        &self,
        namespace: &str,
        name: &str,
    ) -> Result<Option<SecretData>, kube::Error> {
        let api: Api<Secret> = Api::namespaced(self.client.clone(), namespace);
        let Some(secret) = api.get_opt(name).await? else { return Ok(None) };
        let mut data: SecretData =
            secret.data.unwrap_or_default().into_iter().map(|(k, v)| (k, v.0)).collect();
        // `stringData` is write-only, but a server that keeps it (none should) still counts.
        for (key, value) in secret.string_data.unwrap_or_default() {
            data.entry(key).or_insert_with(|| value.into_bytes());
        }
        Ok(Some(data))
    }

    async fn write_request_status(&self, updated: &CertificateRequest) -> Result<(), kube::Error> {
        let api: Api<CertificateRequest> = Api::namespaced(
            self.client.clone(),
            updated.metadata.namespace.as_deref().unwrap_or_default(),
        );
        let name = updated.metadata.name.as_deref().unwrap_or_default();
        api.replace_status(name, &PostParams::default(), updated).await.map(|_| ())
    }

    async fn write_issuer_status<I: IssuerApi>(&self, updated: &I) -> Result<(), kube::Error> {
        let api = I::api(self.client.clone(), updated.meta().namespace.as_deref());
        let name = updated.meta().name.as_deref().unwrap_or_default();
        api.replace_status(name, &PostParams::default(), updated).await.map(|_| ())
    }

    async fn publish(&self, regarding: &ObjectReference, event: &Event) {
        self.events.publish(regarding, event).await;
    }
}

/// The kube event for an event the issuance core describes.
pub(crate) fn kube_event(event: &certgate_issuance::Event, action: &str) -> Event {
    Event {
        type_: if event.warning { EventType::Warning } else { EventType::Normal },
        reason: event.reason.clone(),
        note: Some(event.message.clone()),
        action: action.to_owned(),
        secondary: None,
    }
}

/// The object an event is about.
pub(crate) fn reference<K: kube::Resource<DynamicType = ()>>(object: &K) -> ObjectReference {
    object.object_ref(&())
}

#[cfg(test)]
mod wire_tests;
