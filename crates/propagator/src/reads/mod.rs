//! Hub template reads served from watches, one watch per distinct object or list query
//! however many replicas read it (kubernetes-dependency-watches' deduplication), with the
//! replicas that read each object indexed both ways so a change re-queues exactly them.
//!
//! Template execution is synchronous, so it runs on a blocking thread
//! ([`tokio::task::spawn_blocking`]); a first read of an object starts its watch on the
//! runtime and waits (on that blocking thread, never on the runtime) for the watch's first
//! list, so the first answer is as fresh as a direct read and every later one comes from the
//! cache (ADR 0011). Every read is made with the cache's client: the propagator's own
//! identity, or a ServiceAccount's token, so the API server authorizes it.

mod discovery;
mod watch;

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use certgate_runtime::workqueue::WorkQueue;
use certgate_templates::access::{
    LabelSelector, ObjectIdentifier, ObjectReader, ReadError, ReadSet, ResourceInfo, RetryReason,
};
use serde_json::Value;
use tokio::runtime::Handle;

pub use discovery::Discovery;
use watch::{Entry, Query};

/// A replicated policy: (cluster namespace, `<rootNamespace>.<rootName>`).
pub type ReplicaKey = (String, String);

/// How long a first read waits for its watch's initial list (upstream lists with a 10 s
/// timeout).
pub const FIRST_READ_TIMEOUT: Duration = Duration::from_secs(10);

thread_local! {
    /// The replica whose templates this thread is resolving: reads register it as a reader
    /// at once, so a change between the read and the end of the resolution is not missed.
    static CURRENT: RefCell<Option<ReplicaKey>> = const { RefCell::new(None) };
}

/// Runs `resolve` with `key` as the reader of every read it makes.
pub fn reading_as<T>(key: &ReplicaKey, resolve: impl FnOnce() -> T) -> T {
    CURRENT.with(|current| *current.borrow_mut() = Some(key.clone()));
    let result = resolve();
    CURRENT.with(|current| *current.borrow_mut() = None);
    result
}

#[derive(Default)]
struct State {
    entries: BTreeMap<ObjectIdentifier, Arc<Entry>>,
    readers: BTreeMap<ObjectIdentifier, BTreeSet<ReplicaKey>>,
    reads: HashMap<ReplicaKey, BTreeSet<ObjectIdentifier>>,
}

/// The watches of one identity and what they hold.
pub struct WatchCache {
    client: kube::Client,
    handle: Handle,
    discovery: Discovery,
    state: Mutex<State>,
    requeue: WorkQueue<ReplicaKey>,
}

impl WatchCache {
    /// A cache reading with `client`; changes re-queue readers on `requeue`. Watches run on
    /// `handle`'s runtime.
    pub fn new(client: kube::Client, handle: Handle, requeue: WorkQueue<ReplicaKey>) -> Arc<Self> {
        Arc::new(WatchCache {
            discovery: Discovery::new(client.clone(), handle.clone()),
            client,
            handle,
            state: Mutex::new(State::default()),
            requeue,
        })
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Open watches (one per distinct object or list query).
    pub fn watches(&self) -> usize {
        self.state().entries.len()
    }

    /// The replicas reading `id`.
    pub fn readers_of(&self, id: &ObjectIdentifier) -> Vec<ReplicaKey> {
        self.state().readers.get(id).map(|r| r.iter().cloned().collect()).unwrap_or_default()
    }

    /// Ends a resolution of `key`: its reads are now exactly `reads`; watches no replica
    /// reads any longer stop.
    pub fn set_reads(&self, key: &ReplicaKey, reads: &ReadSet) {
        let wanted: BTreeSet<ObjectIdentifier> = reads.iter().cloned().collect();
        let mut state = self.state();
        let previous = state.reads.remove(key).unwrap_or_default();
        for id in previous.difference(&wanted) {
            drop_reader(&mut state, id, key);
        }
        for id in &wanted {
            state.readers.entry(id.clone()).or_default().insert(key.clone());
        }
        if !wanted.is_empty() {
            state.reads.insert(key.clone(), wanted);
        }
    }

    /// Makes `id` the only object `key` reads here and makes sure it is watched, without
    /// waiting for its first list (a missing ServiceAccount, watched so that its creation
    /// re-queues the replica).
    pub fn watch(
        self: &Arc<Self>,
        key: &ReplicaKey,
        id: ObjectIdentifier,
        resource: &ResourceInfo,
    ) {
        let mut reads = ReadSet::new();
        reads.insert(id.clone());
        self.set_reads(key, &reads);
        let mut state = self.state();
        if let std::collections::btree_map::Entry::Vacant(slot) = state.entries.entry(id.clone()) {
            slot.insert(Entry::start(
                Arc::downgrade(self),
                &self.handle,
                self.client.clone(),
                id.clone(),
                resource,
                Query::Name(id.name),
            ));
        }
    }

    /// Forgets every read of `key` (its replica is gone or moved to another identity).
    pub fn release(&self, key: &ReplicaKey) {
        self.set_reads(key, &ReadSet::new());
    }

    /// Stops every watch.
    pub fn stop(&self) {
        let mut state = self.state();
        for entry in state.entries.values() {
            entry.stop();
        }
        *state = State::default();
    }

    fn register_current_reader(state: &mut State, id: &ObjectIdentifier) {
        CURRENT.with(|current| {
            if let Some(key) = current.borrow().as_ref() {
                state.readers.entry(id.clone()).or_default().insert(key.clone());
                state.reads.entry(key.clone()).or_default().insert(id.clone());
            }
        });
    }

    /// The entry for `id`, its watch started when new.
    fn entry(
        self: &Arc<Self>,
        id: ObjectIdentifier,
        resource: &ResourceInfo,
        query: Query,
    ) -> Arc<Entry> {
        let mut state = self.state();
        Self::register_current_reader(&mut state, &id);
        if let Some(entry) = state.entries.get(&id) {
            return entry.clone();
        }
        let entry = Entry::start(
            Arc::downgrade(self),
            &self.handle,
            self.client.clone(),
            id.clone(),
            resource,
            query,
        );
        state.entries.insert(id, entry.clone());
        entry
    }

    /// Waits for `entry`'s first list; on failure the entry is dropped so the next read
    /// tries again.
    fn synced(&self, id: &ObjectIdentifier, entry: &Arc<Entry>) -> Result<(), ReadError> {
        let result = entry.wait_synced(&self.handle, FIRST_READ_TIMEOUT);
        if result.is_err() {
            let mut state = self.state();
            if state.entries.get(id).is_some_and(|e| Arc::ptr_eq(e, entry)) {
                state.entries.remove(id);
                entry.stop();
            }
        }
        result
    }

    /// Called by a watch whose objects changed: re-queues its readers.
    fn changed(&self, id: &ObjectIdentifier) {
        for key in self.readers_of(id) {
            self.requeue.add(key);
        }
    }

    /// Called by a watch that cannot go on (access revoked, kind gone): the entry goes, and
    /// its readers are re-queued so their next read reports why.
    fn failed(&self, id: &ObjectIdentifier, entry: &Arc<Entry>) {
        {
            let mut state = self.state();
            if state.entries.get(id).is_some_and(|e| Arc::ptr_eq(e, entry)) {
                state.entries.remove(id);
            }
        }
        self.changed(id);
    }
}

fn drop_reader(state: &mut State, id: &ObjectIdentifier, key: &ReplicaKey) {
    let now_unread = match state.readers.get_mut(id) {
        Some(readers) => {
            readers.remove(key);
            readers.is_empty()
        }
        None => true,
    };
    if now_unread {
        state.readers.remove(id);
        if let Some(entry) = state.entries.remove(id) {
            entry.stop();
        }
    }
}

fn identifier(
    resource: &ResourceInfo,
    namespace: &str,
    name: &str,
    selector: &str,
) -> ObjectIdentifier {
    ObjectIdentifier {
        group: resource.group.clone(),
        version: resource.version.clone(),
        kind: resource.kind.clone(),
        namespace: namespace.to_owned(),
        name: name.to_owned(),
        selector: selector.to_owned(),
    }
}

/// The reader templates get: an `Arc<WatchCache>` seen through [`ObjectReader`].
pub struct CachedReader(pub Arc<WatchCache>);

impl ObjectReader for CachedReader {
    fn resource(&self, api_version: &str, kind: &str) -> Option<ResourceInfo> {
        self.0.discovery.resource(api_version, kind)
    }

    fn get(
        &self,
        resource: &ResourceInfo,
        namespace: &str,
        name: &str,
    ) -> Result<Option<Arc<Value>>, ReadError> {
        let id = identifier(resource, namespace, name, "");
        let entry = self.0.entry(id.clone(), resource, Query::Name(name.to_owned()));
        self.0.synced(&id, &entry)?;
        Ok(entry.object(namespace, name))
    }

    fn list(
        &self,
        resource: &ResourceInfo,
        namespace: &str,
        selector: &LabelSelector,
    ) -> Result<Vec<Arc<Value>>, ReadError> {
        let text = selector.to_string();
        let id = identifier(resource, namespace, "", &text);
        let entry = self.0.entry(id.clone(), resource, Query::Selector(text));
        self.0.synced(&id, &entry)?;
        Ok(entry.objects())
    }
}

/// A kube client failure as a template read error.
pub(crate) fn read_error(error: &kube::Error) -> ReadError {
    match error {
        kube::Error::Api(status) => status_error(status.code, &status.message),
        other => ReadError::Transient {
            reason: RetryReason::ServiceUnavailable,
            message: other.to_string(),
        },
    }
}

pub(crate) fn status_error(code: u16, message: &str) -> ReadError {
    let message = message.to_owned();
    match code {
        401 => ReadError::Unauthorized(message),
        403 => ReadError::Forbidden(message),
        404 => ReadError::MissingApiResource,
        429 => ReadError::Transient { reason: RetryReason::TooManyRequests, message },
        503 => ReadError::Transient { reason: RetryReason::ServiceUnavailable, message },
        504 => ReadError::Transient { reason: RetryReason::Timeout, message },
        code if code >= 500 => ReadError::Transient { reason: RetryReason::Internal, message },
        _ => ReadError::Other(message),
    }
}
