//! Validation of an Event's creation, through either version, as kube-apiserver applies it
//! (probed on v1.37): the legacy checks every Event passes, and for `events.k8s.io/v1` the
//! strict ones (an `eventTime`, a `type` of Normal or Warning, the deprecated fields unset).
//! The checks run on the stored (core) form, so errors name the core fields
//! (`involvedObject.namespace`, `count`, `source`), except the reporting controller, which
//! each version names its own way.

use certgate_api::field::{BadValue, FieldError, Path};
use serde_json::{Value, json};

use crate::event_versions;
use crate::resources::ResourceType;
use crate::status::ApiError;

/// kube-apiserver's length limits for an Event's fields.
const REPORTING_INSTANCE_LIMIT: usize = 128;
const ACTION_LIMIT: usize = 128;
const REASON_LIMIT: usize = 128;
const NOTE_LIMIT: usize = 1024;

/// Checks the creation of `object` (in `resource`'s version) when it is an Event.
pub(crate) fn validate_create(resource: &ResourceType, object: &Value) -> Result<(), ApiError> {
    let strict = match (resource.group.as_str(), resource.plural.as_str()) {
        ("", "events") => false,
        ("events.k8s.io", "events") => true,
        _ => return Ok(()),
    };
    let core = if strict {
        event_versions::to_core(object)
    } else {
        event_versions::normalize_core(object)
    };
    let mut errors = legacy(&core, strict);
    if strict {
        errors.extend(strict_errors(&core));
    }
    if errors.is_empty() {
        return Ok(());
    }
    let aggregate = certgate_api::field::aggregate(&errors).unwrap_or_default();
    let causes = errors
        .iter()
        .map(|e| json!({"reason": e.kind.cause(), "message": e.body(), "field": e.path.as_str()}))
        .collect();
    let name = text(&core, "/metadata/name");
    // One storage, one kind: the refusal names the core Event whichever version was used.
    Err(ApiError::invalid("Event", "", "Event", name, &aggregate, Some(causes)))
}

fn text<'a>(event: &'a Value, pointer: &str) -> &'a str {
    event.pointer(pointer).and_then(Value::as_str).unwrap_or_default()
}

fn is_set(event: &Value, field: &str) -> bool {
    event.get(field).is_some_and(|value| match value {
        Value::Null => false,
        Value::String(text) => !text.is_empty(),
        Value::Number(number) => number.as_f64() != Some(0.0),
        Value::Object(fields) => fields.values().any(|v| v.as_str().is_some_and(|s| !s.is_empty())),
        _ => true,
    })
}

fn unset_invalid(path: &str, detail: String) -> FieldError {
    FieldError::invalid(Path::new(path), BadValue::Str(String::new()), detail)
}

/// The checks every Event passes, whichever version created it.
fn legacy(event: &Value, strict: bool) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let namespace = text(event, "/metadata/namespace");
    let regarding = text(event, "/involvedObject/namespace");
    let mismatch = || {
        FieldError::invalid(
            Path::new("involvedObject").child("namespace"),
            BadValue::Str(regarding.to_owned()),
            "does not match event.namespace",
        )
    };
    let controller_field = if strict { "reportingController" } else { "reportingComponent" };
    if !is_set(event, "eventTime") {
        // An old-style Event: its namespace and its object's agree (an object without one
        // may be reported in "default", for old clients).
        let agrees = if regarding.is_empty() {
            namespace.is_empty() || namespace == "default"
        } else {
            namespace == regarding
        };
        if !agrees {
            errors.push(mismatch());
        }
    } else {
        if regarding.is_empty() && namespace != "default" && namespace != "kube-system" {
            errors.push(mismatch());
        }
        let controller = text(event, "/reportingComponent");
        if controller.is_empty() {
            errors.push(FieldError::required(Path::new(controller_field), ""));
        }
        for problem in crate::names::qualified_name(controller) {
            errors.push(FieldError::invalid(
                Path::new(controller_field),
                BadValue::Str(controller.to_owned()),
                problem,
            ));
        }
        for (field, limit) in [
            ("reportingInstance", REPORTING_INSTANCE_LIMIT),
            ("action", ACTION_LIMIT),
            ("reason", REASON_LIMIT),
        ] {
            let value = text(event, &format!("/{field}"));
            if value.is_empty() {
                errors.push(FieldError::required(Path::new(field), ""));
            }
            if value.len() > limit {
                errors.push(unset_invalid(field, format!("can have at most {limit} characters")));
            }
        }
        if text(event, "/message").len() > NOTE_LIMIT {
            errors.push(unset_invalid(
                "message",
                format!("can have at most {NOTE_LIMIT} characters"),
            ));
        }
    }
    errors
}

/// What an `events.k8s.io/v1` Event must be besides.
fn strict_errors(event: &Value) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if let Some(series) = event.get("series").filter(|s| s.is_object()) {
        if series.get("count").and_then(Value::as_i64).unwrap_or(0) < 2 {
            errors.push(unset_invalid("series.count", "should be at least 2".to_owned()));
        }
        if series.get("lastObservedTime").is_none_or(Value::is_null) {
            errors.push(FieldError::required(Path::new("series").child("lastObservedTime"), ""));
        }
    }
    if !is_set(event, "eventTime") {
        errors.push(FieldError::required(Path::new("eventTime"), ""));
    }
    let kind = text(event, "/type");
    if kind != "Normal" && kind != "Warning" {
        errors.push(unset_invalid("type", format!("has invalid value: {kind}")));
    }
    for field in ["firstTimestamp", "lastTimestamp", "count", "source"] {
        if is_set(event, field) {
            errors.push(unset_invalid(field, "needs to be unset".to_owned()));
        }
    }
    errors
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resources::builtins;

    fn events(group: &str) -> ResourceType {
        builtins().into_iter().find(|r| r.group == group && r.plural == "events").unwrap()
    }

    fn refusal(group: &str, event: Value) -> String {
        validate_create(&events(group), &event).unwrap_err().message
    }

    #[test]
    fn an_events_k8s_io_event_needs_its_time_type_and_no_deprecated_fields() {
        let bare = json!({"metadata": {"name": "bad", "namespace": "payments"}, "reason": "R"});
        assert_eq!(
            refusal("events.k8s.io", bare),
            r#"Event "bad" is invalid: [involvedObject.namespace: Invalid value: "": does not match event.namespace, eventTime: Required value, type: Invalid value: "": has invalid value: ]"#
        );
        let deprecated = json!({"metadata": {"name": "depr", "namespace": "payments"},
            "eventTime": "2025-01-01T00:00:00.000000Z", "reportingController": "example.com/probe",
            "reportingInstance": "p", "action": "A", "reason": "R", "type": "Normal",
            "regarding": {"kind": "ConfigMap", "name": "probe"},
            "deprecatedSource": {"component": "comp", "host": "h"}, "deprecatedCount": 4});
        assert_eq!(
            refusal("events.k8s.io", deprecated),
            r#"Event "depr" is invalid: [involvedObject.namespace: Invalid value: "": does not match event.namespace, count: Invalid value: "": needs to be unset, source: Invalid value: "": needs to be unset]"#
        );
        let no_instance = json!({"metadata": {"name": "noinst", "namespace": "payments"},
            "eventTime": "2025-01-01T00:00:00.000000Z", "reportingController": "example.com/probe",
            "action": "A", "reason": "R", "type": "Normal", "regarding": {"kind": "ConfigMap", "name": "probe"}});
        assert_eq!(
            refusal("events.k8s.io", no_instance),
            r#"Event "noinst" is invalid: [involvedObject.namespace: Invalid value: "": does not match event.namespace, reportingInstance: Required value]"#
        );
    }

    #[test]
    fn a_core_event_passes_the_legacy_checks_only() {
        let mismatched =
            json!({"metadata": {"name": "bad2", "namespace": "payments"}, "reason": "R"});
        assert_eq!(
            refusal("", mismatched),
            r#"Event "bad2" is invalid: involvedObject.namespace: Invalid value: "": does not match event.namespace"#
        );
        let minimal = json!({"metadata": {"name": "m", "namespace": "payments"},
            "involvedObject": {"kind": "ConfigMap", "name": "probe3", "namespace": "payments"}});
        assert!(validate_create(&events(""), &minimal).is_ok());
        let in_default = json!({"metadata": {"name": "d", "namespace": "default"}, "involvedObject": {"kind": "Node", "name": "n"}});
        assert!(validate_create(&events(""), &in_default).is_ok());
    }
}
