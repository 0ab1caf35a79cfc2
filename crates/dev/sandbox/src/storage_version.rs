//! Where a resource's objects are stored and in which form: most resources store what they
//! serve, but `events.k8s.io/v1` Events are core `v1` Events, stored once in the core form
//! (as the API server keeps both in one storage) and converted on every read and write.

use std::borrow::Cow;

use serde_json::Value;

use crate::event_versions;
use crate::resources::ResourceType;
use crate::selection_edge::{View, as_stored};

/// Which resource a resource's objects are stored under: (group, plural).
pub(crate) fn stored_under(resource: &ResourceType) -> (&str, &str) {
    if is_events_k8s_io(resource) { ("", "events") } else { (&resource.group, &resource.plural) }
}

fn is_events_k8s_io(resource: &ResourceType) -> bool {
    resource.group == "events.k8s.io" && resource.plural == "events"
}

fn is_core_event(resource: &ResourceType) -> bool {
    resource.group.is_empty() && resource.plural == "events"
}

/// How `resource` shows a stored object.
pub(crate) fn view_of(resource: &ResourceType) -> View {
    if is_events_k8s_io(resource) { events_k8s_io_view } else { as_stored }
}

fn events_k8s_io_view(object: &Value) -> Cow<'_, Value> {
    Cow::Owned(event_versions::to_events_k8s_io(object))
}

/// A stored object as `resource` shows it.
pub(crate) fn view(resource: &ResourceType, object: Value) -> Value {
    if is_events_k8s_io(resource) { event_versions::to_events_k8s_io(&object) } else { object }
}

/// An object written through `resource`, in the form it is stored in.
pub(crate) fn to_storage(resource: &ResourceType, object: Value) -> Value {
    if is_events_k8s_io(resource) {
        event_versions::to_core(&object)
    } else if is_core_event(resource) {
        event_versions::normalize_core(&object)
    } else {
        object
    }
}
