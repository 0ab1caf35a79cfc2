//! Rotation of the per-cluster encryption keys (upstream's `policy-encryption-keys`
//! controller, run with the propagator): each `policy-encryption-key` Secret gets a new key
//! every `--encryption-key-rotation` days (the old one kept as `previousKey` for values not
//! yet re-encrypted), and every root policy whose replica in that cluster uses encryption is
//! re-processed through its `trigger-update` annotation. The decision is
//! `certgate_templates::key_rotation`; this module reads the Secret and writes back.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use certgate_clock::Clock;
use certgate_templates::encryption::IV_ANNOTATION;
use certgate_templates::key_rotation::{
    DISABLE_ROTATION_ANNOTATION, KeyRotation, LAST_ROTATED_ANNOTATION, key_rotation, trigger_value,
};
use certgate_templates::replica::{ANNOTATION_TRIGGER_UPDATE, LABEL_ROOT_POLICY};
use k8s_openapi::ByteString;
use k8s_openapi::api::core::v1::Secret;
use kube::api::{Api, PostParams};
use kube::runtime::reflector::{ObjectRef, Store};
use ring::rand::{SecureRandom as _, SystemRandom};

use crate::context::{Context, ReconcileError};
use crate::effects::Effects;
use crate::encryption::KEY_SECRET;

pub struct Keys<E> {
    pub secrets: Store<Secret>,
    pub client: kube::Client,
    pub context: Arc<Context<E>>,
    pub clock: Arc<dyn Clock>,
    pub period: Duration,
}

/// The `last-rotated` text for `now`: RFC 3339 in UTC, whole seconds, as Go's
/// `time.Now().UTC().Format(time.RFC3339)`.
fn rfc3339_seconds(clock: &dyn Clock) -> String {
    let seconds =
        clock.now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or_default();
    k8s_openapi::jiff::Timestamp::from_second(i64::try_from(seconds).unwrap_or_default())
        .map(|t| t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string())
        .unwrap_or_default()
}

impl<E: Effects> Keys<E> {
    /// Reconciles the key Secret of `cluster`; the time until it should be looked at again.
    pub async fn reconcile(&self, cluster: &str) -> Result<Option<Duration>, ReconcileError> {
        let Some(secret) = self.secrets.get(&ObjectRef::new(KEY_SECRET).within(cluster)) else {
            return Ok(None);
        };
        let annotations = secret.metadata.annotations.clone().unwrap_or_default();
        let data = secret.data.clone().unwrap_or_default();
        let bytes = |field: &str| data.get(field).map(|b| b.0.clone()).unwrap_or_default();
        let (key, previous) = (bytes("key"), bytes("previousKey"));
        let disabled = annotations
            .get(DISABLE_ROTATION_ANNOTATION)
            .is_some_and(|v| v.eq_ignore_ascii_case("true"));
        let last_text = annotations.get(LAST_ROTATED_ANNOTATION).cloned().unwrap_or_default();
        let last = last_text.parse::<k8s_openapi::jiff::Timestamp>().ok().map(|t| t.as_second());
        let now = self
            .clock
            .now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
            .unwrap_or_default();
        match key_rotation(&key, &previous, last, disabled, now, self.period) {
            KeyRotation::TriggerOnly => {
                self.trigger(cluster, &last_text).await;
                Ok(None)
            }
            KeyRotation::Wait { after, drop_previous } => {
                if drop_previous {
                    let mut updated = Secret::clone(&secret);
                    let mut data = data.clone();
                    data.insert("previousKey".to_owned(), ByteString(Vec::new()));
                    updated.data = Some(data);
                    self.replace(cluster, &updated).await?;
                }
                Ok(Some(after))
            }
            KeyRotation::Rotate => {
                let mut fresh = [0u8; 32];
                SystemRandom::new().fill(&mut fresh).map_err(|_| {
                    ReconcileError::Internal("cannot generate an encryption key".to_owned())
                })?;
                let kept = if certgate_templates::key_rotation::is_aes_key(&key) {
                    key
                } else {
                    Vec::new()
                };
                let stamp = rfc3339_seconds(self.clock.as_ref());
                let mut updated = Secret::clone(&secret);
                let mut data: BTreeMap<String, ByteString> = data.clone();
                data.insert("previousKey".to_owned(), ByteString(kept));
                data.insert("key".to_owned(), ByteString(fresh.to_vec()));
                updated.data = Some(data);
                updated
                    .metadata
                    .annotations
                    .get_or_insert_with(BTreeMap::new)
                    .insert(LAST_ROTATED_ANNOTATION.to_owned(), stamp.clone());
                self.replace(cluster, &updated).await?;
                tracing::info!(cluster, "rotated the policy encryption key");
                self.trigger(cluster, &stamp).await;
                Ok(Some(self.period))
            }
        }
    }

    async fn replace(&self, cluster: &str, secret: &Secret) -> Result<(), ReconcileError> {
        Api::<Secret>::namespaced(self.client.clone(), cluster)
            .replace(KEY_SECRET, &PostParams::default(), secret)
            .await
            .map(|_| ())
            .map_err(ReconcileError::Write)
    }

    /// Sets `trigger-update` on the roots of every replica in `cluster` that uses encryption
    /// (carries an IV), so their templates are resolved again with the new key. Failures are
    /// logged, as upstream's.
    async fn trigger(&self, cluster: &str, last_rotated: &str) {
        let value = trigger_value(cluster, last_rotated);
        let replicas = self.context.index.policies.state_filter(|p| {
            p.metadata().namespace.as_deref() == Some(cluster)
                && p.metadata().annotations.as_ref().is_some_and(|a| a.contains_key(IV_ANNOTATION))
        });
        for replica in replicas {
            let Some(root) =
                replica.metadata().labels.as_ref().and_then(|l| l.get(LABEL_ROOT_POLICY))
            else {
                continue;
            };
            let Some((namespace, name)) = root.split_once('.') else { continue };
            let patch = serde_json::json!({
                "metadata": {"annotations": {ANNOTATION_TRIGGER_UPDATE: value}}
            });
            if let Err(error) = self.context.effects.patch_root(namespace, name, &patch).await {
                tracing::warn!(policy = %format!("{namespace}/{name}"), error = %error,
                    "Failed to trigger the policy to be reprocessed after the key rotation");
            }
        }
    }
}
