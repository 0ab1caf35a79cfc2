//! The I/O seam of `issuers-crl`: whole Secrets read, created and replaced (the CRL Secret is
//! written with its `resourceVersion`, so a concurrent `certgate revoke` makes the write
//! fail with a conflict instead of losing its entry), and events.

use std::collections::BTreeMap;

use certgate_runtime::EventSink;
use k8s_openapi::ByteString;
use k8s_openapi::api::core::v1::{ObjectReference, Secret};
use kube::Client;
use kube::api::{Api, ObjectMeta, PostParams};
use kube::runtime::events::{Event, Reporter};

use crate::setup::SecretData;

/// The label certgate puts on the CRL Secrets it creates.
pub const MANAGED_BY: (&str, &str) = ("app.kubernetes.io/managed-by", "certgate");

pub(crate) trait CrlEffects: Send + Sync + 'static {
    /// The Secret; `Ok(None)` when it does not exist.
    fn get_secret(
        &self,
        namespace: &str,
        name: &str,
    ) -> impl Future<Output = Result<Option<Secret>, kube::Error>> + Send;
    /// Creates `secret` (fails with AlreadyExists when someone was first).
    fn create_secret(
        &self,
        secret: &Secret,
    ) -> impl Future<Output = Result<(), kube::Error>> + Send;
    /// Replaces `secret`; its `resourceVersion` must be current (else a conflict).
    fn replace_secret(
        &self,
        secret: &Secret,
    ) -> impl Future<Output = Result<(), kube::Error>> + Send;
    /// Records `event` about `regarding`; failures are logged, not returned.
    fn publish(
        &self,
        regarding: &ObjectReference,
        event: &Event,
    ) -> impl Future<Output = ()> + Send;
}

/// [`CrlEffects`] through the API server.
pub(crate) struct KubeCrlEffects {
    client: Client,
    events: EventSink,
}

impl KubeCrlEffects {
    pub(crate) fn new(client: Client, reporter: Reporter, controller: &'static str) -> Self {
        KubeCrlEffects { events: EventSink::new(client.clone(), reporter, controller), client }
    }
}

impl CrlEffects for KubeCrlEffects {
    async fn get_secret(&self, namespace: &str, name: &str) -> Result<Option<Secret>, kube::Error> {
        Api::<Secret>::namespaced(self.client.clone(), namespace).get_opt(name).await
    }

    async fn create_secret(&self, secret: &Secret) -> Result<(), kube::Error> {
        let namespace = secret.metadata.namespace.as_deref().unwrap_or_default();
        Api::<Secret>::namespaced(self.client.clone(), namespace)
            .create(&PostParams::default(), secret)
            .await
            .map(|_| ())
    }

    async fn replace_secret(&self, secret: &Secret) -> Result<(), kube::Error> {
        let namespace = secret.metadata.namespace.as_deref().unwrap_or_default();
        let name = secret.metadata.name.as_deref().unwrap_or_default();
        Api::<Secret>::namespaced(self.client.clone(), namespace)
            .replace(name, &PostParams::default(), secret)
            .await
            .map(|_| ())
    }

    async fn publish(&self, regarding: &ObjectReference, event: &Event) {
        self.events.publish(regarding, event).await;
    }
}

/// A Secret's `data`, decoded (`stringData` counts too, should a server keep it).
pub fn secret_data(secret: &Secret) -> SecretData {
    let mut data: SecretData =
        secret.data.clone().unwrap_or_default().into_iter().map(|(k, v)| (k, v.0)).collect();
    for (key, value) in secret.string_data.clone().unwrap_or_default() {
        data.entry(key).or_insert_with(|| value.into_bytes());
    }
    data
}

/// `existing` with `key` set to `value` (every other key, label and annotation kept), or a
/// new Opaque Secret labelled [`MANAGED_BY`] holding only `key`.
pub fn with_key(
    existing: Option<&Secret>,
    namespace: &str,
    name: &str,
    key: &str,
    value: Vec<u8>,
) -> Secret {
    match existing {
        Some(secret) => {
            let mut updated = secret.clone();
            let mut data = secret_data(secret);
            data.insert(key.to_owned(), value);
            updated.data = Some(data.into_iter().map(|(k, v)| (k, ByteString(v))).collect());
            updated.string_data = None;
            updated
        }
        None => Secret {
            metadata: ObjectMeta {
                name: Some(name.to_owned()),
                namespace: Some(namespace.to_owned()),
                labels: Some(BTreeMap::from([(MANAGED_BY.0.to_owned(), MANAGED_BY.1.to_owned())])),
                ..ObjectMeta::default()
            },
            type_: Some("Opaque".to_owned()),
            data: Some(BTreeMap::from([(key.to_owned(), ByteString(value))])),
            ..Secret::default()
        },
    }
}

/// Whether `error` is the API server's 409 (a stale resourceVersion, or a create that lost
/// the race): read again and retry.
pub fn is_conflict(error: &kube::Error) -> bool {
    matches!(error, kube::Error::Api(status) if status.code == 409)
}

/// An API error as a person reads it: the server's message and reason, without the client's
/// debug rendering of the status.
pub fn describe_error(error: &kube::Error) -> String {
    match error {
        kube::Error::Api(status) if status.reason.is_empty() => status.message.clone(),
        kube::Error::Api(status) => format!("{} ({})", status.message, status.reason),
        other => other.to_string(),
    }
}
