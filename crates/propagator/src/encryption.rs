//! Encryption keys per managed cluster (spec §8): the `policy-encryption-key` Secret of the
//! cluster namespace, created with a random 256-bit key when a template first needs it, and
//! random IVs. Called from template processing, so on a blocking thread.

use std::collections::BTreeMap;

use certgate_clock::Clock;
use certgate_templates::replica::EncryptionSource;
use k8s_openapi::ByteString;
use k8s_openapi::api::core::v1::Secret;
use kube::api::{Api, ObjectMeta, PostParams};
use ring::rand::{SecureRandom as _, SystemRandom};
use std::sync::Arc;
use tokio::runtime::Handle;

pub const KEY_SECRET: &str = "policy-encryption-key";
const BACKUP_LABEL: &str = "cluster.open-cluster-management.io/backup";
const LAST_ROTATED: &str = "policy.open-cluster-management.io/last-rotated";

pub struct LiveEncryption {
    client: kube::Client,
    handle: Handle,
    clock: Arc<dyn Clock>,
    random: SystemRandom,
}

impl LiveEncryption {
    pub fn new(client: kube::Client, handle: Handle, clock: Arc<dyn Clock>) -> Self {
        LiveEncryption { client, handle, clock, random: SystemRandom::new() }
    }

    async fn key_async(&self, cluster: &str) -> Result<[u8; 32], String> {
        let api: Api<Secret> = Api::namespaced(self.client.clone(), cluster);
        let existing = api
            .get_opt(KEY_SECRET)
            .await
            .map_err(|e| format!("failed to get the Secret {cluster}/{KEY_SECRET}: {e}"))?;
        if let Some(secret) = existing {
            return key_of(&secret).ok_or_else(|| {
                format!("the Secret {cluster}/{KEY_SECRET} has no valid 32-byte data.key")
            });
        }
        let mut key = [0u8; 32];
        self.random.fill(&mut key).map_err(|_| "cannot generate an encryption key".to_owned())?;
        let secret = Secret {
            metadata: ObjectMeta {
                name: Some(KEY_SECRET.to_owned()),
                namespace: Some(cluster.to_owned()),
                labels: Some(BTreeMap::from([(BACKUP_LABEL.to_owned(), "policy".to_owned())])),
                annotations: Some(BTreeMap::from([(
                    LAST_ROTATED.to_owned(),
                    self.clock.now_rfc3339(),
                )])),
                ..ObjectMeta::default()
            },
            data: Some(BTreeMap::from([("key".to_owned(), ByteString(key.to_vec()))])),
            ..Secret::default()
        };
        match api.create(&PostParams::default(), &secret).await {
            Ok(_) => Ok(key),
            // Another reconcile created it first: use that one.
            Err(kube::Error::Api(status)) if status.code == 409 => {
                let secret = api
                    .get(KEY_SECRET)
                    .await
                    .map_err(|e| format!("failed to get the Secret {cluster}/{KEY_SECRET}: {e}"))?;
                key_of(&secret).ok_or_else(|| {
                    format!("the Secret {cluster}/{KEY_SECRET} has no valid 32-byte data.key")
                })
            }
            Err(e) => Err(format!("failed to create the Secret {cluster}/{KEY_SECRET}: {e}")),
        }
    }
}

fn key_of(secret: &Secret) -> Option<[u8; 32]> {
    let key = secret.data.as_ref()?.get("key")?;
    <[u8; 32]>::try_from(key.0.as_slice()).ok()
}

impl EncryptionSource for LiveEncryption {
    fn key(&self, cluster: &str) -> Result<[u8; 32], String> {
        self.handle.block_on(self.key_async(cluster))
    }

    fn new_iv(&self) -> Result<[u8; 16], String> {
        let mut iv = [0u8; 16];
        self.random
            .fill(&mut iv)
            .map_err(|_| "cannot generate an initialization vector".to_owned())?;
        Ok(iv)
    }
}
