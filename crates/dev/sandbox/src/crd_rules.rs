//! A CustomResourceDefinition's `x-kubernetes-validations`, checked when the CRD is created
//! or updated as kube-apiserver checks them (`certgate_schema::crd_rule_errors`: rules
//! type-checked against their schema node, result types, static cost budgets). A CRD with
//! a bad rule is refused with upstream's 422 rather than stored and then failing every
//! object of its kind.

use certgate_api::field::{FieldError, Path};
use serde_json::{Value, json};

use crate::status::ApiError;

/// Versions checked at most (a CRD's version list is bounded by the request size anyway).
const MAX_VERSIONS: usize = 64;

/// Refuses `crd` when any of its versions' rules would be refused upstream.
pub fn check(crd: &Value) -> Result<(), ApiError> {
    let errors = errors(crd);
    if errors.is_empty() {
        return Ok(());
    }
    let name = crd.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default();
    let aggregate = certgate_api::field::aggregate(&errors).unwrap_or_default();
    let causes = errors
        .iter()
        .map(|e| json!({"reason": e.kind.cause(), "message": e.body(), "field": e.path.as_str()}))
        .collect();
    Err(ApiError::invalid(
        "CustomResourceDefinition.apiextensions.k8s.io",
        "apiextensions.k8s.io",
        "CustomResourceDefinition",
        name,
        &aggregate,
        Some(causes),
    ))
}

/// The API server keeps one `spec.validation` when every version has the same schema (so
/// its errors name that path), and per-version schemas otherwise.
fn errors(crd: &Value) -> Vec<FieldError> {
    let Some(versions) = crd.pointer("/spec/versions").and_then(Value::as_array) else {
        return Vec::new();
    };
    let schemas: Vec<Option<&Value>> = versions
        .iter()
        .take(MAX_VERSIONS)
        .map(|v| v.pointer("/schema/openAPIV3Schema").filter(|s| s.is_object()))
        .collect();
    let shared = schemas
        .first()
        .copied()
        .flatten()
        .filter(|first| schemas.iter().all(|s| s.is_some_and(|s| s == *first)));
    if let Some(schema) = shared {
        return certgate_schema::crd_rule_errors(
            schema,
            &Path::new("spec.validation.openAPIV3Schema"),
        );
    }
    let mut errors = Vec::new();
    for (index, schema) in schemas.iter().enumerate() {
        if let Some(schema) = schema {
            let at = Path::new("spec").child("versions").index(index).child("schema");
            errors.extend(certgate_schema::crd_rule_errors(schema, &at.child("openAPIV3Schema")));
        }
    }
    errors
}
