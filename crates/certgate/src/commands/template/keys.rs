//! Encryption keys for `template resolve`: the cluster's `policy-encryption-key` Secret when
//! the inputs hold it, otherwise a throw-away key; IVs from the OS random generator.

use std::cell::Cell;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use ring::rand::{SecureRandom, SystemRandom};
use serde_json::Value;

use certgate_templates::replica::EncryptionSource;

pub struct OfflineKeys {
    secret_key: Option<Vec<u8>>,
    /// Set once a throw-away key was used, so the command can say so.
    pub throw_away_used: Cell<bool>,
}

impl OfflineKeys {
    pub fn from_objects(objects: &[Value], cluster: &str) -> Self {
        let secret_key = objects
            .iter()
            .find(|o| {
                o.get("kind").and_then(Value::as_str) == Some("Secret")
                    && o.pointer("/metadata/namespace").and_then(Value::as_str) == Some(cluster)
                    && o.pointer("/metadata/name").and_then(Value::as_str)
                        == Some("policy-encryption-key")
            })
            .and_then(|s| s.pointer("/data/key"))
            .and_then(Value::as_str)
            .and_then(|k| STANDARD.decode(k).ok());
        Self { secret_key, throw_away_used: Cell::new(false) }
    }
}

impl EncryptionSource for OfflineKeys {
    fn key(&self, cluster: &str) -> Result<[u8; 32], String> {
        match &self.secret_key {
            Some(key) => <[u8; 32]>::try_from(key.as_slice()).map_err(|_| {
                format!(
                    "the Secret {cluster}/policy-encryption-key has a key of {} bytes; AES-256 needs 32",
                    key.len()
                )
            }),
            None => {
                self.throw_away_used.set(true);
                let mut key = [0u8; 32];
                SystemRandom::new()
                    .fill(&mut key)
                    .map_err(|_| "the system random generator failed".to_owned())?;
                Ok(key)
            }
        }
    }

    fn new_iv(&self) -> Result<[u8; 16], String> {
        let mut iv = [0u8; 16];
        SystemRandom::new()
            .fill(&mut iv)
            .map_err(|_| "the system random generator failed to produce an IV".to_owned())?;
        Ok(iv)
    }
}
