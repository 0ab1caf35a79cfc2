//! What both reconciles share: the index, the queues, the template resolvers and the seams.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use certgate_runtime::ControllerMetrics;
use certgate_runtime::workqueue::WorkQueue;
use certgate_templates::access::{Access, ObjectIdentifier, ReadSet, ResourceInfo};
use certgate_templates::pipeline::HubResolver;
use certgate_templates::replica::ResolverSetup;

use crate::accounts::{self, Account, AccountError, AccountSource};
use crate::encryption::LiveEncryption;
use crate::index::Index;
use crate::own_writes::{Deleted, Written};
use crate::reads::{CachedReader, ReplicaKey, WatchCache};
use crate::root::FanOut;
use crate::root_json::RootJson;

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
    pub written: Arc<Written>,
    pub root_json: RootJson,
}

/// Which identity reads a replica's templates, as [`Resolvers::setup`] decided it.
pub enum Identity {
    /// The propagator's own, restricted as upstream restricts default mode.
    Default,
    /// A ServiceAccount's reader.
    Account(Arc<Account>),
    /// The ServiceAccount does not exist: it is watched, so creating it resolves again.
    MissingAccount(ObjectIdentifier),
    /// No reader could be set up; nothing was read.
    Failed,
}

/// The readers of every identity: default mode's shared cache and one per ServiceAccount in
/// use, each kept while a replica uses it (spec §5.2).
pub struct Resolvers {
    default: Arc<WatchCache>,
    accounts: Mutex<HashMap<(String, String), Arc<Account>>>,
    /// The ServiceAccount each replica used last (`None`: default mode).
    users: Mutex<HashMap<ReplicaKey, Option<(String, String)>>>,
    source: Option<AccountSource>,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

fn service_account_id(namespace: &str, name: &str) -> ObjectIdentifier {
    ObjectIdentifier {
        version: "v1".to_owned(),
        kind: "ServiceAccount".to_owned(),
        namespace: namespace.to_owned(),
        name: name.to_owned(),
        ..ObjectIdentifier::default()
    }
}

impl Resolvers {
    /// `source` is `None` when the client configuration is unknown: ServiceAccount mode then
    /// fails with a setup error instead of reading as the wrong identity.
    pub fn new(default: Arc<WatchCache>, source: Option<AccountSource>) -> Self {
        Resolvers {
            default,
            accounts: Mutex::new(HashMap::new()),
            users: Mutex::new(HashMap::new()),
            source,
        }
    }

    /// The reader and access rules for `key`, whose root in `root_namespace` names
    /// `service_account` (empty for default mode).
    pub async fn setup(
        &self,
        key: &ReplicaKey,
        root_namespace: &str,
        service_account: &str,
        cluster: &str,
    ) -> (ResolverSetup, Identity) {
        let wanted = (!service_account.is_empty())
            .then(|| (root_namespace.to_owned(), service_account.to_owned()));
        let previous = lock(&self.users).insert(key.clone(), wanted.clone());
        if let Some(Some(old)) = previous.filter(|p| *p != wanted) {
            self.leave(key, &old);
        }
        let Some((namespace, name)) = wanted else {
            return (
                ResolverSetup::Ready {
                    reader: Arc::new(CachedReader(self.default.clone())),
                    access: Access::for_policy(root_namespace, cluster),
                },
                Identity::Default,
            );
        };
        let qualified = format!("{namespace}/{name}");
        match self.account(&namespace, &name).await {
            Ok(account) => {
                account.add_user(key);
                (
                    ResolverSetup::Ready {
                        reader: Arc::new(CachedReader(account.cache.clone())),
                        access: Access::ServiceAccount {
                            namespace,
                            name,
                            // The API server authorizes every read made with the token.
                            authorizer: Arc::new(certgate_rbac::AllowAll),
                        },
                    },
                    Identity::Account(account),
                )
            }
            Err(AccountError::Missing) => (
                ResolverSetup::ServiceAccountMissing(qualified),
                Identity::MissingAccount(service_account_id(&namespace, &name)),
            ),
            Err(AccountError::Failed(why)) => {
                (ResolverSetup::ServiceAccountFailed(qualified, why), Identity::Failed)
            }
        }
    }

    /// The account of `namespace/name`, opened when missing or broken. Not cached when the
    /// TokenRequest fails (upstream retries on every reconcile).
    async fn account(&self, namespace: &str, name: &str) -> Result<Arc<Account>, AccountError> {
        let id = (namespace.to_owned(), name.to_owned());
        if let Some(account) = lock(&self.accounts).get(&id).filter(|a| !a.is_broken()) {
            return Ok(account.clone());
        }
        let Some(source) = &self.source else {
            return Err(AccountError::Failed(
                "the propagator's client configuration is unknown, so no client can be built for the service account".to_owned(),
            ));
        };
        let opened = accounts::open(source, namespace, name).await?;
        let mut accounts = lock(&self.accounts);
        // Another reconcile may have opened it meanwhile: keep that one.
        if let Some(existing) = accounts.get(&id).filter(|a| !a.is_broken()) {
            opened.stop();
            return Ok(existing.clone());
        }
        accounts.insert(id, opened.clone());
        Ok(opened)
    }

    /// `key` no longer reads as `account`; the account goes with its last user.
    fn leave(&self, key: &ReplicaKey, account: &(String, String)) {
        let mut accounts = lock(&self.accounts);
        let Some(open) = accounts.get(account) else { return };
        if open.remove_user(key) {
            tracing::info!(service_account = %format!("{}/{}", account.0, account.1),
                "Cleaning up the no longer used template resolver");
            open.stop();
            accounts.remove(account);
        }
    }

    /// Ends a resolution of `key`: its reads through `identity` are now exactly `reads`.
    pub fn finish(&self, key: &ReplicaKey, identity: &Identity, reads: &ReadSet) {
        match identity {
            Identity::Default => self.default.set_reads(key, reads),
            Identity::Account(account) => {
                account.cache.set_reads(key, reads);
                self.default.release(key);
            }
            Identity::MissingAccount(id) => {
                let resource =
                    ResourceInfo::new("", "v1", "ServiceAccount", "serviceaccounts", true);
                self.default.watch(key, id.clone(), &resource);
            }
            Identity::Failed => self.default.release(key),
        }
    }

    /// Forgets `key` (its replica is gone).
    pub fn release(&self, key: &ReplicaKey) {
        let previous = lock(&self.users).remove(key);
        if let Some(Some(account)) = previous {
            self.leave(key, &account);
        }
        self.default.release(key);
    }

    /// Watches held across every identity (`hub_templates_active_watches`).
    pub fn watches(&self) -> usize {
        let accounts: usize = lock(&self.accounts).values().map(|a| a.cache.watches()).sum();
        self.default.watches() + accounts
    }

    pub fn stop(&self) {
        self.default.stop();
        for account in lock(&self.accounts).drain().map(|(_, a)| a) {
            account.stop();
        }
    }
}
