//! Watches: a stream of JSON lines (`{"type": "ADDED", "object": {...}}`), from a
//! resourceVersion or from the current state, with optional bookmarks and a 410 Gone
//! error event when the requested version is no longer kept.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::response::{IntoResponse, Response};
use certgate_store::{Change, StoreError, Stored};
use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::api::{json_line, prefix, store_error, stream_response};
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
        &target.resource.kind,
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
    // changes after it.
    let (initial, after) = match query.get("resourceVersion").map(String::as_str) {
        _ if initial_events => {
            let listed = sandbox.store.list(&prefix, None, None);
            (listed.items, listed.revision)
        }
        None | Some("" | "0") => {
            let listed = sandbox.store.list(&prefix, None, None);
            (listed.items, listed.revision)
        }
        Some(rv) => match rv.parse::<u64>() {
            Ok(rv) => (Vec::new(), rv),
            Err(_) => {
                return ApiError::bad_request(format!("invalid resourceVersion {rv:?}"))
                    .into_response();
            }
        },
    };
    let mut watch = match sandbox.store.watch(&prefix, after) {
        Ok(watch) => watch,
        Err(err) => return expired_stream(store_error(&target, "", err)),
    };
    let (sender, receiver) = mpsc::channel::<Bytes>(64);
    let selected = move |object: &Value| {
        labels.matches(object.pointer("/metadata/labels")) && fields.matches(object)
    };
    let resource = target.resource.clone();
    let interval = sandbox.bookmark_interval;
    tokio::spawn(async move {
        for stored in initial {
            if selected(&stored.object) && sender.send(event("ADDED", &stored)).await.is_err() {
                return;
            }
        }
        if initial_events
            && sender.send(bookmark(&resource, after, INITIAL_EVENTS_END)).await.is_err()
        {
            return;
        }
        let deadline = tokio::time::sleep(timeout);
        tokio::pin!(deadline);
        let mut ticker = tokio::time::interval(interval);
        ticker.tick().await;
        let mut last = after;
        loop {
            let line = tokio::select! {
                () = &mut deadline => return,
                _ = ticker.tick(), if bookmarks => bookmark(&resource, last, None),
                () = sender.closed() => return,
                change = watch.next() => match change {
                    Ok(change) => {
                        let (kind, stored) = match &change {
                            Change::Added(s) => ("ADDED", s),
                            Change::Modified(s) => ("MODIFIED", s),
                            Change::Deleted(s) => ("DELETED", s),
                        };
                        last = stored.revision;
                        if !selected(&stored.object) {
                            continue;
                        }
                        event(kind, stored)
                    }
                    Err(err) => {
                        let status = match err {
                            StoreError::Expired { .. } => ApiError::new(410, "Expired", err.to_string()),
                            other => ApiError::new(500, "InternalError", other.to_string()),
                        };
                        let _ = sender.send(json_line(&json!({"type": "ERROR", "object": status.body()}))).await;
                        return;
                    }
                },
            };
            if sender.send(line).await.is_err() {
                return;
            }
        }
    });
    let stream = futures_util::stream::unfold(receiver, |mut receiver| async move {
        receiver.recv().await.map(|line| (Ok::<_, std::io::Error>(line), receiver))
    });
    stream_response(Body::from_stream(stream))
}

fn event(kind: &str, stored: &Stored) -> Bytes {
    json_line(&json!({"type": kind, "object": stored.object}))
}

/// The annotation on the bookmark that ends the initial events of a streaming list.
const INITIAL_EVENTS_END: Option<(&str, &str)> = Some(("k8s.io/initial-events-end", "true"));

fn bookmark(
    resource: &crate::resources::ResourceType,
    revision: u64,
    annotation: Option<(&str, &str)>,
) -> Bytes {
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
