//! `labelSelector` and `fieldSelector` query parameters, in Kubernetes' string syntax.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::status::ApiError;

pub(crate) use crate::field_selectors::FieldSelector;

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
pub(crate) fn terms(text: &str) -> Vec<&str> {
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
    ApiError::bad_request(format!(
        "unable to parse requirement: {why} in selector {}",
        certgate_gofmt::quote(selector)
    ))
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
                return Err(invalid(
                    text,
                    &format!("invalid term {}", certgate_gofmt::quote(term)),
                ));
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
}
