//! One watch: a list (by name with a field selector, or by label selector) followed by a
//! watch from the list's resourceVersion, re-listed by kube's watcher when it loses its
//! place. Holds the objects it sees as JSON.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::Duration;

use certgate_templates::access::{ObjectIdentifier, ReadError, ResourceInfo, RetryReason};
use futures_util::StreamExt as _;
use kube::api::{Api, ApiResource, DynamicObject, GroupVersionKind};
use kube::runtime::watcher;
use serde_json::Value;
use tokio::runtime::Handle;
use tokio::sync::watch as signal;
use tokio::task::AbortHandle;

use super::{WatchCache, read_error, status_error};

/// Errors after the first list are retried this often (upstream: every 5 s).
const RETRY: Duration = Duration::from_secs(5);

/// What a watch selects.
pub enum Query {
    Name(String),
    Selector(String),
}

type Objects = BTreeMap<(String, String), Arc<Value>>;

#[derive(Default)]
struct Held {
    objects: Objects,
    /// Why the first list failed.
    error: Option<ReadError>,
}

pub struct Entry {
    held: Mutex<Held>,
    synced: signal::Sender<bool>,
    task: Mutex<Option<AbortHandle>>,
}

impl Entry {
    /// Starts the watch of `id` on `handle`'s runtime.
    pub fn start(
        cache: Weak<WatchCache>,
        handle: &Handle,
        client: kube::Client,
        id: ObjectIdentifier,
        resource: &ResourceInfo,
        query: Query,
    ) -> Arc<Entry> {
        let entry = Arc::new(Entry {
            held: Mutex::new(Held::default()),
            synced: signal::channel(false).0,
            task: Mutex::new(None),
        });
        let api_resource = ApiResource::from_gvk_with_plural(
            &GroupVersionKind::gvk(&resource.group, &resource.version, &resource.kind),
            &resource.plural,
        );
        let api: Api<DynamicObject> = if resource.namespaced && !id.namespace.is_empty() {
            Api::namespaced_with(client, &id.namespace, &api_resource)
        } else {
            Api::all_with(client, &api_resource)
        };
        let config = match &query {
            Query::Name(name) => {
                watcher::Config::default().fields(&format!("metadata.name={name}"))
            }
            Query::Selector(selector) if selector.is_empty() => watcher::Config::default(),
            Query::Selector(selector) => watcher::Config::default().labels(selector),
        };
        let api_version = id.group_version();
        let task = handle.spawn(run(cache, entry.clone(), id, api, config, api_version));
        *entry.task_slot() = Some(task.abort_handle());
        entry
    }

    fn held(&self) -> MutexGuard<'_, Held> {
        self.held.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn task_slot(&self) -> MutexGuard<'_, Option<AbortHandle>> {
        self.task.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub fn stop(&self) {
        if let Some(task) = self.task_slot().take() {
            task.abort();
        }
    }

    /// Blocks the calling (non-runtime) thread until the first list is in, at most `timeout`.
    pub fn wait_synced(&self, handle: &Handle, timeout: Duration) -> Result<(), ReadError> {
        if !*self.synced.borrow() {
            let mut receiver = self.synced.subscribe();
            let waited =
                handle.block_on(tokio::time::timeout(timeout, receiver.wait_for(|synced| *synced)));
            if waited.is_err() {
                return Err(ReadError::Transient {
                    reason: RetryReason::Timeout,
                    message: format!(
                        "the first list of the watched object did not complete within {}s",
                        timeout.as_secs()
                    ),
                });
            }
        }
        match &self.held().error {
            Some(error) => Err(error.clone()),
            None => Ok(()),
        }
    }

    pub fn object(&self, namespace: &str, name: &str) -> Option<Arc<Value>> {
        self.held().objects.get(&(namespace.to_owned(), name.to_owned())).cloned()
    }

    pub fn objects(&self) -> Vec<Arc<Value>> {
        self.held().objects.values().cloned().collect()
    }
}

fn key_and_json(
    object: &DynamicObject,
    api_version: &str,
    kind: &str,
) -> ((String, String), Arc<Value>) {
    let key = (
        object.metadata.namespace.clone().unwrap_or_default(),
        object.metadata.name.clone().unwrap_or_default(),
    );
    let mut value = serde_json::to_value(object).unwrap_or(Value::Null);
    // List items of built-in kinds come without apiVersion and kind; client-go's
    // unstructured lists fill them in, and templates may print them.
    if let Some(map) = value.as_object_mut() {
        map.entry("apiVersion").or_insert_with(|| Value::String(api_version.to_owned()));
        map.entry("kind").or_insert_with(|| Value::String(kind.to_owned()));
    }
    (key, Arc::new(value))
}

fn watch_error(error: &watcher::Error) -> ReadError {
    match error {
        watcher::Error::InitialListFailed(e)
        | watcher::Error::WatchStartFailed(e)
        | watcher::Error::WatchFailed(e) => read_error(e),
        watcher::Error::WatchError(status) => status_error(status.code, &status.message),
        watcher::Error::NoResourceVersion => {
            ReadError::Other("watch not supported on this resource".to_owned())
        }
    }
}

async fn run(
    cache: Weak<WatchCache>,
    entry: Arc<Entry>,
    id: ObjectIdentifier,
    api: Api<DynamicObject>,
    config: watcher::Config,
    api_version: String,
) {
    let mut stream = watcher(api, config).boxed();
    let mut buffer = Objects::new();
    let mut synced = false;
    let changed = |id: &ObjectIdentifier| {
        if let Some(cache) = cache.upgrade() {
            cache.changed(id);
        }
    };
    while let Some(event) = stream.next().await {
        match event {
            Ok(watcher::Event::Init) => buffer.clear(),
            Ok(watcher::Event::InitApply(object)) => {
                let (key, value) = key_and_json(&object, &api_version, &id.kind);
                buffer.insert(key, value);
            }
            Ok(watcher::Event::InitDone) => {
                let listed = std::mem::take(&mut buffer);
                let differs = {
                    let mut held = entry.held();
                    let differs = held.objects != listed;
                    held.objects = listed;
                    differs
                };
                if !synced {
                    synced = true;
                    entry.synced.send_replace(true);
                } else if differs {
                    changed(&id);
                }
            }
            Ok(watcher::Event::Apply(object)) => {
                let (key, value) = key_and_json(&object, &api_version, &id.kind);
                let previous = entry.held().objects.insert(key, value.clone());
                if previous.as_deref() != Some(&*value) {
                    changed(&id);
                }
            }
            Ok(watcher::Event::Delete(object)) => {
                let (key, _) = key_and_json(&object, &api_version, &id.kind);
                if entry.held().objects.remove(&key).is_some() {
                    changed(&id);
                }
            }
            Err(error) => {
                let error = watch_error(&error);
                if !synced {
                    entry.held().error = Some(error);
                    entry.synced.send_replace(true);
                    return;
                }
                if error.is_access_denied() || matches!(error, ReadError::MissingApiResource) {
                    tracing::info!(watch = %id, error = %error, "hub template watch stopped");
                    if let Some(cache) = cache.upgrade() {
                        cache.failed(&id, &entry);
                    }
                    return;
                }
                tracing::debug!(watch = %id, error = %error, "hub template watch failed; retrying");
                tokio::time::sleep(RETRY).await;
            }
        }
    }
}
