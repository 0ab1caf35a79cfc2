//! The policy admission checks (spec §8), in upstream's order: unknown plugins, the
//! selector, then each built-in approver's own validation (`allowed`, `constraints`).
//!
//! No plugins are compiled into certgate, so every plugin name is unsupported and no
//! plugin validation runs (which also makes §8.3's "a plugin did not allow ... for unknown
//! reasons" unreachable).

mod allowed;
mod budget;
mod constraints;
mod oid;
mod selector;

use certgate_api::CertificateRequestPolicy;
use certgate_api::field::{BadValue, FieldError, Path};
use certgate_cel::PolicyCel;

use crate::PolicyValidation;

pub use budget::{
    Cancelled, CompileBudget, DEFAULT_COMPILE_TIME, MAX_RULE_BYTES_PER_POLICY, MAX_RULES_PER_POLICY,
};

/// Approver names registered besides the built-in `allowed` and `constraints`.
const REGISTERED_PLUGINS: &[&str] = &[];

/// The checks with no budget but the fixed limits.
pub(crate) fn validate(cel: &PolicyCel, policy: &CertificateRequestPolicy) -> PolicyValidation {
    match validate_within(cel, policy, &CompileBudget::default()) {
        Ok(validation) => validation,
        // Unreachable: nothing can cancel a review without a flag.
        Err(cancelled) => PolicyValidation {
            errors: vec![FieldError::internal(Path::new("spec"), cancelled)],
            warnings: Vec::new(),
        },
    }
}

/// The checks, compiling rules within `budget`.
pub(crate) fn validate_within(
    cel: &PolicyCel,
    policy: &CertificateRequestPolicy,
    budget: &CompileBudget,
) -> Result<PolicyValidation, Cancelled> {
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
    let mut rules = budget::Compiler::new(cel, budget);
    allowed::validate(&mut rules, spec.allowed.as_ref(), &mut errors);
    if rules.cancelled() {
        return Err(Cancelled { left: rules.skipped });
    }
    constraints::validate(spec.constraints.as_ref(), &mut errors);
    Ok(PolicyValidation { errors, warnings: rules.warnings })
}

#[cfg(test)]
mod tests;
