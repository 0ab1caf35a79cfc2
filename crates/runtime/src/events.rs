//! Events about the objects controllers reconcile, published the one way every certgate
//! controller publishes them.
//!
//! Each controller's `Effects` seam (its writes and its events, faked in its tests) takes a
//! kube [`Event`]; its API-server implementation hands the event to an [`EventSink`].

use k8s_openapi::api::core::v1::ObjectReference;
use kube::Client;
use kube::runtime::events::{Event, Recorder, Reporter};

/// Publishes `events.k8s.io/v1` events for one controller. Events are best effort, as
/// client-go's recorder makes them: a failure is logged, never returned, so it cannot fail
/// the reconcile that already wrote its decision.
pub struct EventSink {
    recorder: Recorder,
    controller: &'static str,
}

impl EventSink {
    /// Events from `reporter` (the reporting controller and instance the events name);
    /// `controller` names the certgate controller in logs.
    pub fn new(client: Client, reporter: Reporter, controller: &'static str) -> Self {
        EventSink { recorder: Recorder::new(client, reporter), controller }
    }

    /// Records `event` about `regarding`, logging a failure.
    pub async fn publish(&self, regarding: &ObjectReference, event: &Event) {
        if let Err(err) = self.recorder.publish(event, regarding).await {
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
