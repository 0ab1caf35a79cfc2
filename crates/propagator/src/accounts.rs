//! Hub templates under a ServiceAccount (spec §5): one reader per ServiceAccount, shared by
//! every replica whose root names it and kept while one does, reading with a token from the
//! TokenRequest API so that the API server authorizes every read as that ServiceAccount.
//!
//! The token lives in a file (`token-<ns>.<sa>-*`, mode 0600) the reader's client re-reads,
//! as upstream points client-go at a bearer-token file: a renewal rewrites the file and every
//! later request, watches' re-lists included, carries the new token.

use std::collections::BTreeSet;
use std::io::Write as _;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::Duration;

use certgate_runtime::workqueue::WorkQueue;
use futures_util::StreamExt as _;
use futures_util::future::BoxFuture;
use k8s_openapi::api::authentication::v1::{TokenRequest, TokenRequestSpec};
use k8s_openapi::api::core::v1::ServiceAccount;
use kube::api::{Api, PostParams};
use kube::runtime::{WatchStreamExt as _, watcher};
use ring::rand::{SecureRandom as _, SystemRandom};
use tokio::runtime::Handle;
use tokio::task::AbortHandle;

use crate::reads::{ReplicaKey, WatchCache};

/// Why no reader could be set up for a ServiceAccount.
#[derive(Debug)]
pub enum AccountError {
    /// The TokenRequest answered NotFound.
    Missing,
    /// Anything else; the text goes into upstream's "failed to set up the template
    /// resolver" annotation.
    Failed(String),
}

/// A ServiceAccount's reader.
pub struct Account {
    pub namespace: String,
    pub name: String,
    pub cache: Arc<WatchCache>,
    users: Mutex<BTreeSet<ReplicaKey>>,
    broken: AtomicBool,
    /// The token renewal and the watch of the ServiceAccount itself.
    tasks: Mutex<Vec<AbortHandle>>,
    token_file: tempfile::TempPath,
}

impl Account {
    pub fn is_broken(&self) -> bool {
        self.broken.load(Ordering::Acquire)
    }

    /// Adds `key` to the users; whether it was new.
    pub fn add_user(&self, key: &ReplicaKey) -> bool {
        self.users.lock().unwrap_or_else(PoisonError::into_inner).insert(key.clone())
    }

    /// Removes `key` and its reads; whether no user is left.
    pub fn remove_user(&self, key: &ReplicaKey) -> bool {
        self.cache.release(key);
        let mut users = self.users.lock().unwrap_or_else(PoisonError::into_inner);
        users.remove(key);
        users.is_empty()
    }

    pub fn users(&self) -> Vec<ReplicaKey> {
        self.users.lock().unwrap_or_else(PoisonError::into_inner).iter().cloned().collect()
    }

    /// Stops the watches and the renewals; the token file goes when the account is dropped.
    pub fn stop(&self) {
        self.broken.store(true, Ordering::Release);
        for task in self.tasks.lock().unwrap_or_else(PoisonError::into_inner).drain(..) {
            task.abort();
        }
        self.cache.stop();
    }

    pub fn token_path(&self) -> &Path {
        &self.token_file
    }
}

/// Where tokens come from: the TokenRequest API in production, a fake in tests.
pub trait TokenSource: Send + Sync {
    /// A token for `namespace/name` valid for `ttl`, and how long until it expires.
    fn request(
        &self,
        namespace: &str,
        name: &str,
        ttl: Duration,
    ) -> BoxFuture<'static, Result<(String, Duration), AccountError>>;
}

/// Tokens from `POST serviceaccounts/<name>/token`, requested with the propagator's client.
pub struct TokenRequests(pub kube::Client);

impl TokenSource for TokenRequests {
    fn request(
        &self,
        namespace: &str,
        name: &str,
        ttl: Duration,
    ) -> BoxFuture<'static, Result<(String, Duration), AccountError>> {
        let (client, namespace, name) = (self.0.clone(), namespace.to_owned(), name.to_owned());
        Box::pin(async move { request_token(&client, &namespace, &name, ttl).await })
    }
}

/// What opening an account needs.
pub struct AccountSource {
    /// The propagator's own client: it watches the ServiceAccounts in use.
    pub client: kube::Client,
    pub tokens: Arc<dyn TokenSource>,
    /// Where the server is and how to trust it; only these fields are copied into a
    /// ServiceAccount's client (upstream copies host, API path, CA, server name, insecure).
    pub base: kube::Config,
    pub handle: Handle,
    pub requeue: WorkQueue<ReplicaKey>,
    pub ttl: Duration,
    /// Called when a renewal fails: the account is torn down and its users re-queued.
    pub on_failure: Arc<dyn Fn(&Account) + Send + Sync>,
}

/// When to renew a token that expires in `remaining`, of a lifetime `ttl`: `lead` before
/// expiry minus up to another `lead` of jitter, `lead` being 5 minutes or a quarter of the
/// lifetime if shorter (upstream: 5 minutes plus up to 5 minutes, rounded to the second).
pub fn renewal_delay(ttl: Duration, remaining: Duration, random: f64) -> Duration {
    let lead = Duration::from_secs(300).min(ttl / 4);
    let jitter = lead.mul_f64(random.clamp(0.0, 1.0));
    let jitter = if lead >= Duration::from_secs(60) {
        Duration::from_secs(jitter.as_secs_f64().round() as u64)
    } else {
        jitter
    };
    remaining.saturating_sub(lead).saturating_sub(jitter)
}

fn random_unit(random: &SystemRandom) -> f64 {
    let mut bytes = [0u8; 8];
    if random.fill(&mut bytes).is_err() {
        return 0.5;
    }
    (u64::from_le_bytes(bytes) >> 11) as f64 / (1u64 << 53) as f64
}

/// A token for `namespace/name` and how long until it expires.
async fn request_token(
    client: &kube::Client,
    namespace: &str,
    name: &str,
    ttl: Duration,
) -> Result<(String, Duration), AccountError> {
    let api: Api<ServiceAccount> = Api::namespaced(client.clone(), namespace);
    let request = TokenRequest {
        spec: TokenRequestSpec {
            expiration_seconds: Some(i64::try_from(ttl.as_secs()).unwrap_or(i64::MAX)),
            ..TokenRequestSpec::default()
        },
        ..TokenRequest::default()
    };
    match api.create_token_request(name, &PostParams::default(), &request).await {
        Ok(answer) => {
            let Some(status) = answer.status else {
                return Err(AccountError::Failed(
                    "the TokenRequest answer has no status".to_owned(),
                ));
            };
            let remaining: Duration = status
                .expiration_timestamp
                .0
                .duration_since(k8s_openapi::jiff::Timestamp::now())
                .try_into()
                .unwrap_or(Duration::ZERO);
            Ok((status.token, if remaining.is_zero() { ttl } else { remaining }))
        }
        Err(kube::Error::Api(status)) if status.code == 404 => Err(AccountError::Missing),
        Err(kube::Error::Api(status)) => Err(AccountError::Failed(status.message.clone())),
        Err(other) => Err(AccountError::Failed(other.to_string())),
    }
}

/// Writes `token` to `path` (mode 0600) by replacing it, so a reader never sees half a token.
fn write_token(path: &Path, token: &str) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    let mut file = tempfile::Builder::new().prefix(".token-").tempfile_in(dir)?;
    file.write_all(token.as_bytes())?;
    file.as_file().sync_all()?;
    file.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Opens the reader of `namespace/name`: a token, its file, a client reading it, the watch
/// cache and the renewal task.
pub async fn open(
    source: &AccountSource,
    namespace: &str,
    name: &str,
) -> Result<Arc<Account>, AccountError> {
    let (token, remaining) = source.tokens.request(namespace, name, source.ttl).await?;
    let instantiate = |why: String| {
        AccountError::Failed(format!(
            "failed to instantiate the template resolver for the service account {namespace}/{name}: {why}"
        ))
    };
    let file = tempfile::Builder::new()
        .prefix(&format!("token-{namespace}.{name}-"))
        .tempfile()
        .map_err(|e| instantiate(e.to_string()))?;
    let token_file = file.into_temp_path();
    write_token(&token_file, &token).map_err(|e| instantiate(e.to_string()))?;

    let mut config = kube::Config::new(source.base.cluster_url.clone());
    config.root_cert = source.base.root_cert.clone();
    config.tls_server_name = source.base.tls_server_name.clone();
    config.accept_invalid_certs = source.base.accept_invalid_certs;
    config.auth_info.token_file = Some(token_file.to_string_lossy().into_owned());
    let client = kube::Client::try_from(config).map_err(|e| instantiate(e.to_string()))?;
    let cache = WatchCache::new(client, source.handle.clone(), source.requeue.clone());
    let account = Arc::new(Account {
        namespace: namespace.to_owned(),
        name: name.to_owned(),
        cache,
        users: Mutex::new(BTreeSet::new()),
        broken: AtomicBool::new(false),
        tasks: Mutex::new(Vec::new()),
        token_file,
    });
    let renewal = source.handle.spawn(renew(
        Arc::downgrade(&account),
        source.tokens.clone(),
        source.ttl,
        remaining,
        source.on_failure.clone(),
    ));
    let deletion = source.handle.spawn(watch_deletion(
        Arc::downgrade(&account),
        source.client.clone(),
        source.on_failure.clone(),
    ));
    account
        .tasks
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .extend([renewal.abort_handle(), deletion.abort_handle()]);
    Ok(account)
}

async fn renew(
    account: Weak<Account>,
    tokens: Arc<dyn TokenSource>,
    ttl: Duration,
    mut remaining: Duration,
    on_failure: Arc<dyn Fn(&Account) + Send + Sync>,
) {
    let random = SystemRandom::new();
    loop {
        tokio::time::sleep(renewal_delay(ttl, remaining, random_unit(&random))).await;
        let Some(current) = account.upgrade() else { return };
        let (namespace, name) = (current.namespace.clone(), current.name.clone());
        match tokens.request(&namespace, &name, ttl).await {
            Ok((token, left)) => {
                if let Err(error) = write_token(current.token_path(), &token) {
                    tracing::error!(service_account = %format!("{namespace}/{name}"), error = %error,
                        "The refreshed token couldn't be written to. Stopping the template resolver.");
                    on_failure(&current);
                    return;
                }
                tracing::debug!(service_account = %format!("{namespace}/{name}"), "renewed the service account token");
                remaining = left;
            }
            Err(error) => {
                let error = match error {
                    AccountError::Missing => "the service account does not exist".to_owned(),
                    AccountError::Failed(text) => text,
                };
                tracing::error!(service_account = %format!("{namespace}/{name}"), error = %error,
                    "Failed to renew the service account token. Stopping the template resolver.");
                on_failure(&current);
                return;
            }
        }
    }
}

/// Tears the account down when its ServiceAccount is deleted (or replaced by one with
/// another uid): its tokens are bound to the deleted one and stop working, and the users'
/// next reconcile then reports the missing ServiceAccount and watches for its return.
async fn watch_deletion(
    account: Weak<Account>,
    client: kube::Client,
    on_failure: Arc<dyn Fn(&Account) + Send + Sync>,
) {
    let Some((namespace, name)) = account.upgrade().map(|a| (a.namespace.clone(), a.name.clone()))
    else {
        return;
    };
    let api: Api<ServiceAccount> = Api::namespaced(client, &namespace);
    let config = watcher::Config::default().fields(&format!("metadata.name={name}"));
    let mut stream = watcher(api, config).default_backoff().boxed();
    let (mut uid, mut listed) = (None::<String>, false);
    while let Some(event) = stream.next().await {
        let gone = match event {
            Ok(watcher::Event::Delete(_)) => true,
            Ok(watcher::Event::Init) => {
                listed = false;
                false
            }
            Ok(watcher::Event::InitApply(sa) | watcher::Event::Apply(sa)) => {
                listed = true;
                let replaced = uid.is_some() && sa.metadata.uid != uid;
                uid = sa.metadata.uid;
                replaced
            }
            Ok(watcher::Event::InitDone) => uid.is_some() && !listed,
            Err(_) => false,
        };
        if gone {
            if let Some(account) = account.upgrade() {
                tracing::info!(service_account = %format!("{namespace}/{name}"),
                    "The service account was deleted. Stopping the template resolver.");
                on_failure(&account);
            }
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_hour_tokens_are_renewed_between_1h50_and_1h55_after_issuance() {
        let ttl = Duration::from_secs(7200);
        assert_eq!(renewal_delay(ttl, ttl, 0.0), Duration::from_secs(6900));
        assert_eq!(renewal_delay(ttl, ttl, 0.999_999), Duration::from_secs(6600));
        assert_eq!(renewal_delay(ttl, ttl, 0.5), Duration::from_secs(6750));
    }

    #[test]
    fn short_tokens_are_renewed_a_quarter_to_a_half_of_their_life_early() {
        let ttl = Duration::from_secs(20);
        assert_eq!(renewal_delay(ttl, ttl, 0.0), Duration::from_secs(15));
        assert_eq!(renewal_delay(ttl, ttl, 1.0), Duration::from_secs(10));
        // A token already past its renewal time is renewed at once.
        assert_eq!(renewal_delay(ttl, Duration::from_secs(3), 0.0), Duration::ZERO);
    }

    #[test]
    fn token_files_are_replaced_whole() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("token");
        write_token(&path, "first").expect("write");
        write_token(&path, "second").expect("rewrite");
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "second");
        let leftovers = std::fs::read_dir(dir.path()).expect("list").count();
        assert_eq!(leftovers, 1);
    }

    struct FakeTokens {
        answers: Mutex<std::collections::VecDeque<Result<(String, Duration), AccountError>>>,
        calls: std::sync::atomic::AtomicUsize,
    }

    impl TokenSource for FakeTokens {
        fn request(
            &self,
            _: &str,
            _: &str,
            _: Duration,
        ) -> BoxFuture<'static, Result<(String, Duration), AccountError>> {
            self.calls.fetch_add(1, Ordering::SeqCst);
            let answer = self
                .answers
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .pop_front()
                .unwrap_or(Err(AccountError::Failed("no more tokens".to_owned())));
            Box::pin(async move { answer })
        }
    }

    #[tokio::test(start_paused = true)]
    async fn renewals_rewrite_the_token_file_and_a_failed_one_stops_the_reader() {
        let config = kube::Config::new("http://127.0.0.1:9".parse().expect("url"));
        let client = kube::Client::try_from(config).expect("client");
        let queue = WorkQueue::new(certgate_runtime::workqueue::Backoff::default());
        let token_file = tempfile::NamedTempFile::new().expect("file").into_temp_path();
        write_token(&token_file, "first").expect("write");
        let account = Arc::new(Account {
            namespace: "policies".to_owned(),
            name: "reader".to_owned(),
            cache: WatchCache::new(client, Handle::current(), queue),
            users: Mutex::new(BTreeSet::from([("cluster1".to_owned(), "policies.p".to_owned())])),
            broken: AtomicBool::new(false),
            tasks: Mutex::new(Vec::new()),
            token_file,
        });
        let ttl = Duration::from_secs(600);
        let tokens = Arc::new(FakeTokens {
            answers: Mutex::new(
                [Ok(("second".to_owned(), ttl)), Err(AccountError::Failed("denied".to_owned()))]
                    .into(),
            ),
            calls: Default::default(),
        });
        let failed = Arc::new(AtomicBool::new(false));
        let on_failure: Arc<dyn Fn(&Account) + Send + Sync> = {
            let failed = failed.clone();
            Arc::new(move |account: &Account| {
                failed.store(true, Ordering::SeqCst);
                account.stop();
            })
        };
        let renewal =
            tokio::spawn(renew(Arc::downgrade(&account), tokens.clone(), ttl, ttl, on_failure));
        // A 600 s token is renewed 150 to 300 s before it expires.
        tokio::time::sleep(Duration::from_secs(299)).await;
        assert_eq!(tokens.calls.load(Ordering::SeqCst), 0);
        tokio::time::sleep(Duration::from_secs(152)).await;
        assert_eq!(tokens.calls.load(Ordering::SeqCst), 1);
        assert_eq!(std::fs::read_to_string(account.token_path()).expect("read"), "second");
        assert!(!failed.load(Ordering::SeqCst));
        // The next renewal fails: the reader is stopped and its users are re-queued by the
        // failure handler.
        tokio::time::sleep(Duration::from_secs(451)).await;
        assert_eq!(tokens.calls.load(Ordering::SeqCst), 2);
        assert!(failed.load(Ordering::SeqCst));
        assert!(account.is_broken());
        assert!(renewal.await.is_ok());
        assert_eq!(account.users(), [("cluster1".to_owned(), "policies.p".to_owned())]);
    }
}
