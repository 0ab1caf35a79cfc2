//! The policy admission checks (spec §8), in upstream's order: unknown plugins, the
//! selector, then each built-in approver's own validation (`allowed`, `constraints`).
//!
//! No plugins are compiled into certgate, so every plugin name is unsupported and no
//! plugin validation runs (which also makes §8.3's "a plugin did not allow ... for unknown
//! reasons" unreachable).

mod allowed;
mod constraints;
mod oid;
mod selector;

use certgate_api::CertificateRequestPolicy;
use certgate_api::field::{BadValue, FieldError, Path};
use certgate_cel::PolicyCel;

use crate::PolicyValidation;

/// Approver names registered besides the built-in `allowed` and `constraints`.
const REGISTERED_PLUGINS: &[&str] = &[];

pub(crate) fn validate(cel: &PolicyCel, policy: &CertificateRequestPolicy) -> PolicyValidation {
    let spec = &policy.spec;
    let mut errors = Vec::new();
    // BTreeMap keys are already sorted, as upstream sorts the unknown names.
    for name in spec.plugins.iter().flat_map(|plugins| plugins.keys()) {
        if !REGISTERED_PLUGINS.contains(&name.as_str()) {
            errors.push(FieldError::not_supported(
                Path::new("spec").child("plugins"),
                BadValue::Str(name.clone()),
                REGISTERED_PLUGINS,
            ));
        }
    }
    selector::validate(&spec.selector, &mut errors);
    allowed::validate(cel, spec.allowed.as_ref(), &mut errors);
    constraints::validate(spec.constraints.as_ref(), &mut errors);
    PolicyValidation { errors, warnings: Vec::new() }
}

#[cfg(test)]
mod tests;
