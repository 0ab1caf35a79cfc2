//! CertificateRequest validation on CREATE (cert-manager-requests spec §3.1).

use certgate_api::CertificateRequest;
use certgate_api::field::{FieldError, Path};

use crate::conditions::validate_approval_conditions;
use crate::{issuer_ref, request};

/// Spec validation then approval-condition validation, in upstream order: issuerRef
/// errors, then the request error (at most one), then condition errors.
pub fn validate_create(cr: &CertificateRequest) -> Vec<FieldError> {
    let spec_path = Path::new("spec");
    let mut errors = issuer_ref::validate(&cr.spec.issuer_ref, &spec_path);
    errors.extend(request::validate(&cr.spec, &spec_path));

    let conditions = cr.status.as_ref().and_then(|s| s.conditions.as_deref()).unwrap_or_default();
    errors.extend(validate_approval_conditions(conditions));
    errors
}
