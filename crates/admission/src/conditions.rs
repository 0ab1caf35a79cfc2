//! Approval-condition checks shared by CREATE and UPDATE (cert-manager-requests spec §3.1,
//! §3.2): at most one `Approved` and one `Denied` condition, each only ever `True`, never
//! both, and once set never modified or removed.

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

/// The first condition of `condition_type`, the one upstream's lookups find.
pub(crate) fn find<'a>(
    conditions: &'a [CertificateRequestCondition],
    condition_type: &str,
) -> Option<&'a CertificateRequestCondition> {
    conditions.iter().find(|c| c.type_ == condition_type)
}

/// Whether an `Approved` or `Denied` condition is present in `new` but not in `old`: the
/// updates that need the signer permission check.
pub fn approval_added(
    old: &[CertificateRequestCondition],
    new: &[CertificateRequestCondition],
) -> bool {
    APPROVAL_TYPES.iter().any(|t| find(old, t).is_none() && find(new, t).is_some())
}

/// Validates an UPDATE of `status.conditions`: an `Approved` or `Denied` condition set in
/// `old` must be unchanged in `new` (status, reason, message and lastTransitionTime), then
/// the CREATE rules run on `new`.
pub fn validate_approval_conditions_update(
    old: &[CertificateRequestCondition],
    new: &[CertificateRequestCondition],
) -> Vec<FieldError> {
    let path = Path::new("status").child("conditions");
    let mut errors = Vec::new();
    for condition_type in APPROVAL_TYPES {
        let Some(before) = find(old, condition_type) else { continue };
        if !find(new, condition_type).is_some_and(|after| same_condition(before, after)) {
            let detail = format!("'{condition_type}' condition may not be modified once set");
            errors.push(FieldError::forbidden(path.clone(), detail));
        }
    }
    errors.extend(validate_approval_conditions(new));
    errors
}

/// Go's deep equality of two conditions. Reason and message are plain strings there, so
/// an absent one equals an empty one; the time is compared as written.
fn same_condition(a: &CertificateRequestCondition, b: &CertificateRequestCondition) -> bool {
    fn text(s: &Option<String>) -> &str {
        s.as_deref().unwrap_or_default()
    }
    a.type_ == b.type_
        && a.status == b.status
        && text(&a.reason) == text(&b.reason)
        && text(&a.message) == text(&b.message)
        && a.last_transition_time == b.last_transition_time
}
