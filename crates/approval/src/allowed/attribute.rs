//! The per-attribute algorithm of `allowed` (spec §4.2): `required` on an empty attribute,
//! "no allowed value(s)" when nothing is configured, the wildcard `value(s)` check, and the
//! CEL `validations`, which run whether or not the values matched.

use certgate_api::field::{BadValue, FieldError, Path};
use certgate_api::policy::{AllowedOtherName, AllowedString, AllowedStringSlice, ValidationRule};
use certgate_cel::{BoundRequest, PolicyCel};

use crate::wildcard;

/// What every attribute check needs besides the attribute: the CEL environment and the
/// `cr` variable (built once per review).
pub(crate) struct Context<'c> {
    pub cel: &'c PolicyCel,
    pub cr: &'c BoundRequest,
}

/// The `values` / `required` / `validations` of a multi-valued attribute, whichever policy
/// field it comes from.
#[derive(Clone, Copy)]
pub(crate) struct SliceRule<'p> {
    pub values: Option<&'p [String]>,
    pub required: bool,
    pub validations: &'p [ValidationRule],
}

impl<'p> SliceRule<'p> {
    pub(crate) fn of(slice: &'p AllowedStringSlice) -> Self {
        SliceRule {
            values: slice.values.as_deref(),
            required: slice.required == Some(true),
            validations: slice.validations.as_deref().unwrap_or_default(),
        }
    }

    pub(crate) fn of_entry(entry: &'p AllowedOtherName) -> Self {
        SliceRule {
            values: entry.values.as_deref(),
            required: entry.required == Some(true),
            validations: entry.validations.as_deref().unwrap_or_default(),
        }
    }
}

/// Checks a multi-valued attribute (`dnsNames`, subject slices, one otherName OID, ...).
pub(crate) fn check_slice(
    cx: &Context<'_>,
    values: &[&str],
    rule: Option<SliceRule<'_>>,
    path: &dyn Fn() -> Path,
    errors: &mut Vec<FieldError>,
) {
    if values.is_empty() {
        // Absent from the request: only `required` matters, validations do not run.
        if rule.is_some_and(|r| r.required) {
            errors.push(FieldError::required(path().child("required"), "true"));
        }
        return;
    }
    let Some(rule) = rule.filter(|r| r.values.is_some() || !r.validations.is_empty()) else {
        errors.push(FieldError::invalid(path(), json_list(values), "no allowed values"));
        return;
    };
    if let Some(patterns) = rule.values
        && !wildcard::subset(patterns, values)
    {
        errors.push(FieldError::invalid(
            path().child("values"),
            json_list(values),
            patterns.join(", "),
        ));
    }
    run_validations(cx, rule.validations, values, path, errors);
}

/// Checks a single-valued attribute (one CN or serialNumber value).
pub(crate) fn check_string(
    cx: &Context<'_>,
    value: &str,
    rule: Option<&AllowedString>,
    path: &dyn Fn() -> Path,
    errors: &mut Vec<FieldError>,
) {
    let validations = rule.and_then(|r| r.validations.as_deref()).unwrap_or_default();
    if value.is_empty() {
        if rule.is_some_and(|r| r.required == Some(true)) {
            errors.push(FieldError::required(path().child("required"), "true"));
        }
        return;
    }
    let Some(rule) = rule.filter(|r| r.value.is_some() || !validations.is_empty()) else {
        errors.push(FieldError::invalid(
            path(),
            BadValue::Str(value.to_owned()),
            "no allowed value",
        ));
        return;
    };
    if let Some(pattern) = &rule.value
        && !wildcard::matches(pattern, value)
    {
        errors.push(FieldError::invalid(
            path().child("value"),
            BadValue::Str(value.to_owned()),
            pattern.clone(),
        ));
    }
    run_validations(cx, validations, &[value], path, errors);
}

/// Every rule against every value, value by value. Each rule is fetched from the CEL cache
/// once per attribute, not once per value.
fn run_validations(
    cx: &Context<'_>,
    rules: &[ValidationRule],
    values: &[&str],
    path: &dyn Fn() -> Path,
    errors: &mut Vec<FieldError>,
) {
    if rules.is_empty() {
        return;
    }
    let programs: Vec<_> = rules.iter().map(|rule| cx.cel.compile(&rule.rule)).collect();
    let rule_path = |i: usize| path().child("validations").index(i);
    for value in values {
        for (i, (rule, program)) in rules.iter().zip(&programs).enumerate() {
            match program.as_ref().map(|program| program.eval_bound(value, cx.cr)) {
                Err(compile) => errors.push(FieldError::internal(rule_path(i), compile)),
                Ok(Err(runtime)) => errors.push(FieldError::internal(rule_path(i), runtime)),
                Ok(Ok(true)) => {}
                Ok(Ok(false)) => errors.push(FieldError::invalid(
                    rule_path(i),
                    BadValue::Str((*value).to_owned()),
                    failure_detail(rule),
                )),
            }
        }
    }
}

/// The rule's `message` as given (even empty), else `failed rule: <rule>`.
fn failure_detail(rule: &ValidationRule) -> String {
    match &rule.message {
        Some(message) => message.clone(),
        None => format!("failed rule: {}", rule.rule),
    }
}

/// A Go `[]string` bad value (rendered as JSON).
pub(crate) fn json_list(values: &[&str]) -> BadValue {
    BadValue::Json(serde_json::Value::Array(
        values.iter().map(|v| serde_json::Value::String((*v).to_owned())).collect(),
    ))
}
