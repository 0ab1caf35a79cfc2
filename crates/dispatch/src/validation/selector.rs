//! `metav1validation.ValidateLabelSelector`, and the error upstream's
//! `LabelSelectorAsSelector` gives when a stored selector cannot be used for matching.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

use super::field::{FieldError, forbidden, invalid, required};
use super::names::{label_value, qualified_name};
use certgate_gofmt::{go_string_slice, quote};

/// Validation errors for a selector at `path` (`webhooks[0].namespaceSelector`). Map keys are
/// visited in sorted order (Go's map order is random).
pub(crate) fn validate(selector: &LabelSelector, path: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let labels_path = format!("{path}.matchLabels");
    for (key, value) in selector.match_labels.iter().flatten() {
        for message in qualified_name(key) {
            errors.push(invalid(&labels_path, key, &message));
        }
        for message in label_value(value) {
            errors.push(invalid(&labels_path, value, &message));
        }
    }
    for (i, requirement) in selector.match_expressions.iter().flatten().enumerate() {
        let at = format!("{path}.matchExpressions[{i}]");
        let values = requirement.values.as_deref().unwrap_or_default();
        match requirement.operator.as_str() {
            "In" | "NotIn" if values.is_empty() => errors.push(required(
                &format!("{at}.values"),
                "must be specified when `operator` is 'In' or 'NotIn'",
            )),
            "Exists" | "DoesNotExist" if !values.is_empty() => errors.push(forbidden(
                &format!("{at}.values"),
                "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
            )),
            "In" | "NotIn" | "Exists" | "DoesNotExist" => {}
            other => errors.push(invalid(
                &format!("{at}.operator"),
                other,
                "not a valid selector operator",
            )),
        }
        for message in qualified_name(&requirement.key) {
            errors.push(invalid(&format!("{at}.key"), &requirement.key, &message));
        }
        for (j, value) in values.iter().enumerate() {
            for message in label_value(value) {
                errors.push(invalid(&format!("{at}.values[{j}]"), value, &message));
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

/// `labels.NewRequirement`'s checks, as the aggregate message it returns.
fn requirement_error(key: &str, operator: &str, values: &[String]) -> Option<String> {
    let mut errors: Vec<String> = qualified_name(key)
        .into_iter()
        .map(|m| format!("key: Invalid value: {}: {m}", quote(key)))
        .collect();
    let rendered = go_string_slice("string", values);
    match operator {
        "in" | "notin" if values.is_empty() => errors.push(format!(
            "values: Invalid value: {rendered}: for 'in', 'notin' operators, values set can't be empty"
        )),
        "=" if values.len() != 1 => errors.push(format!(
            "values: Invalid value: {rendered}: exact-match compatibility requires one single value"
        )),
        "exists" | "!" if !values.is_empty() => errors.push(format!(
            "values: Invalid value: {rendered}: values set must be empty for exists and does not exist"
        )),
        _ => {}
    }
    for (i, value) in values.iter().enumerate() {
        for message in label_value(value) {
            errors.push(format!("values[{i}][{key}]: Invalid value: {}: {message}", quote(value)));
        }
    }
    match errors.len() {
        0 => None,
        1 => errors.pop(),
        _ => Some(format!("[{}]", errors.join(", "))),
    }
}
