//! Approval-condition checks shared by CREATE and UPDATE (cert-manager-requests spec §3.1):
//! at most one `Approved` and one `Denied` condition, each only ever `True`, never both.

use certgate_api::CertificateRequestCondition;
use certgate_api::field::{BadValue, FieldError, Path};

/// Condition types that record an approval decision, in the order they are checked.
const APPROVAL_TYPES: [&str; 2] = ["Approved", "Denied"];
const CONDITION_TRUE: &str = "True";

/// Validates `status.conditions`. Per type, in the order `Approved`, `Denied`: more than one
/// condition is Forbidden (and its status is then not checked), a single one must be `True`.
/// Having both types is Forbidden, reported last.
pub fn validate_approval_conditions(conditions: &[CertificateRequestCondition]) -> Vec<FieldError> {
    let path = Path::new("status").child("conditions");
    let mut errors = Vec::new();

    for condition_type in APPROVAL_TYPES {
        let mut found = conditions.iter().filter(|c| c.type_ == condition_type);
        let Some(first) = found.next() else { continue };
        if found.next().is_some() {
            let detail = format!("multiple \"{condition_type}\" conditions present");
            errors.push(FieldError::forbidden(path.clone(), detail));
        } else if first.status != CONDITION_TRUE {
            // The status has a named string type upstream, so it renders as JSON.
            let value = BadValue::Json(serde_json::Value::String(first.status.clone()));
            let detail = format!("\"{condition_type}\" condition may only be set to True");
            errors.push(FieldError::invalid(path.child(condition_type), value, detail));
        }
    }

    let present = |t: &str| conditions.iter().any(|c| c.type_ == t);
    if APPROVAL_TYPES.iter().all(|t| present(t)) {
        errors.push(FieldError::forbidden(
            path,
            "both 'Denied' and 'Approved' conditions cannot coexist",
        ));
    }
    errors
}
