//! `metav1validation.ValidateLabelSelector`, and the error upstream's
//! `LabelSelectorAsSelector` gives when a stored selector cannot be used for matching.

use certgate_api::field::{FieldError, Path, aggregate};
use certgate_gofmt::quote;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

use super::field::{go_slice, string};
use super::names::{label_value, qualified_name};

/// Validation errors for a selector at `path` (`webhooks[0].namespaceSelector`). Map keys are
/// visited in sorted order (Go's map order is random).
pub(crate) fn validate(selector: &LabelSelector, path: &Path) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let labels_path = path.child("matchLabels");
    for (key, value) in selector.match_labels.iter().flatten() {
        for message in qualified_name(key) {
            errors.push(FieldError::invalid(labels_path.clone(), string(key), message));
        }
        for message in label_value(value) {
            errors.push(FieldError::invalid(labels_path.clone(), string(value), message));
        }
    }
    for (i, requirement) in selector.match_expressions.iter().flatten().enumerate() {
        let at = path.child("matchExpressions").index(i);
        let values = requirement.values.as_deref().unwrap_or_default();
        match requirement.operator.as_str() {
            "In" | "NotIn" if values.is_empty() => errors.push(FieldError::required(
                at.child("values"),
                "must be specified when `operator` is 'In' or 'NotIn'",
            )),
            "Exists" | "DoesNotExist" if !values.is_empty() => errors.push(FieldError::forbidden(
                at.child("values"),
                "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
            )),
            "In" | "NotIn" | "Exists" | "DoesNotExist" => {}
            other => errors.push(FieldError::invalid(
                at.child("operator"),
                string(other),
                "not a valid selector operator",
            )),
        }
        for message in qualified_name(&requirement.key) {
            errors.push(FieldError::invalid(at.child("key"), string(&requirement.key), message));
        }
        for (j, value) in values.iter().enumerate() {
            for message in label_value(value) {
                errors.push(FieldError::invalid(
                    at.child("values").index(j),
                    string(value),
                    message,
                ));
            }
        }
    }
    errors
}

/// The first reason `LabelSelectorAsSelector` would refuse the selector, in its words, or
/// `None` when it can be used. Only reachable for objects stored without validation.
pub(crate) fn unusable(selector: &LabelSelector) -> Option<String> {
    for (key, value) in selector.match_labels.iter().flatten() {
        if let Some(error) = requirement_error(key, "=", std::slice::from_ref(value)) {
            return Some(error);
        }
    }
    for requirement in selector.match_expressions.iter().flatten() {
        let operator = match requirement.operator.as_str() {
            "In" => "in",
            "NotIn" => "notin",
            "Exists" => "exists",
            "DoesNotExist" => "!",
            other => {
                return Some(format!("{} is not a valid label selector operator", quote(other)));
            }
        };
        let values = requirement.values.as_deref().unwrap_or_default();
        if let Some(error) = requirement_error(&requirement.key, operator, values) {
            return Some(error);
        }
    }
    None
}

/// `labels.NewRequirement`'s checks, as the aggregate message it returns. Its paths have no
/// root: `key`, `values`, `values[0][<key>]`.
fn requirement_error(key: &str, operator: &str, values: &[String]) -> Option<String> {
    let mut errors: Vec<FieldError> = qualified_name(key)
        .into_iter()
        .map(|m| FieldError::invalid(Path::new("key"), string(key), m))
        .collect();
    let values_path = Path::new("values");
    let invalid_values =
        |detail: &str| FieldError::invalid(values_path.clone(), go_slice("string", values), detail);
    match operator {
        "in" | "notin" if values.is_empty() => {
            errors.push(invalid_values("for 'in', 'notin' operators, values set can't be empty"))
        }
        "=" if values.len() != 1 => {
            errors.push(invalid_values("exact-match compatibility requires one single value"))
        }
        "exists" | "!" if !values.is_empty() => {
            errors.push(invalid_values("values set must be empty for exists and does not exist"))
        }
        _ => {}
    }
    for (i, value) in values.iter().enumerate() {
        for message in label_value(value) {
            let at = values_path.index(i).key(key);
            errors.push(FieldError::invalid(at, string(value), message));
        }
    }
    aggregate(&errors)
}
