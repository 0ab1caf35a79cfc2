//! `fieldSelector`: which fields a resource can be selected by, and matching objects
//! against `field=value`, `field==value` and `field!=value` terms.
//!
//! As the API server: every kind takes `metadata.name` and `metadata.namespace`; some
//! built-in kinds register further fields (an Event's `involvedObject.*`, a Secret's
//! `type`), and a CustomResourceDefinition version adds its `selectableFields`. The
//! refusal of an unknown field depends on where the resource's fields come from: kinds
//! with a registered conversion and custom resources answer `field label not supported:
//! FIELD`, the others name the two metadata fields.

use serde_json::Value;

use crate::resources::ResourceType;
use crate::selectors::terms;
use crate::status::ApiError;

/// Fields every kind can be selected by.
const COMMON_FIELDS: [&str; 2] = ["metadata.name", "metadata.namespace"];

/// An Event's reference fields, under `involvedObject` (core) or `regarding` (events.k8s.io).
const REFERENCE_FIELDS: [&str; 7] =
    ["kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath"];

/// The fields a built-in resource registers beyond the common ones, and whether it has a
/// conversion of its own (which words refusals `field label not supported`).
fn builtin_fields(resource: &ResourceType) -> Option<Vec<String>> {
    let reference =
        |under: &'static str| REFERENCE_FIELDS.iter().map(move |f| format!("{under}.{f}"));
    let owned = |fields: &[&str]| fields.iter().map(|f| (*f).to_owned()).collect::<Vec<_>>();
    match (resource.group.as_str(), resource.kind.as_str()) {
        ("", "Event") => {
            let mut fields: Vec<String> = reference("involvedObject").collect();
            fields.extend(owned(&["reason", "reportingComponent", "source", "type"]));
            Some(fields)
        }
        ("events.k8s.io", "Event") => {
            let mut fields: Vec<String> = reference("regarding").collect();
            fields.extend(owned(&["reason", "reportingController", "type"]));
            Some(fields)
        }
        ("", "Secret") => Some(owned(&["type"])),
        ("", "Namespace") => Some(owned(&["status.phase"])),
        _ => None,
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Term {
    field: String,
    equal: bool,
    value: String,
}

/// A parsed field selector; empty selects everything.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FieldSelector(Vec<Term>);

impl FieldSelector {
    pub fn parse(text: &str, resource: &ResourceType) -> Result<Self, ApiError> {
        let registered = builtin_fields(resource);
        let mut selector = Vec::new();
        for term in terms(text) {
            let (field, equal, value) = if let Some((f, v)) = term.split_once("!=") {
                (f, false, v)
            } else if let Some((f, v)) = term.split_once("==").or_else(|| term.split_once('=')) {
                (f, true, v)
            } else {
                return Err(ApiError::bad_request(format!(
                    "invalid selector: '{text}'; can't understand '{term}'"
                )));
            };
            let field = field.trim();
            let known = COMMON_FIELDS.contains(&field)
                || registered.as_ref().is_some_and(|fields| fields.iter().any(|f| f == field))
                || resource.selectable_fields.iter().any(|f| f == field);
            if !known {
                return Err(unsupported(field, resource, registered.is_some()));
            }
            selector.push(Term { field: field.to_owned(), equal, value: value.trim().to_owned() });
        }
        Ok(FieldSelector(selector))
    }

    /// Whether `object` (as the requested version shows it) matches every term. A field
    /// that is absent reads as the empty string; integers and booleans as their text
    /// (`3`, `true`), as the API server reads a custom resource's selectable field.
    pub fn matches(&self, object: &Value) -> bool {
        self.0.iter().all(|term| (field_text(object, &term.field) == term.value) == term.equal)
    }
}

fn field_text(object: &Value, field: &str) -> String {
    // A core Event's `source` selects its `source.component`.
    let path = if field == "source" { "source.component" } else { field };
    let mut at = object;
    for step in path.split('.') {
        match at.get(step) {
            Some(next) => at = next,
            None => return String::new(),
        }
    }
    match at {
        Value::String(text) => text.clone(),
        Value::Number(number) => number.to_string(),
        Value::Bool(flag) => flag.to_string(),
        _ => String::new(),
    }
}

fn unsupported(field: &str, resource: &ResourceType, registered: bool) -> ApiError {
    if registered || resource.is_custom() {
        return ApiError::bad_request(format!("field label not supported: {field}"));
    }
    let known: Vec<String> = COMMON_FIELDS.iter().map(|f| format!("\"{f}\"")).collect();
    ApiError::bad_request(format!(
        "\"{field}\" is not a known field selector: only {}",
        known.join(", ")
    ))
    .with_details(serde_json::json!({"kind": resource.kind}))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::resources::builtins;

    fn builtin(group: &str, kind: &str) -> ResourceType {
        builtins().into_iter().find(|r| r.group == group && r.kind == kind).unwrap()
    }

    fn widgets() -> ResourceType {
        let crd = json!({
            "metadata": {"name": "widgets.probe.example.com"},
            "spec": {"group": "probe.example.com", "scope": "Namespaced",
                "names": {"plural": "widgets", "kind": "Widget"},
                "versions": [{"name": "v1", "served": true, "storage": true,
                    "selectableFields": [{"jsonPath": ".spec.count"}, {"jsonPath": ".spec.enabled"}, {"jsonPath": ".spec.color"}]}]}
        });
        crate::resources::from_crd(&crd).unwrap().remove(0)
    }

    #[test]
    fn core_events_are_selected_by_their_involved_object_and_source() {
        let event = json!({"metadata": {"name": "e"}, "involvedObject": {"kind": "ConfigMap", "name": "demo"}, "source": {"component": "x"}});
        let parse = |s: &str| FieldSelector::parse(s, &builtin("", "Event")).unwrap();
        assert!(parse("involvedObject.kind=ConfigMap,involvedObject.name=demo").matches(&event));
        assert!(parse("source=x").matches(&event));
        assert!(!parse("involvedObject.name=other").matches(&event));
        let refused =
            FieldSelector::parse("regarding.name=demo", &builtin("", "Event")).unwrap_err();
        assert_eq!(
            (refused.code, refused.message.as_str()),
            (400, "field label not supported: regarding.name")
        );
    }

    #[test]
    fn events_k8s_io_events_are_selected_by_what_they_regard() {
        let event =
            json!({"regarding": {"name": "demo"}, "reportingController": "c", "type": "Normal"});
        let events = builtin("events.k8s.io", "Event");
        let parse = |s: &str| FieldSelector::parse(s, &events).unwrap();
        assert!(parse("regarding.name=demo,reportingController=c,type=Normal").matches(&event));
        for field in ["involvedObject.name", "reportingComponent", "source", "note"] {
            let refused = FieldSelector::parse(&format!("{field}=x"), &events).unwrap_err();
            assert_eq!(refused.message, format!("field label not supported: {field}"));
        }
    }

    #[test]
    fn other_built_in_kinds_take_name_and_namespace_only() {
        let object = json!({"metadata": {"name": "a", "namespace": "ns"}});
        let configmaps = builtin("", "ConfigMap");
        let parse = |s: &str| FieldSelector::parse(s, &configmaps);
        assert!(parse("metadata.name=a").unwrap().matches(&object));
        assert!(parse("metadata.namespace!=other,metadata.name==a").unwrap().matches(&object));
        assert!(!parse("metadata.name=b").unwrap().matches(&object));
        let err = parse("spec.x=1").unwrap_err();
        assert_eq!(err.code, 400);
        assert_eq!(
            err.message,
            "\"spec.x\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\""
        );
    }

    #[test]
    fn custom_resources_are_selected_by_their_selectable_fields_as_text() {
        let widgets = widgets();
        let one = json!({"metadata": {"name": "one"}, "spec": {"count": 3, "enabled": true, "color": "red"}});
        let bare = json!({"metadata": {"name": "three"}, "spec": {}});
        let parse = |s: &str| FieldSelector::parse(s, &widgets).unwrap();
        assert!(parse("spec.count=3").matches(&one));
        // Compared as text: no number parsing, no case folding.
        assert!(!parse("spec.count=03").matches(&one));
        assert!(parse("spec.enabled=true").matches(&one));
        assert!(!parse("spec.enabled=True").matches(&one));
        assert!(parse("spec.color==red,metadata.name=one").matches(&one));
        // An absent field reads as empty.
        assert!(parse("spec.color=").matches(&bare));
        assert!(parse("spec.count!=3").matches(&bare));
        let refused = FieldSelector::parse("spec.other=1", &widgets).unwrap_err();
        assert_eq!(
            (refused.code, refused.message.as_str()),
            (400, "field label not supported: spec.other")
        );
        let set = FieldSelector::parse("spec.color in (a)", &widgets).unwrap_err();
        assert_eq!(
            set.message,
            "invalid selector: 'spec.color in (a)'; can't understand 'spec.color in (a)'"
        );
    }
}
