//! `anyOf`, `oneOf`, `allOf` and `not` as value validations. Upstream reports a failed
//! junctor as an error without a field (`<nil>: Invalid value: "": "spec" must validate
//! ...`) followed by the errors of the branch that came closest.

use serde_json::Value;

use certgate_api::field::{BadValue, FieldError, Path};
use certgate_api::gofmt;

use crate::check::check as check_value;
use crate::node::Node;

fn composite(detail: String) -> FieldError {
    FieldError::invalid(Path::new("<nil>"), BadValue::Str(String::new()), detail)
}

/// Each branch's errors, in order.
fn branches(nodes: &[Node], value: &Value, name: &str) -> Vec<Vec<FieldError>> {
    nodes
        .iter()
        .map(|node| {
            let mut errors = Vec::new();
            check_value(node, value, name, &mut errors);
            errors
        })
        .collect()
}

/// The failing branch upstream reports: it keeps the one with the most passed checks; the
/// fewest errors (first on ties) approximates that.
fn closest(results: Vec<Vec<FieldError>>) -> Vec<FieldError> {
    results.into_iter().filter(|errors| !errors.is_empty()).min_by_key(Vec::len).unwrap_or_default()
}

pub(crate) fn check(node: &Node, value: &Value, name: &str, errors: &mut Vec<FieldError>) {
    let quoted = gofmt::quote(name);
    if !node.any_of.is_empty() {
        let results = branches(&node.any_of, value, name);
        if !results.iter().any(Vec::is_empty) {
            errors.push(composite(format!("{quoted} must validate at least one schema (anyOf)")));
            errors.extend(closest(results));
        }
    }
    if !node.one_of.is_empty() {
        let results = branches(&node.one_of, value, name);
        let valid = results.iter().filter(|errors| errors.is_empty()).count();
        if valid != 1 {
            let found = if valid == 0 {
                "Found none valid".to_owned()
            } else {
                format!("Found {valid} valid alternatives")
            };
            errors.push(composite(format!(
                "{quoted} must validate one and only one schema (oneOf). {found}"
            )));
            if valid == 0 {
                errors.extend(closest(results));
            }
        }
    }
    if !node.all_of.is_empty() {
        let results = branches(&node.all_of, value, name);
        let valid = results.iter().filter(|errors| errors.is_empty()).count();
        let total = results.len();
        errors.extend(results.into_iter().flatten());
        if valid != total {
            let none = if valid == 0 { ". None validated" } else { "" };
            errors.push(composite(format!("{quoted} must validate all the schemas (allOf){none}")));
        }
    }
    if let Some(not) = &node.not {
        let mut not_errors = Vec::new();
        check_value(not, value, name, &mut not_errors);
        if not_errors.is_empty() {
            errors.push(composite(format!("{quoted} must not validate the schema (not)")));
        }
    }
}
