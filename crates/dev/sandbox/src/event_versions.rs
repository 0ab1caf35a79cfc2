//! One Event, two versions: the API server keeps core `v1` and `events.k8s.io/v1` Events
//! in one storage and converts between them field by field (`message` is `note`,
//! `involvedObject` is `regarding`, `source` is `deprecatedSource`, ...). The sandbox stores
//! the core form and converts to and from `events.k8s.io/v1` on each read and write.
//!
//! Each version also shows some fields even when unset, as the API server's Go types
//! serialize them (a core Event always has `source`, `firstTimestamp: null` and
//! `reportingComponent: ""`; an `events.k8s.io` one always has `eventTime`, `regarding` and
//! `deprecatedSource`): probed on kube-apiserver v1.37.

use serde_json::{Map, Value, json};

/// How a field appears in a version when the Event does not set it.
#[derive(Clone, Copy)]
enum Unset {
    /// Left out.
    Omitted,
    /// Shown as `null`.
    Null,
    /// Shown as `{}`.
    Empty,
    /// Shown as `""`.
    EmptyText,
}

/// (core field, how core shows it unset, events.k8s.io field, how events.k8s.io shows it).
const FIELDS: [(&str, Unset, &str, Unset); 14] = [
    ("involvedObject", Unset::Empty, "regarding", Unset::Empty),
    ("reason", Unset::Omitted, "reason", Unset::Omitted),
    ("message", Unset::Omitted, "note", Unset::Omitted),
    ("source", Unset::Empty, "deprecatedSource", Unset::Empty),
    ("firstTimestamp", Unset::Null, "deprecatedFirstTimestamp", Unset::Null),
    ("lastTimestamp", Unset::Null, "deprecatedLastTimestamp", Unset::Null),
    ("count", Unset::Omitted, "deprecatedCount", Unset::Omitted),
    ("type", Unset::Omitted, "type", Unset::Omitted),
    ("eventTime", Unset::Null, "eventTime", Unset::Null),
    ("series", Unset::Omitted, "series", Unset::Omitted),
    ("action", Unset::Omitted, "action", Unset::Omitted),
    ("related", Unset::Omitted, "related", Unset::Omitted),
    ("reportingComponent", Unset::EmptyText, "reportingController", Unset::Omitted),
    ("reportingInstance", Unset::EmptyText, "reportingInstance", Unset::Omitted),
];

/// Whether a value counts as unset (Go's zero values: omitted when serialized).
fn is_unset(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::String(text) => text.is_empty(),
        Value::Number(number) => number.as_f64() == Some(0.0),
        Value::Object(fields) => fields.is_empty(),
        _ => false,
    }
}

fn convert(event: &Value, api_version: &str, to_events: bool) -> Value {
    let mut out = Map::new();
    out.insert("apiVersion".to_owned(), json!(api_version));
    out.insert("kind".to_owned(), json!("Event"));
    if let Some(metadata) = event.get("metadata") {
        out.insert("metadata".to_owned(), metadata.clone());
    }
    for (core, core_unset, events, events_unset) in FIELDS {
        let (from, to, unset) =
            if to_events { (core, events, events_unset) } else { (events, core, core_unset) };
        let value = event.get(from).filter(|value| !is_unset(value));
        let shown = match (value, unset) {
            (Some(value), _) => value.clone(),
            (None, Unset::Omitted) => continue,
            (None, Unset::Null) => Value::Null,
            (None, Unset::Empty) => json!({}),
            (None, Unset::EmptyText) => json!(""),
        };
        out.insert(to.to_owned(), shown);
    }
    Value::Object(out)
}

/// A stored (core) Event as `events.k8s.io/v1` shows it.
pub(crate) fn to_events_k8s_io(core: &Value) -> Value {
    convert(core, "events.k8s.io/v1", true)
}

/// An `events.k8s.io/v1` Event in the core form it is stored in.
pub(crate) fn to_core(event: &Value) -> Value {
    convert(event, "v1", false)
}

/// A core Event as core `v1` shows it: its unset fields as the API server serializes them.
/// Fields a core Event does not have are dropped, as decoding into its type drops them.
pub(crate) fn normalize_core(core: &Value) -> Value {
    convert(&to_events_k8s_io(core), "v1", false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_events_k8s_io_event_is_stored_and_read_as_a_core_event() {
        let event = json!({
            "apiVersion": "events.k8s.io/v1", "kind": "Event",
            "metadata": {"name": "probe-event", "namespace": "payments"},
            "eventTime": "2025-01-01T00:00:00.000000Z", "reportingController": "example.com/probe",
            "reportingInstance": "probe-1", "action": "Probe", "reason": "Probed", "type": "Normal",
            "note": "hello", "regarding": {"kind": "ConfigMap", "name": "probe", "namespace": "payments", "apiVersion": "v1"},
            "related": {"kind": "Secret", "name": "rel", "namespace": "payments"},
            "series": {"count": 2, "lastObservedTime": "2025-01-01T00:00:05.000000Z"},
        });
        let core = to_core(&event);
        assert_eq!(
            core,
            json!({
                "apiVersion": "v1", "kind": "Event",
                "metadata": {"name": "probe-event", "namespace": "payments"},
                "involvedObject": {"kind": "ConfigMap", "name": "probe", "namespace": "payments", "apiVersion": "v1"},
                "reason": "Probed", "message": "hello", "source": {}, "firstTimestamp": null,
                "lastTimestamp": null, "type": "Normal", "eventTime": "2025-01-01T00:00:00.000000Z",
                "series": {"count": 2, "lastObservedTime": "2025-01-01T00:00:05.000000Z"},
                "action": "Probe", "related": {"kind": "Secret", "name": "rel", "namespace": "payments"},
                "reportingComponent": "example.com/probe", "reportingInstance": "probe-1",
            })
        );
        let mut back = event.clone();
        back["deprecatedSource"] = json!({});
        back["deprecatedFirstTimestamp"] = Value::Null;
        back["deprecatedLastTimestamp"] = Value::Null;
        assert_eq!(to_events_k8s_io(&core), back);
    }

    #[test]
    fn a_core_event_reads_as_events_k8s_io_with_the_deprecated_fields() {
        let core = json!({
            "apiVersion": "v1", "kind": "Event", "metadata": {"name": "core-event"},
            "involvedObject": {"kind": "ConfigMap", "name": "probe2", "uid": "u1", "fieldPath": "f"},
            "reason": "Seen", "message": "from core", "type": "Warning",
            "source": {"component": "kubelet", "host": "node1"},
            "firstTimestamp": "2025-01-01T00:00:00Z", "lastTimestamp": "2025-01-01T00:00:02Z",
            "count": 3, "reportingComponent": "rc", "reportingInstance": "ri", "action": "Act",
        });
        assert_eq!(
            to_events_k8s_io(&core),
            json!({
                "apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": "core-event"},
                "eventTime": null, "reportingController": "rc", "reportingInstance": "ri", "action": "Act",
                "reason": "Seen", "regarding": {"kind": "ConfigMap", "name": "probe2", "uid": "u1", "fieldPath": "f"},
                "note": "from core", "type": "Warning", "deprecatedSource": {"component": "kubelet", "host": "node1"},
                "deprecatedFirstTimestamp": "2025-01-01T00:00:00Z", "deprecatedLastTimestamp": "2025-01-01T00:00:02Z",
                "deprecatedCount": 3,
            })
        );
    }

    #[test]
    fn a_minimal_core_event_shows_its_unset_fields_as_each_version_does() {
        let core = json!({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "m"},
            "involvedObject": {"kind": "ConfigMap", "name": "probe3"}});
        assert_eq!(
            normalize_core(&core),
            json!({
                "apiVersion": "v1", "kind": "Event", "metadata": {"name": "m"},
                "involvedObject": {"kind": "ConfigMap", "name": "probe3"}, "source": {},
                "firstTimestamp": null, "lastTimestamp": null, "eventTime": null,
                "reportingComponent": "", "reportingInstance": "",
            })
        );
        assert_eq!(
            to_events_k8s_io(&core),
            json!({
                "apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": "m"},
                "eventTime": null, "regarding": {"kind": "ConfigMap", "name": "probe3"},
                "deprecatedSource": {}, "deprecatedFirstTimestamp": null, "deprecatedLastTimestamp": null,
            })
        );
    }
}
