//! What both reconciles share: the index, the queues, the template resolvers and the seams.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use certgate_runtime::ControllerMetrics;
use certgate_runtime::workqueue::WorkQueue;
use certgate_templates::access::{Access, ReadSet};
use certgate_templates::pipeline::HubResolver;
use certgate_templates::replica::ResolverSetup;

use crate::encryption::LiveEncryption;
use crate::index::Index;
use crate::reads::{CachedReader, ReplicaKey, WatchCache};
use crate::replica::Deleted;
use crate::root::FanOut;

#[derive(Debug, thiserror::Error)]
pub enum ReconcileError {
    #[error("{0}")]
    Write(#[source] kube::Error),
    /// A failure upstream retries with back-off (template reads, key Secret, RBAC).
    #[error("{0}")]
    Retry(String),
    #[error("internal error: {0}")]
    Internal(String),
}

pub struct Context<E> {
    pub index: Index,
    pub effects: E,
    pub replicas: WorkQueue<ReplicaKey>,
    pub resolver: HubResolver,
    pub resolvers: Resolvers,
    pub encryption: LiveEncryption,
    pub metrics: Arc<ControllerMetrics>,
    pub fan_out: FanOut,
    pub deleted: Deleted,
}

/// Which identity reads each replica's templates. Default mode reads with the propagator's
/// own client through one shared cache.
pub struct Resolvers {
    default: Arc<WatchCache>,
    /// The identity each replica used last: `None` for default mode.
    users: Mutex<HashMap<ReplicaKey, Option<(String, String)>>>,
}

impl Resolvers {
    pub fn new(default: Arc<WatchCache>) -> Self {
        Resolvers { default, users: Mutex::new(HashMap::new()) }
    }

    /// The reader and access rules for `key`, whose root in `root_namespace` names
    /// `service_account` (empty for default mode).
    pub async fn setup(
        &self,
        key: &ReplicaKey,
        root_namespace: &str,
        service_account: &str,
        cluster: &str,
    ) -> ResolverSetup {
        let identity = (!service_account.is_empty())
            .then(|| (root_namespace.to_owned(), service_account.to_owned()));
        let previous = self
            .users
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(key.clone(), identity.clone());
        if previous.is_some_and(|p| p != identity) {
            self.default.release(key);
        }
        match identity {
            None => ResolverSetup::Ready {
                reader: Arc::new(CachedReader(self.default.clone())),
                access: Access::for_policy(root_namespace, cluster),
            },
            Some((namespace, name)) => ResolverSetup::ServiceAccountFailed(
                format!("{namespace}/{name}"),
                "this certgate version resolves hub templates in default mode only; \
                 hubTemplateOptions.serviceAccountName is not supported yet"
                    .to_owned(),
            ),
        }
    }

    /// Ends a resolution of `key` with `reads`.
    pub fn finish(&self, key: &ReplicaKey, reads: &ReadSet) {
        self.default.set_reads(key, reads);
    }

    /// Forgets `key` (its replica is gone).
    pub fn release(&self, key: &ReplicaKey) {
        self.users.lock().unwrap_or_else(PoisonError::into_inner).remove(key);
        self.default.release(key);
    }

    /// Watches held across every identity (`hub_templates_active_watches`).
    pub fn watches(&self) -> usize {
        self.default.watches()
    }

    pub fn stop(&self) {
        self.default.stop();
    }
}
