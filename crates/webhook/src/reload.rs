//! Serving-certificate hot reload: the certificate and key files are polled and a changed,
//! valid pair replaces the served one for new handshakes; an invalid pair keeps the old one.

use std::path::PathBuf;
use std::time::Duration;

use axum_server::tls_rustls::RustlsConfig;

use certgate_serving::{PemPair, server_config};

/// Watches `cert` and `key`, starting from the `loaded` pair that `served` already uses.
pub(crate) struct CertificateWatcher {
    cert: PathBuf,
    key: PathBuf,
    served: RustlsConfig,
    loaded: PemPair,
    /// The last failure, so a lasting problem is logged once rather than at every poll.
    failed: Option<Failure>,
}

/// What one poll did.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Polled {
    Unchanged,
    Reloaded,
    Failed,
}

#[derive(PartialEq, Eq)]
enum Failure {
    Read(String),
    Invalid(PemPair),
}

impl CertificateWatcher {
    pub fn new(cert: PathBuf, key: PathBuf, served: RustlsConfig, loaded: PemPair) -> Self {
        Self { cert, key, served, loaded, failed: None }
    }

    /// Polls every `interval` until the task is aborted.
    pub async fn run(mut self, interval: Duration) {
        let mut ticks = tokio::time::interval(interval);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        ticks.tick().await;
        loop {
            ticks.tick().await;
            self.poll().await;
        }
    }

    /// Reads both files and serves them if they changed and form a valid pair. The
    /// contents are compared rather than modification times: Secret volume updates swap a
    /// symlink, and reading two small files every few seconds costs nothing.
    pub async fn poll(&mut self) -> Polled {
        let pair = match PemPair::read(&self.cert, &self.key).await {
            Ok(pair) => pair,
            Err(err) => {
                let failure = Failure::Read(err.to_string());
                if self.failed.as_ref() != Some(&failure) {
                    tracing::error!(error = %err, "cannot reload the serving certificate; still serving the previous one");
                    self.failed = Some(failure);
                }
                return Polled::Failed;
            }
        };
        if pair == self.loaded {
            self.failed = None;
            return Polled::Unchanged;
        }
        if matches!(&self.failed, Some(Failure::Invalid(bad)) if *bad == pair) {
            return Polled::Failed;
        }
        match server_config(&pair) {
            Ok(config) => {
                self.served.reload_from_config(config);
                tracing::info!(
                    cert = %self.cert.display(),
                    key = %self.key.display(),
                    "reloaded the serving certificate"
                );
                self.loaded = pair;
                self.failed = None;
                Polled::Reloaded
            }
            Err(err) => {
                tracing::error!(
                    error = %err,
                    cert = %self.cert.display(),
                    key = %self.key.display(),
                    "the changed serving certificate is unusable; still serving the previous one"
                );
                self.failed = Some(Failure::Invalid(pair));
                Polled::Failed
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use certgate_serving::DevCertificates;

    fn pair() -> PemPair {
        DevCertificates::generate(&[]).unwrap().serving
    }

    #[tokio::test]
    async fn keeps_the_old_pair_until_a_valid_new_one_appears() {
        let (first, second) = (pair(), pair());
        let dir = tempfile::tempdir().unwrap();
        let (cert, key) = (dir.path().join("tls.crt"), dir.path().join("tls.key"));
        std::fs::write(&cert, &first.cert).unwrap();
        std::fs::write(&key, &first.key).unwrap();
        let served = RustlsConfig::from_config(server_config(&first).unwrap());
        let mut watcher = CertificateWatcher::new(cert.clone(), key.clone(), served.clone(), first);
        let initial = served.get_inner();

        assert_eq!(watcher.poll().await, Polled::Unchanged);

        // Half a rotation: the new certificate with the old key.
        std::fs::write(&cert, &second.cert).unwrap();
        assert_eq!(watcher.poll().await, Polled::Failed);
        assert_eq!(watcher.poll().await, Polled::Failed);
        assert!(Arc::ptr_eq(&served.get_inner(), &initial));

        std::fs::remove_file(&key).unwrap();
        assert_eq!(watcher.poll().await, Polled::Failed);
        assert!(Arc::ptr_eq(&served.get_inner(), &initial));

        std::fs::write(&key, &second.key).unwrap();
        assert_eq!(watcher.poll().await, Polled::Reloaded);
        assert!(!Arc::ptr_eq(&served.get_inner(), &initial));
        assert_eq!(watcher.poll().await, Polled::Unchanged);
    }
}
