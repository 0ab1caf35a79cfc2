//! The request options every verb decodes from the query before it does anything, with the
//! API server's answers: numbers that do not parse are 400 (the query parameter codec,
//! k8s.io/apimachinery/pkg/runtime/conversion.go), options that break
//! k8s.io/apimachinery/pkg/apis/meta/v1/validation/validation.go (`fieldManager`, `dryRun`,
//! `fieldValidation`, `propagationPolicy`) and
//! k8s.io/apimachinery/pkg/apis/meta/internalversion/validation (`resourceVersionMatch`)
//! are 422 on `<Kind>Options.meta.k8s.io ""`, and a list `resourceVersion` that is not a
//! number is the 500 the storage layer's `ParseResourceVersion` gives
//! (k8s.io/apiserver/pkg/storage/api_object_versioner.go).
//!
//! Before this, `dryRun=all` (any value but `All`) silently performed a real write.

use std::collections::HashMap;

use axum::http::Method;
use certgate_api::field::{BadValue, ErrorType, FieldError, Path};
use serde_json::Value;

use crate::status::ApiError;

/// Upstream's limit on `fieldManager` (`FieldManagerMaxLength`), which server-side apply in
/// the patch crate checks too.
pub use certgate_patch::MAX_FIELD_MANAGER_LEN;

/// Checks the query options of a request; `watch` requests leave their list options to
/// the watch handler.
pub fn check(
    method: &Method,
    is_collection: bool,
    query: &HashMap<String, String>,
) -> Result<(), ApiError> {
    match *method {
        Method::GET if is_collection => list_options(query),
        Method::POST => write_options("CreateOptions", query),
        Method::PUT => write_options("UpdateOptions", query),
        Method::PATCH => write_options("PatchOptions", query),
        Method::DELETE => delete_options(query, None),
        _ => Ok(()),
    }
}

fn list_options(query: &HashMap<String, String>) -> Result<(), ApiError> {
    for name in ["limit", "timeoutSeconds"] {
        if let Some(value) = query.get(name) {
            parse_int64(value)?;
        }
    }
    if is_watch(query) {
        return Ok(());
    }
    let resource_version = query.get("resourceVersion").map(String::as_str).unwrap_or_default();
    let continue_token = query.get("continue").map(String::as_str).unwrap_or_default();
    let mut errors = Vec::new();
    let path = Path::new("resourceVersionMatch");
    if let Some(wanted) = query.get("resourceVersionMatch").filter(|m| !m.is_empty()) {
        if resource_version.is_empty() {
            errors.push(FieldError::forbidden(
                path.clone(),
                "resourceVersionMatch is forbidden unless resourceVersion is provided",
            ));
        }
        if !continue_token.is_empty() {
            errors.push(FieldError::forbidden(
                path.clone(),
                "resourceVersionMatch is forbidden when continue is provided",
            ));
        }
        if wanted != "Exact" && wanted != "NotOlderThan" {
            errors.push(FieldError::not_supported(
                path.clone(),
                BadValue::GoSyntax(certgate_gofmt::quote(wanted)),
                &["Exact", "NotOlderThan", ""],
            ));
        }
        if wanted == "Exact" && resource_version == "0" {
            errors.push(FieldError::forbidden(
                path,
                "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\"",
            ));
        }
    }
    if query.contains_key("sendInitialEvents") {
        errors.push(FieldError::forbidden(
            Path::new("sendInitialEvents"),
            "sendInitialEvents is forbidden for list",
        ));
    }
    invalid("ListOptions", &errors)?;
    // Go's `ParseUint` takes digits only (no sign); all digits that do not fit are out of
    // range rather than invalid.
    let digits =
        !resource_version.is_empty() && resource_version.bytes().all(|b| b.is_ascii_digit());
    let parses = digits && resource_version.parse::<u64>().is_ok();
    if !resource_version.is_empty() && !parses {
        return Err(ApiError::new(
            500,
            "",
            format!(
                "resourceVersion: Invalid value: {}: {}",
                certgate_gofmt::quote(resource_version),
                go_parse_error("ParseUint", resource_version, !digits)
            ),
        ));
    }
    Ok(())
}

fn is_watch(query: &HashMap<String, String>) -> bool {
    matches!(query.get("watch").map(String::as_str), Some("true" | "1"))
}

/// `strconv.ParseInt(value, 10, 64)` and its error as Go prints it.
fn parse_int64(value: &str) -> Result<i64, ApiError> {
    value.parse::<i64>().map_err(|err| {
        let out_of_range = matches!(
            err.kind(),
            std::num::IntErrorKind::PosOverflow | std::num::IntErrorKind::NegOverflow
        );
        ApiError::bad_request(go_parse_error("ParseInt", value, !out_of_range))
    })
}

/// `strconv.<function>: parsing "<value>": invalid syntax|value out of range`.
fn go_parse_error(function: &str, value: &str, syntax: bool) -> String {
    let reason = if syntax { "invalid syntax" } else { "value out of range" };
    format!("strconv.{function}: parsing {}: {reason}", certgate_gofmt::quote(value))
}

/// Create, update and patch: `fieldManager`, `dryRun`, `fieldValidation`.
fn write_options(kind: &str, query: &HashMap<String, String>) -> Result<(), ApiError> {
    let mut errors = Vec::new();
    if let Some(manager) = query.get("fieldManager") {
        errors.extend(field_manager_problems(manager));
    }
    dry_run(query.get("dryRun").map(std::slice::from_ref).unwrap_or_default(), &mut errors);
    if let Some(validation) = query.get("fieldValidation")
        && !["", "Ignore", "Strict", "Warn"].contains(&validation.as_str())
    {
        errors.push(FieldError::not_supported(
            Path::new("fieldValidation"),
            BadValue::Str(validation.clone()),
            &["", "Ignore", "Strict", "Warn"],
        ));
    }
    invalid(kind, &errors)
}

/// `fieldValidation`: what the API server does with fields a kind does not declare.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FieldValidation {
    /// Drop them silently.
    Ignore,
    /// Drop them and warn, one `Warning` per field: the API server's default (an absent
    /// or empty parameter).
    #[default]
    Warn,
    /// Refuse the request (kubectl's default).
    Strict,
}

/// How a write's body was decoded: its `fieldValidation`, and the patch type of a PATCH
/// (whose unknown fields the API server reports on the patched object).
#[derive(Clone, Copy, Debug, Default)]
pub struct Decoding {
    pub field_validation: FieldValidation,
    pub patch: Option<certgate_patch::PatchType>,
}

/// The [`Decoding`] of a request whose options [`check`] accepted.
pub fn decoding(method: &Method, content_type: &str, query: &HashMap<String, String>) -> Decoding {
    let field_validation = match query.get("fieldValidation").map(String::as_str) {
        Some("Strict") => FieldValidation::Strict,
        Some("Ignore") => FieldValidation::Ignore,
        _ => FieldValidation::Warn,
    };
    let patch = (*method == Method::PATCH)
        .then(|| certgate_patch::PatchType::from_content_type(content_type))
        .flatten();
    Decoding { field_validation, patch }
}

/// `ValidateFieldManager`: at most 128 bytes, printable characters only.
pub fn field_manager_problems(manager: &str) -> Vec<FieldError> {
    let path = Path::new("fieldManager");
    let mut errors = Vec::new();
    if manager.len() > MAX_FIELD_MANAGER_LEN {
        errors.push(FieldError {
            kind: ErrorType::TooLong,
            path: path.clone(),
            value: None,
            detail: format!("may not be more than {MAX_FIELD_MANAGER_LEN} bytes"),
        });
    }
    for (at, c) in manager.char_indices() {
        // Go's `unicode.IsPrint`: no control characters, and no space but U+0020.
        if c.is_control() || (c.is_whitespace() && c != ' ') {
            errors.push(FieldError::invalid(
                path.clone(),
                BadValue::Str(manager.to_owned()),
                format!("invalid character U+{:04X} (at position {at})", u32::from(c)),
            ));
        }
    }
    errors
}

/// `ValidateDryRun`: only `All`; the value shows as Go prints a `[]string`.
fn dry_run(values: &[String], errors: &mut Vec<FieldError>) {
    if values.iter().all(|v| v == "All") {
        return;
    }
    let quoted: Vec<String> = values.iter().map(|v| certgate_gofmt::quote(v)).collect();
    errors.push(FieldError::not_supported(
        Path::new("dryRun"),
        BadValue::GoSyntax(format!("[]string{{{}}}", quoted.join(", "))),
        &["All"],
    ));
}

/// `ValidateDeleteOptions` over the query and, when given, the DeleteOptions body.
pub fn delete_options(
    query: &HashMap<String, String>,
    body: Option<&Value>,
) -> Result<(), ApiError> {
    let mut errors = Vec::new();
    let policy = body
        .and_then(|b| b.get("propagationPolicy"))
        .and_then(Value::as_str)
        .or_else(|| query.get("propagationPolicy").map(String::as_str));
    if let Some(policy) = policy
        && !["Foreground", "Background", "Orphan"].contains(&policy)
    {
        errors.push(FieldError::not_supported(
            Path::new("propagationPolicy"),
            // A `*DeletionPropagation`: Go prints the named string type with `%#v`.
            BadValue::GoSyntax(certgate_gofmt::quote(policy)),
            &["Foreground", "Background", "Orphan", "nil"],
        ));
    }
    let body_dry_run: Option<Vec<String>> = body
        .and_then(|b| b.get("dryRun"))
        .and_then(Value::as_array)
        .map(|list| list.iter().map(|v| v.as_str().unwrap_or_default().to_owned()).collect());
    match body_dry_run {
        Some(values) => dry_run(&values, &mut errors),
        None => {
            dry_run(query.get("dryRun").map(std::slice::from_ref).unwrap_or_default(), &mut errors);
        }
    }
    invalid("DeleteOptions", &errors)
}

/// `errors.NewInvalid(GroupKind{meta.k8s.io, <kind>}, "", errs)`.
fn invalid(kind: &str, errors: &[FieldError]) -> Result<(), ApiError> {
    match certgate_api::field::aggregate(errors) {
        None => Ok(()),
        Some(aggregate) => Err(ApiError::new(
            422,
            "Invalid",
            format!("{kind}.meta.k8s.io \"\" is invalid: {aggregate}"),
        )
        .with_details(serde_json::json!({
            "group": "meta.k8s.io",
            "kind": kind,
            "causes": errors.iter().map(|e| serde_json::json!({
                "reason": e.kind.cause(), "message": e.body(), "field": e.path.as_str(),
            })).collect::<Vec<_>>(),
        }))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    }

    #[test]
    fn upstream_texts() {
        let err = check(&Method::GET, true, &query(&[("limit", "abc")])).unwrap_err();
        assert_eq!(
            (err.code, err.message.as_str()),
            (400, "strconv.ParseInt: parsing \"abc\": invalid syntax")
        );
        let err = check(&Method::GET, true, &query(&[("resourceVersion", "abc")])).unwrap_err();
        assert_eq!(
            (err.code, err.message.as_str()),
            (
                500,
                "resourceVersion: Invalid value: \"abc\": strconv.ParseUint: parsing \"abc\": invalid syntax"
            )
        );
        let err = check(&Method::POST, false, &query(&[("dryRun", "all")])).unwrap_err();
        assert_eq!(
            err.message,
            "CreateOptions.meta.k8s.io \"\" is invalid: dryRun: Unsupported value: []string{\"all\"}: supported values: \"All\""
        );
        let err =
            check(&Method::DELETE, false, &query(&[("propagationPolicy", "Later")])).unwrap_err();
        assert_eq!(
            err.message,
            "DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: Unsupported value: \"Later\": supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\""
        );
    }
}
