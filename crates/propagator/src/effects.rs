//! What the propagator's reconciles do to the cluster: the I/O seam between the decisions
//! and the API server.

use k8s_openapi::api::core::v1::ObjectReference;
use kube::Client;
use kube::api::{Api, DeleteParams, DynamicObject, Patch, PatchParams, PostParams, Preconditions};
use kube::runtime::events::{Event, EventType, Reporter};
use serde_json::Value;

use crate::index::policy_resource;
use certgate_runtime::EventSink;

/// Upstream's reason and action of every propagation event.
pub const PROPAGATION: &str = "PolicyPropagation";

pub trait Effects: Send + Sync + 'static {
    /// Creates the replica; the result is the created object's resourceVersion.
    fn create_replica(
        &self,
        replica: &Value,
    ) -> impl Future<Output = Result<Option<String>, kube::Error>> + Send;
    /// Replaces the replica (the object carries the resourceVersion it was read at); the
    /// result is the new resourceVersion.
    fn update_replica(
        &self,
        replica: &Value,
    ) -> impl Future<Output = Result<Option<String>, kube::Error>> + Send;
    /// Deletes the replica if it still has `resource_version`.
    fn delete_replica(
        &self,
        namespace: &str,
        name: &str,
        resource_version: Option<String>,
    ) -> impl Future<Output = Result<(), kube::Error>> + Send;
    /// Merges `status` into the root policy's status.
    fn patch_root_status(
        &self,
        namespace: &str,
        name: &str,
        status: &Value,
    ) -> impl Future<Output = Result<(), kube::Error>> + Send;
    /// Merges `patch` into the root policy (metadata only).
    fn patch_root(
        &self,
        namespace: &str,
        name: &str,
        patch: &Value,
    ) -> impl Future<Output = Result<(), kube::Error>> + Send;
    /// Records an event on the root policy; best effort.
    fn publish(
        &self,
        root: &ObjectReference,
        warning: bool,
        note: String,
    ) -> impl Future<Output = ()> + Send;
}

pub struct KubeEffects {
    client: Client,
    events: EventSink,
}

impl KubeEffects {
    pub fn new(client: Client, instance: Option<String>) -> Self {
        let reporter = Reporter { controller: crate::NAME.to_owned(), instance };
        KubeEffects { events: EventSink::new(client.clone(), reporter, crate::NAME), client }
    }

    fn api(&self, namespace: &str) -> Api<DynamicObject> {
        Api::namespaced_with(self.client.clone(), namespace, &policy_resource())
    }
}

fn dynamic(value: &Value) -> Result<DynamicObject, kube::Error> {
    serde_json::from_value(value.clone()).map_err(kube::Error::SerdeError)
}

fn namespace_of(value: &Value) -> &str {
    value.pointer("/metadata/namespace").and_then(Value::as_str).unwrap_or_default()
}

impl Effects for KubeEffects {
    async fn create_replica(&self, replica: &Value) -> Result<Option<String>, kube::Error> {
        self.api(namespace_of(replica))
            .create(&PostParams::default(), &dynamic(replica)?)
            .await
            .map(|created| created.metadata.resource_version)
    }

    async fn update_replica(&self, replica: &Value) -> Result<Option<String>, kube::Error> {
        let name = replica.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default();
        self.api(namespace_of(replica))
            .replace(name, &PostParams::default(), &dynamic(replica)?)
            .await
            .map(|updated| updated.metadata.resource_version)
    }

    async fn delete_replica(
        &self,
        namespace: &str,
        name: &str,
        resource_version: Option<String>,
    ) -> Result<(), kube::Error> {
        let params = DeleteParams {
            preconditions: resource_version
                .map(|rv| Preconditions { resource_version: Some(rv), uid: None }),
            ..DeleteParams::default()
        };
        match self.api(namespace).delete(name, &params).await {
            Ok(_) => Ok(()),
            Err(kube::Error::Api(status)) if status.code == 404 => Ok(()),
            Err(error) => Err(error),
        }
    }

    async fn patch_root_status(
        &self,
        namespace: &str,
        name: &str,
        status: &Value,
    ) -> Result<(), kube::Error> {
        let patch = serde_json::json!({ "status": status });
        self.api(namespace)
            .patch_status(name, &PatchParams::default(), &Patch::Merge(&patch))
            .await
            .map(|_| ())
    }

    async fn patch_root(
        &self,
        namespace: &str,
        name: &str,
        patch: &Value,
    ) -> Result<(), kube::Error> {
        self.api(namespace)
            .patch(name, &PatchParams::default(), &Patch::Merge(patch))
            .await
            .map(|_| ())
    }

    async fn publish(&self, root: &ObjectReference, warning: bool, note: String) {
        let event = Event {
            type_: if warning { EventType::Warning } else { EventType::Normal },
            reason: PROPAGATION.to_owned(),
            note: Some(note),
            action: PROPAGATION.to_owned(),
            secondary: None,
        };
        self.events.publish(root, &event).await;
    }
}

/// The reference events name the root policy by.
pub fn root_reference(root: &DynamicObject) -> ObjectReference {
    ObjectReference {
        api_version: Some("policy.open-cluster-management.io/v1".to_owned()),
        kind: Some("Policy".to_owned()),
        name: root.metadata.name.clone(),
        namespace: root.metadata.namespace.clone(),
        uid: root.metadata.uid.clone(),
        resource_version: root.metadata.resource_version.clone(),
        field_path: None,
    }
}
