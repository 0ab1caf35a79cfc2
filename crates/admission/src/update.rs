//! CertificateRequest UPDATE validation (cert-manager-requests spec §3.2): cert-manager
//! annotations, approval conditions, then the spec, all immutable.

use std::collections::BTreeMap;

use certgate_api::field::{FieldError, Path};
use certgate_api::gofmt::GoDuration;
use certgate_api::{CertificateRequest, CertificateRequestCondition, CertificateRequestSpec};

use crate::conditions::validate_approval_conditions_update;

/// Annotation keys with these prefixes are cert-manager's. A plain prefix test, without
/// the `/`, as upstream does (so `cert-manager.iox` matches too).
const PROTECTED_PREFIXES: [&str; 2] = ["cert-manager.io", "acme.cert-manager.io"];

pub(crate) fn validate_update(
    old: &CertificateRequest,
    new: &CertificateRequest,
) -> Vec<FieldError> {
    let mut errors =
        annotation_errors(old.metadata.annotations.as_ref(), new.metadata.annotations.as_ref());
    errors.extend(validate_approval_conditions_update(conditions(old), conditions(new)));
    if !same_spec(&old.spec, &new.spec) {
        errors.push(FieldError::forbidden(Path::new("spec"), "cannot change spec after creation"));
    }
    errors
}

pub(crate) fn conditions(cr: &CertificateRequest) -> &[CertificateRequestCondition] {
    cr.status.as_ref().and_then(|s| s.conditions.as_deref()).unwrap_or_default()
}

/// Every cert-manager annotation added, removed or changed. Checked old→new then new→old
/// as upstream, so a changed value is reported twice (the aggregate drops the repeat).
/// Upstream's order within a pass is Go map order, i.e. unspecified; here it is key order.
fn annotation_errors(
    old: Option<&BTreeMap<String, String>>,
    new: Option<&BTreeMap<String, String>>,
) -> Vec<FieldError> {
    let empty = BTreeMap::new();
    let (old, new) = (old.unwrap_or(&empty), new.unwrap_or(&empty));
    let path = Path::new("metadata").child("annotations");
    let mut errors = Vec::new();
    for (from, to) in [(old, new), (new, old)] {
        for (key, value) in from {
            let protected = PROTECTED_PREFIXES.iter().any(|p| key.starts_with(p));
            if protected && to.get(key) != Some(value) {
                errors.push(FieldError::forbidden(
                    path.child(key),
                    "cannot change cert-manager annotation after creation",
                ));
            }
        }
    }
    errors
}

/// Go's deep equality of the two specs as upstream decodes them: plain string and bool
/// fields where absent equals the zero value, and the duration compared as a parsed
/// `time.Duration` (so `1h` equals `60m`).
fn same_spec(old: &CertificateRequestSpec, new: &CertificateRequestSpec) -> bool {
    if old == new {
        return true;
    }
    let (old, new) = (go_view(old), go_view(new));
    let durations_equal = match (&old.duration, &new.duration) {
        (Some(a), Some(b)) => match (GoDuration::parse(a), GoDuration::parse(b)) {
            (Ok(a), Ok(b)) => a == b,
            _ => a == b,
        },
        (a, b) => a == b,
    };
    durations_equal
        && CertificateRequestSpec { duration: None, ..old }
            == CertificateRequestSpec { duration: None, ..new }
}

/// The spec with the zero values Go cannot tell from absent ones normalised to absent.
fn go_view(spec: &CertificateRequestSpec) -> CertificateRequestSpec {
    let text = |s: &Option<String>| s.clone().filter(|s| !s.is_empty());
    let mut view = spec.clone();
    view.issuer_ref.kind = text(&spec.issuer_ref.kind);
    view.issuer_ref.group = text(&spec.issuer_ref.group);
    view.username = text(&spec.username);
    view.uid = text(&spec.uid);
    view.is_ca = spec.is_ca.filter(|ca| *ca);
    view
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_compare_as_go_decodes_them() {
        let base = CertificateRequestSpec { duration: Some("1h".to_owned()), ..Default::default() };
        let same = CertificateRequestSpec {
            duration: Some("60m".to_owned()),
            is_ca: Some(false),
            uid: Some(String::new()),
            ..Default::default()
        };
        assert!(same_spec(&base, &same));
        let longer = CertificateRequestSpec { duration: Some("2h".to_owned()), ..same.clone() };
        assert!(!same_spec(&base, &longer));
        // Unset and empty lists are different values in Go.
        let usages = CertificateRequestSpec { usages: Some(vec![]), ..same };
        assert!(!same_spec(&base, &usages));
    }
}
