//! Events about the objects controllers reconcile, published the one way every certgate
//! controller publishes them.
//!
//! Each controller's `Effects` seam (its writes and its events, faked in its tests) takes a
//! kube [`Event`]; its API-server implementation hands the event to an [`EventSink`].

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use k8s_openapi::api::core::v1::ObjectReference;
use kube::Client;
use kube::runtime::events::{Event, Recorder, Reporter};

/// The API server refuses `events.k8s.io/v1` events whose note is longer (1 KB).
pub const NOTE_LIMIT: usize = 1024;

/// `note` cut to [`NOTE_LIMIT`] bytes on a character boundary, ending in ` ...` when cut, as
/// kube-scheduler truncates its event messages. client-go's recorder does not cut, so the
/// API server refuses long notes and the event is lost; a cut one still says what happened.
pub fn truncate_note(note: &str) -> std::borrow::Cow<'_, str> {
    const SUFFIX: &str = " ...";
    if note.len() <= NOTE_LIMIT {
        return note.into();
    }
    let mut end = NOTE_LIMIT - SUFFIX.len();
    while !note.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}{SUFFIX}", &note[..end]).into()
}

/// Distinct notes whose recorders are kept; beyond that the map starts over (only the
/// aggregation of repeats into a series is lost).
const MAX_NOTES: usize = 1024;

/// Publishes `events.k8s.io/v1` events for one controller. Events are best effort, as
/// client-go's recorder makes them: a failure is logged, never returned, so it cannot fail
/// the reconcile that already wrote its decision.
///
/// Repeats of the same event (same object, type, reason, action and note) within kube's
/// cache window become one event with a series count, as client-go's recorder aggregates
/// them. kube's `Recorder` leaves the note out of that key, so two events about one object
/// that differ only in their note (the propagator's "propagated to cluster A", "... B") would
/// collapse into the first; one recorder per note keeps client-go's key.
pub struct EventSink {
    client: Client,
    reporter: Reporter,
    recorders: Mutex<HashMap<String, Recorder>>,
    controller: &'static str,
}

impl EventSink {
    /// Events from `reporter` (the reporting controller and instance the events name);
    /// `controller` names the certgate controller in logs.
    pub fn new(client: Client, reporter: Reporter, controller: &'static str) -> Self {
        EventSink { client, reporter, recorders: Mutex::new(HashMap::new()), controller }
    }

    /// Records `event` about `regarding`, logging a failure.
    pub async fn publish(&self, regarding: &ObjectReference, event: &Event) {
        let truncated;
        let event = match event.note.as_deref().map(truncate_note) {
            Some(std::borrow::Cow::Owned(note)) => {
                truncated = Event {
                    type_: event.type_,
                    reason: event.reason.clone(),
                    note: Some(note),
                    action: event.action.clone(),
                    secondary: event.secondary.clone(),
                };
                &truncated
            }
            _ => event,
        };
        let recorder = {
            let mut recorders = self.recorders.lock().unwrap_or_else(PoisonError::into_inner);
            let note = event.note.clone().unwrap_or_default();
            if recorders.len() >= MAX_NOTES && !recorders.contains_key(&note) {
                recorders.clear();
            }
            recorders
                .entry(note)
                .or_insert_with(|| Recorder::new(self.client.clone(), self.reporter.clone()))
                .clone()
        };
        if let Err(err) = recorder.publish(event, regarding).await {
            let object = match &regarding.namespace {
                Some(namespace) => {
                    format!("{namespace}/{}", regarding.name.as_deref().unwrap_or_default())
                }
                None => regarding.name.clone().unwrap_or_default(),
            };
            tracing::warn!(
                controller = self.controller,
                object = %object,
                reason = %event.reason,
                error = %err,
                "cannot record the event"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_notes_are_cut_on_a_character_boundary() {
        assert_eq!(truncate_note("short"), "short");
        let exact = "x".repeat(NOTE_LIMIT);
        assert_eq!(truncate_note(&exact), exact);
        let long = format!("{}é{}", "a".repeat(1019), "b".repeat(100));
        let cut = truncate_note(&long);
        assert_eq!(cut.len(), 1023);
        assert!(cut.ends_with("a ..."), "{cut}");
        assert!(truncate_note(&"b".repeat(5000)).len() == NOTE_LIMIT);
    }
}
