//! Watches: a stream of JSON lines (`{"type": "ADDED", "object": {...}}`), from a
//! resourceVersion or from the current state, with optional bookmarks and a 410 Gone
//! error event when the requested version is no longer kept.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::response::{IntoResponse, Response};
use certgate_store::{StoreError, Stored, Watch};
use serde_json::{Value, json};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};

use crate::api::{json_line, prefix, store_error, stream_response};
use crate::resources::ResourceType;
use crate::selection_edge::{View, decide};
use crate::selectors::{FieldSelector, LabelSelector};
use crate::server::Sandbox;
use crate::status::ApiError;
use crate::target::Target;

/// Watches end after this long unless `timeoutSeconds` says otherwise, as the API server
/// ends them after a randomized 30–60 minutes.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30 * 60);

/// Answers `GET ...?watch=true`.
pub async fn serve(
    sandbox: Arc<Sandbox>,
    target: Target,
    query: HashMap<String, String>,
) -> Response {
    let labels = match LabelSelector::parse(
        query.get("labelSelector").map(String::as_str).unwrap_or_default(),
    ) {
        Ok(l) => l,
        Err(err) => return err.into_response(),
    };
    let fields = match FieldSelector::parse(
        query.get("fieldSelector").map(String::as_str).unwrap_or_default(),
        &target.resource,
    ) {
        Ok(f) => f,
        Err(err) => return err.into_response(),
    };
    let bookmarks = query.get("allowWatchBookmarks").is_some_and(|b| b == "true");
    let initial_events = match initial_events(&query, bookmarks) {
        Ok(initial_events) => initial_events,
        Err(err) => return err.into_response(),
    };
    let timeout = query
        .get("timeoutSeconds")
        .and_then(|t| t.parse::<u64>().ok())
        .map(Duration::from_secs)
        .unwrap_or(DEFAULT_TIMEOUT);
    let prefix = prefix(&target.resource, target.namespace.as_deref());
    // Unset or "0", or `sendInitialEvents`: the current state as ADDED events, then
    // changes after it. The state is a snapshot of the stored objects themselves (shared,
    // not copied), serialized one event at a time as the client takes them: a watch costs
    // pointers, not a copy of what it lists.
    let (initial, after) = match query.get("resourceVersion").map(String::as_str) {
        _ if initial_events => {
            let snapshot = sandbox.store.snapshot(&prefix);
            (snapshot.items, snapshot.revision)
        }
        None | Some("" | "0") => {
            let snapshot = sandbox.store.snapshot(&prefix);
            (snapshot.items, snapshot.revision)
        }
        Some(rv) => match rv.parse::<u64>() {
            Ok(rv) => (Vec::new(), rv),
            Err(_) => {
                return ApiError::bad_request(format!(
                    "invalid resourceVersion {}",
                    certgate_gofmt::quote(rv)
                ))
                .into_response();
            }
        },
    };
    let watch = match sandbox.store.watch(&prefix, after) {
        Ok(watch) => watch,
        Err(err) => return expired_stream(store_error(&target, "", err)),
    };
    let (outbox, receiver) = outbox(BUFFER_BYTES);
    let pump = Pump {
        watch,
        initial,
        after,
        initial_events,
        bookmarks,
        bookmark_interval: sandbox.bookmark_interval,
        timeout,
        grace: SLOW_WATCHER_GRACE,
        resource: target.resource.clone(),
        view: crate::storage_version::view_of(&target.resource),
        selected: Box::new(move |object: &Value| {
            labels.matches(object.pointer("/metadata/labels")) && fields.matches(object)
        }),
    };
    tokio::spawn(pump.run(outbox));
    stream_response(Body::from_stream(body(receiver)))
}

/// The response body: the buffered lines, in order, until the pump ends. A watch closed as
/// slow ends without what it still buffered (the client, which is not reading, watches again
/// from the last resourceVersion it got).
fn body(inbox: Inbox) -> impl futures_util::Stream<Item = Result<Bytes, std::io::Error>> {
    futures_util::stream::unfold(inbox, |inbox| async move {
        if inbox.abandoned.load(Ordering::Acquire) {
            return None;
        }
        // Locked only while waiting on an empty buffer: a full one (a client not reading) is
        // never locked here, so a pump closing a slow watch can always empty it.
        let mut lines = inbox.lines.lock().await;
        // The permit goes with the line: the room it held is free again once it is taken.
        let (line, _permit) = lines.recv().await?;
        drop(lines);
        Some((Ok(line), inbox))
    })
}

/// How many bytes of events one watch buffers for its client. The API server buffers a
/// number of events per watcher; bytes bound the memory whatever the objects' size. An
/// event larger than this waits for an empty buffer.
const BUFFER_BYTES: usize = 1024 * 1024;
/// How long an event may wait for room in a full buffer before the watch is closed. As the
/// API server's watch cache closes a watcher whose buffer stays full ("unresponsive"): the
/// client sees its watch end and watches again from the last resourceVersion it got, and a
/// client that never reads stops holding anything.
const SLOW_WATCHER_GRACE: Duration = Duration::from_secs(5);

/// The sending side of a watch's bounded buffer.
struct Outbox {
    lines: mpsc::UnboundedSender<(Bytes, OwnedSemaphorePermit)>,
    /// Free bytes in the buffer.
    room: Arc<Semaphore>,
    capacity: usize,
    /// Set when the watch is closed as slow: the body ends without what is buffered.
    abandoned: Arc<AtomicBool>,
    /// The buffer's receiving side, to empty it when the watch is closed as slow. Weak: the
    /// body alone keeps it, so that its end (the client gone) closes the channel.
    inbox: Weak<tokio::sync::Mutex<Lines>>,
}

type Lines = mpsc::UnboundedReceiver<(Bytes, OwnedSemaphorePermit)>;

/// The receiving side, read by the response body.
struct Inbox {
    lines: Arc<tokio::sync::Mutex<Lines>>,
    abandoned: Arc<AtomicBool>,
}

fn outbox(capacity: usize) -> (Outbox, Inbox) {
    let (lines, receiver) = mpsc::unbounded_channel();
    let room = Arc::new(Semaphore::new(capacity.min(Semaphore::MAX_PERMITS)));
    let abandoned = Arc::new(AtomicBool::new(false));
    let receiver = Arc::new(tokio::sync::Mutex::new(receiver));
    (
        Outbox {
            lines,
            room,
            capacity,
            abandoned: Arc::clone(&abandoned),
            inbox: Arc::downgrade(&receiver),
        },
        Inbox { lines: receiver, abandoned },
    )
}

impl Outbox {
    /// Ends the body and frees what is buffered now, not when the client disconnects.
    fn abandon(&self) {
        self.abandoned.store(true, Ordering::Release);
        if let Some(inbox) = self.inbox.upgrade()
            && let Ok(mut lines) = inbox.try_lock()
        {
            lines.close();
            while lines.try_recv().is_ok() {}
        }
    }
}

/// Why a watch stopped sending.
#[derive(Debug, PartialEq)]
enum Stop {
    /// The client went away.
    Gone,
    /// The buffer stayed full for the grace period.
    Slow,
    /// The watch's timeout passed, or it ended with an error event.
    Ended,
}

impl Outbox {
    /// Queues `line` once the buffer has room for it, waiting at most `grace`.
    async fn send(&self, line: Bytes, grace: Duration) -> Result<(), Stop> {
        let wanted = u32::try_from(line.len().clamp(1, self.capacity)).unwrap_or(u32::MAX);
        let room = Arc::clone(&self.room);
        let permit = tokio::select! {
            () = self.lines.closed() => return Err(Stop::Gone),
            permit = tokio::time::timeout(grace, room.acquire_many_owned(wanted)) => match permit {
                Ok(Ok(permit)) => permit,
                Ok(Err(_)) => return Err(Stop::Gone),
                Err(_) => return Err(Stop::Slow),
            },
        };
        self.lines.send((line, permit)).map_err(|_| Stop::Gone)
    }
}

/// What one watch sends: its initial events, then changes, bookmarks, until it ends.
struct Pump {
    watch: Watch,
    /// The initial events' objects, shared with the store.
    initial: Vec<Arc<Stored>>,
    /// The revision the initial events are current at (or the client's resourceVersion).
    after: u64,
    initial_events: bool,
    bookmarks: bool,
    bookmark_interval: Duration,
    timeout: Duration,
    grace: Duration,
    resource: ResourceType,
    /// What the watcher's resource version shows of a stored object.
    view: View,
    selected: Box<dyn Fn(&Value) -> bool + Send>,
}

impl Pump {
    async fn run(self, outbox: Outbox) -> Stop {
        let resource = self.resource.qualified_plural();
        let grace = self.grace.as_millis();
        let stop = self.send_all(&outbox).await;
        if stop == Stop::Slow {
            outbox.abandon();
            tracing::info!(
                "closing a watch on {resource} whose client does not read: its buffer ({} bytes) stayed full for {grace} ms; a client that is still there watches again",
                outbox.capacity,
            );
        }
        stop
    }

    async fn send_all(self, outbox: &Outbox) -> Stop {
        let Pump { mut watch, initial, after, grace, selected, resource, view, .. } = self;
        // Dropping each shared object once it is sent lets the store free those deleted since.
        for stored in initial {
            let object = view(&stored.object);
            if selected(&object)
                && let Err(stop) = outbox.send(event("ADDED", &object), grace).await
            {
                return stop;
            }
        }
        if self.initial_events
            && let Err(stop) =
                outbox.send(bookmark(&resource, after, INITIAL_EVENTS_END), grace).await
        {
            return stop;
        }
        let deadline = tokio::time::sleep(self.timeout);
        tokio::pin!(deadline);
        let mut ticker = tokio::time::interval(self.bookmark_interval);
        ticker.tick().await;
        loop {
            let line = tokio::select! {
                () = &mut deadline => return Stop::Ended,
                // The revision the watch has looked at, changes of other kinds included, as
                // a real API server's bookmarks advance: one carrying only this kind's last
                // change would send a client of a kind nobody writes back to a revision the
                // history drops, and it would have to list again.
                _ = ticker.tick(), if self.bookmarks => bookmark(&resource, watch.revision().max(after), None),
                () = outbox.lines.closed() => return Stop::Gone,
                change = watch.next_event() => match change {
                    Ok(change) => {
                        // At the selection's edge an update is an ADDED or a DELETED.
                        match decide(&change, view, &*selected) {
                            Some((kind, object)) => event(kind, &object),
                            None => continue,
                        }
                    }
                    Err(err) => {
                        let status = match err {
                            StoreError::Expired { .. } => ApiError::new(410, "Expired", err.to_string()),
                            other => ApiError::new(500, "InternalError", other.to_string()),
                        };
                        let line = json_line(&json!({"type": "ERROR", "object": status.body()}));
                        return outbox.send(line, grace).await.err().unwrap_or(Stop::Ended);
                    }
                },
            };
            if let Err(stop) = outbox.send(line, grace).await {
                return stop;
            }
        }
    }
}

/// `{"type": KIND, "object": OBJECT}` and a newline, serialized straight from the stored
/// object (no intermediate copy of it).
fn event(kind: &str, object: &Value) -> Bytes {
    let mut line = Vec::with_capacity(64);
    line.extend_from_slice(b"{\"type\":\"");
    line.extend_from_slice(kind.as_bytes());
    line.extend_from_slice(b"\",\"object\":");
    if serde_json::to_writer(&mut line, object).is_err() {
        line.extend_from_slice(b"null");
    }
    line.extend_from_slice(b"}\n");
    Bytes::from(line)
}

/// The annotation on the bookmark that ends the initial events of a streaming list.
const INITIAL_EVENTS_END: Option<(&str, &str)> = Some(("k8s.io/initial-events-end", "true"));

fn bookmark(resource: &ResourceType, revision: u64, annotation: Option<(&str, &str)>) -> Bytes {
    let mut metadata = json!({"resourceVersion": revision.to_string()});
    if let Some((key, value)) = annotation {
        metadata["annotations"] = json!({ key: value });
    }
    json_line(&json!({
        "type": "BOOKMARK",
        "object": {"kind": resource.kind, "apiVersion": resource.group_version(), "metadata": metadata},
    }))
}

/// `sendInitialEvents=true` (streaming lists): the current state, then a bookmark marking
/// its end. The API server requires bookmarks and `resourceVersionMatch=NotOlderThan` with it.
fn initial_events(query: &HashMap<String, String>, bookmarks: bool) -> Result<bool, ApiError> {
    if query.get("sendInitialEvents").is_none_or(|s| s != "true") {
        return Ok(false);
    }
    let mut problems = Vec::new();
    if query.get("resourceVersionMatch").is_none_or(|m| m != "NotOlderThan") {
        problems.push(
            "resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
        );
    }
    if !bookmarks {
        problems.push(
            "allowWatchBookmarks: Forbidden: sendInitialEvents requires setting allowWatchBookmarks to true",
        );
    }
    match problems.as_slice() {
        [] => Ok(true),
        [one] => Err(ApiError::new(
            422,
            "Invalid",
            format!("ListOptions.meta.k8s.io \"\" is invalid: {one}"),
        )),
        many => Err(ApiError::new(
            422,
            "Invalid",
            format!("ListOptions.meta.k8s.io \"\" is invalid: [{}]", many.join(", ")),
        )),
    }
}

/// A watch that cannot start: the API server answers 200 with one ERROR event.
fn expired_stream(error: ApiError) -> Response {
    let line = json_line(&json!({"type": "ERROR", "object": error.body()}));
    stream_response(Body::from(line))
}

#[cfg(test)]
mod tests {
    use certgate_store::{Key, Prefix, Store, StoreOptions};

    use super::*;

    fn configmaps() -> ResourceType {
        ResourceType {
            group: String::new(),
            version: "v1".to_owned(),
            kind: "ConfigMap".to_owned(),
            list_kind: "ConfigMapList".to_owned(),
            plural: "configmaps".to_owned(),
            singular: "configmap".to_owned(),
            namespaced: true,
            short_names: Vec::new(),
            categories: Vec::new(),
            status_subresource: false,
            schema: None,
            printer_columns: Vec::new(),
            selectable_fields: Vec::new(),
            create_only: false,
        }
    }

    fn all() -> Prefix {
        Prefix { group: String::new(), resource: "configmaps".to_owned(), namespace: None }
    }

    /// A store holding `count` ConfigMaps of about `size` bytes each.
    fn store(count: usize, size: usize) -> Store {
        let store = Store::open(StoreOptions::default()).unwrap();
        for index in 0..count {
            let name = format!("cm-{index}");
            let key = Key {
                group: String::new(),
                resource: "configmaps".to_owned(),
                namespace: "default".to_owned(),
                name: name.clone(),
            };
            let object = json!({"metadata": {"name": name}, "data": {"x": "x".repeat(size)}});
            store.create(key, object).unwrap();
        }
        store
    }

    /// A watch from the current state (as `serve` starts one without a resourceVersion).
    fn pump(store: &Store, grace: Duration) -> Pump {
        let snapshot = store.snapshot(&all());
        Pump {
            watch: store.watch(&all(), snapshot.revision).unwrap(),
            initial: snapshot.items,
            after: snapshot.revision,
            initial_events: false,
            bookmarks: false,
            bookmark_interval: Duration::from_secs(3600),
            timeout: Duration::from_secs(3600),
            grace,
            resource: configmaps(),
            view: crate::selection_edge::as_stored,
            selected: Box::new(|_| true),
        }
    }

    /// Bounds the test, not the code under test: a regression that never closes the watch
    /// fails here instead of hanging.
    async fn bounded<T>(future: impl Future<Output = T>) -> T {
        tokio::time::timeout(Duration::from_secs(60), future)
            .await
            .expect("the watch did not stop within 60 s")
    }

    #[tokio::test]
    async fn a_watcher_that_does_not_read_is_closed_once_its_buffer_stays_full() {
        use futures_util::StreamExt as _;
        // 40 objects of 256 KiB: 10 MiB of initial events, ten times the buffer.
        let store = store(40, 256 * 1024);
        let (outbox, inbox) = outbox(BUFFER_BYTES);
        let room = Arc::clone(&outbox.room);
        let stop = bounded(pump(&store, Duration::from_millis(20)).run(outbox)).await;
        assert_eq!(stop, Stop::Slow);
        // The body ends at once, and what was buffered is freed: all the room is back.
        assert_eq!(room.available_permits(), BUFFER_BYTES);
        assert!(inbox.lines.lock().await.try_recv().is_err());
        assert!(bounded(Box::pin(body(inbox)).next()).await.is_none());
    }

    #[tokio::test]
    async fn a_slow_watcher_never_buffers_more_than_the_bound() {
        let store = store(40, 256 * 1024);
        let (outbox, inbox) = outbox(BUFFER_BYTES);
        let room = Arc::clone(&outbox.room);
        let task = tokio::spawn(pump(&store, Duration::from_secs(3600)).run(outbox));
        // Wait (bounded) until the pump is blocked on a full buffer.
        bounded(async {
            while room.available_permits() >= 256 * 1024 {
                tokio::task::yield_now().await;
            }
        })
        .await;
        // The permits are kept while counting: no room is freed for the pump meanwhile.
        let mut held = Vec::new();
        let mut lines = inbox.lines.lock().await;
        while let Ok(item) = lines.try_recv() {
            held.push(item);
        }
        let buffered: usize = held.iter().map(|(line, _)| line.len()).sum();
        assert!(buffered > 0 && buffered <= BUFFER_BYTES, "{buffered} bytes buffered");
        task.abort();
    }

    #[tokio::test]
    async fn a_watcher_that_reads_gets_every_initial_event_and_then_changes() {
        let store = store(40, 256 * 1024);
        let (outbox, inbox) = outbox(BUFFER_BYTES);
        let task = tokio::spawn(pump(&store, Duration::from_millis(20)).run(outbox));
        let mut names = Vec::new();
        while names.len() < 40 {
            let (line, _) = bounded(async { inbox.lines.lock().await.recv().await }).await.unwrap();
            let event: Value = serde_json::from_slice(&line).unwrap();
            assert_eq!(event["type"], "ADDED");
            names.push(event["object"]["metadata"]["name"].as_str().unwrap().to_owned());
        }
        assert_eq!(names.len(), 40);
        store.delete(&store.snapshot(&all()).items[0].key, None).unwrap();
        let (line, _) = bounded(async { inbox.lines.lock().await.recv().await }).await.unwrap();
        let event: Value = serde_json::from_slice(&line).unwrap();
        assert_eq!(event["type"], "DELETED");
        drop(inbox);
        assert_eq!(bounded(task).await.unwrap(), Stop::Gone);
    }

    /// Eight watches that are never read share the stored objects instead of each holding
    /// a copy, and once they are gone the objects are held by the store alone again.
    #[tokio::test]
    async fn unread_watches_share_the_stored_objects_and_release_them() {
        let store = store(40, 64 * 1024);
        let held = |store: &Store| Arc::strong_count(&store.snapshot(&all()).items[39]);
        let baseline = held(&store);
        let mut watches = Vec::new();
        for _ in 0..8 {
            let (outbox, inbox) = outbox(BUFFER_BYTES);
            // A long grace: the watches stay open, unread, while this test looks.
            watches
                .push((tokio::spawn(pump(&store, Duration::from_secs(3600)).run(outbox)), inbox));
        }
        tokio::task::yield_now().await;
        // Each watch holds the last object (not yet sent) by pointer: one count each.
        assert!(held(&store) <= baseline + 8, "{} references", held(&store));
        for (task, inbox) in watches {
            drop(inbox);
            assert_eq!(bounded(task).await.unwrap(), Stop::Gone);
        }
        assert_eq!(held(&store), baseline);
    }
}
