//! CertificateRequest validation on CREATE (cert-manager-requests spec §3.1).

use certgate_api::CertificateRequest;
use certgate_api::field::FieldError;

/// Spec validation then approval-condition validation, in upstream order.
pub fn validate_create(cr: &CertificateRequest) -> Vec<FieldError> {
    let _ = cr;
    todo!("admission crate owner")
}
