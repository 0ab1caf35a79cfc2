//! `labelSelector` and `fieldSelector` query parameters, in Kubernetes' string syntax.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::status::ApiError;

#[derive(Clone, Debug, PartialEq, Eq)]
enum Requirement {
    Equals(String, String),
    NotEquals(String, String),
    In(String, BTreeSet<String>),
    NotIn(String, BTreeSet<String>),
    Exists(String),
    DoesNotExist(String),
}

/// A parsed label selector; empty selects everything.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LabelSelector(Vec<Requirement>);

/// Splits on commas outside parentheses.
fn terms(text: &str) -> Vec<&str> {
    let mut terms = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                terms.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    terms.push(&text[start..]);
    terms.into_iter().map(str::trim).filter(|t| !t.is_empty()).collect()
}

fn invalid(selector: &str, why: &str) -> ApiError {
    ApiError::bad_request(format!("unable to parse requirement: {why} in selector {selector:?}"))
}

fn set(values: &str) -> BTreeSet<String> {
    values.split(',').map(str::trim).filter(|v| !v.is_empty()).map(str::to_owned).collect()
}

impl LabelSelector {
    pub fn parse(text: &str) -> Result<Self, ApiError> {
        let mut requirements = Vec::new();
        for term in terms(text) {
            let requirement = if let Some(key) = term.strip_prefix('!') {
                Requirement::DoesNotExist(key.trim().to_owned())
            } else if let Some((key, values)) = split_set(term, " notin ") {
                Requirement::NotIn(key, set(&values))
            } else if let Some((key, values)) = split_set(term, " in ") {
                Requirement::In(key, set(&values))
            } else if let Some((key, value)) = term.split_once("!=") {
                Requirement::NotEquals(key.trim().to_owned(), value.trim().to_owned())
            } else if let Some((key, value)) =
                term.split_once("==").or_else(|| term.split_once('='))
            {
                Requirement::Equals(key.trim().to_owned(), value.trim().to_owned())
            } else if term.chars().all(|c| c.is_ascii_alphanumeric() || "-_./".contains(c)) {
                Requirement::Exists(term.to_owned())
            } else {
                return Err(invalid(text, &format!("invalid term {term:?}")));
            };
            check_requirement(&requirement)?;
            requirements.push(requirement);
        }
        Ok(LabelSelector(requirements))
    }

    /// Whether an object with `labels` (its `metadata.labels`, possibly absent) matches.
    pub fn matches(&self, labels: Option<&Value>) -> bool {
        let label = |key: &str| labels.and_then(|l| l.get(key)).and_then(Value::as_str);
        self.0.iter().all(|requirement| match requirement {
            Requirement::Equals(k, v) => label(k) == Some(v.as_str()),
            Requirement::NotEquals(k, v) => label(k) != Some(v.as_str()),
            Requirement::In(k, values) => label(k).is_some_and(|l| values.contains(l)),
            Requirement::NotIn(k, values) => label(k).is_none_or(|l| !values.contains(l)),
            Requirement::Exists(k) => label(k).is_some(),
            Requirement::DoesNotExist(k) => label(k).is_none(),
        })
    }
}

/// `NewRequirement`'s checks (k8s.io/apimachinery/pkg/labels/selector.go at v0.33.0): the
/// key a qualified name, every value a label value, each failure one field error with the
/// messages joined by "; ", the whole wrapped as the parser wraps it (400).
fn check_requirement(requirement: &Requirement) -> Result<(), ApiError> {
    use certgate_api::field::{BadValue, FieldError, Path};
    let (key, values): (&str, Vec<&str>) = match requirement {
        Requirement::Equals(k, v) | Requirement::NotEquals(k, v) => (k, vec![v.as_str()]),
        Requirement::In(k, set) | Requirement::NotIn(k, set) => {
            (k, set.iter().map(String::as_str).collect())
        }
        Requirement::Exists(k) | Requirement::DoesNotExist(k) => (k, Vec::new()),
    };
    let mut errors = Vec::new();
    let key_problems = crate::names::qualified_name(key);
    if !key_problems.is_empty() {
        errors.push(FieldError::invalid(
            Path::new("key"),
            BadValue::Str(key.to_owned()),
            key_problems.join("; "),
        ));
    }
    for (i, value) in values.iter().enumerate() {
        let problems = crate::names::label_value(value);
        if !problems.is_empty() {
            errors.push(FieldError::invalid(
                Path::new("values").index(i).key(key),
                BadValue::Str((*value).to_owned()),
                problems.join("; "),
            ));
        }
    }
    match certgate_api::field::aggregate(&errors) {
        None => Ok(()),
        Some(aggregate) => {
            Err(ApiError::bad_request(format!("unable to parse requirement: {aggregate}")))
        }
    }
}

/// `key in (a, b)` → (`key`, `a, b`).
fn split_set(term: &str, operator: &str) -> Option<(String, String)> {
    let (key, rest) = term.split_once(operator)?;
    let values = rest.trim().strip_prefix('(')?.strip_suffix(')')?;
    Some((key.trim().to_owned(), values.to_owned()))
}

/// Fields every kind can be selected by.
const COMMON_FIELDS: [&str; 2] = ["metadata.name", "metadata.namespace"];

/// Further fields some kinds can be selected by, as the API server registers them.
fn kind_fields(kind: &str) -> &'static [&'static str] {
    match kind {
        "Event" => &[
            "involvedObject.kind",
            "involvedObject.namespace",
            "involvedObject.name",
            "involvedObject.uid",
            "involvedObject.apiVersion",
            "involvedObject.resourceVersion",
            "involvedObject.fieldPath",
            "reason",
            "reportingComponent",
            "source",
            "type",
        ],
        "Secret" => &["type"],
        "Namespace" => &["status.phase"],
        _ => &[],
    }
}

/// A parsed field selector over the fields the kind supports: `metadata.name`,
/// `metadata.namespace`, and per kind e.g. an Event's `involvedObject.*`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FieldSelector(Vec<(String, bool, String)>);

impl FieldSelector {
    pub fn parse(text: &str, kind: &str) -> Result<Self, ApiError> {
        let mut requirements = Vec::new();
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
            if !COMMON_FIELDS.contains(&field) && !kind_fields(kind).contains(&field) {
                let known: Vec<String> = COMMON_FIELDS
                    .iter()
                    .chain(kind_fields(kind))
                    .map(|f| format!("\"{f}\""))
                    .collect();
                return Err(ApiError::bad_request(format!(
                    "\"{field}\" is not a known field selector: only {}",
                    known.join(", ")
                ))
                .with_details(serde_json::json!({"kind": kind})));
            }
            requirements.push((field.to_owned(), equal, value.trim().to_owned()));
        }
        Ok(FieldSelector(requirements))
    }

    pub fn matches(&self, object: &Value) -> bool {
        self.0.iter().all(|(field, equal, value)| {
            // `source` selects an Event's `source.component`.
            let path = if field == "source" { "source.component" } else { field.as_str() };
            let pointer = format!("/{}", path.replace('.', "/"));
            let actual = object.pointer(&pointer).and_then(Value::as_str).unwrap_or_default();
            (actual == value) == *equal
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn label_selectors_cover_every_operator() {
        let labels = json!({"app": "web", "tier": "front"});
        let matches = |s: &str| LabelSelector::parse(s).unwrap().matches(Some(&labels));
        assert!(matches(""));
        assert!(matches("app=web"));
        assert!(matches("app==web,tier"));
        assert!(!matches("app!=web"));
        assert!(matches("app in (web, api)"));
        assert!(!matches("app notin (web)"));
        assert!(matches("!missing"));
        assert!(!matches("missing"));
        assert!(matches("tier in (front),app"));
        assert!(!LabelSelector::parse("app=web").unwrap().matches(None));
        assert!(LabelSelector::parse("!app").unwrap().matches(None));
    }

    #[test]
    fn events_are_selected_by_their_involved_object() {
        let event = json!({"metadata": {"name": "e"}, "involvedObject": {"kind": "ConfigMap", "name": "demo"}, "source": {"component": "x"}});
        let parse = |s: &str| FieldSelector::parse(s, "Event").unwrap();
        assert!(parse("involvedObject.kind=ConfigMap,involvedObject.name=demo").matches(&event));
        assert!(parse("source=x").matches(&event));
        assert!(!parse("involvedObject.name=other").matches(&event));
    }

    #[test]
    fn field_selectors_take_name_and_namespace_only() {
        let object = json!({"metadata": {"name": "a", "namespace": "ns"}});
        let parse = |s: &str| FieldSelector::parse(s, "ConfigMap");
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
}
