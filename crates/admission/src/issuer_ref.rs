//! `spec.issuerRef` checks (cert-manager-requests spec §3.1).

use certgate_api::IssuerReference;
use certgate_api::certificate_request::GROUP;
use certgate_api::field::{BadValue, FieldError, Path};

/// Kinds the cert-manager group serves.
const BUILT_IN_KINDS: [&str; 2] = ["Issuer", "ClusterIssuer"];

/// Validates the issuer reference under `spec_path`: a name is required, and a reference
/// to the cert-manager group (explicit or by leaving the group empty) must name one of its
/// kinds. Kinds of other groups cannot be known here and are not checked.
pub(crate) fn validate(issuer_ref: &IssuerReference, spec_path: &Path) -> Vec<FieldError> {
    let path = spec_path.child("issuerRef");
    let mut errors = Vec::new();

    if issuer_ref.name.is_empty() {
        errors.push(FieldError::required(path.child("name"), "must be specified"));
    }

    let group = issuer_ref.group.as_deref().unwrap_or_default();
    let kind = issuer_ref.kind.as_deref().unwrap_or_default();
    let cert_manager_group = group.is_empty() || group == GROUP;
    if cert_manager_group && !kind.is_empty() && !BUILT_IN_KINDS.contains(&kind) {
        let kind_path = path.child("kind");
        let mut detail = String::from("must be one of Issuer or ClusterIssuer");
        if group.is_empty() {
            // An external issuer's kind with the group forgotten is the common mistake.
            // Upstream builds the hinted path from the kind path, hence `kind.group`.
            detail.push_str(&format!(" (did you forget to set {}?)", kind_path.child("group")));
        }
        errors.push(FieldError::invalid(kind_path, BadValue::Str(kind.to_owned()), detail));
    }
    errors
}
