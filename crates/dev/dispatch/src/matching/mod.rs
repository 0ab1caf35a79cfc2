//! Which webhooks a request reaches (upstream's `ShouldCallHook`): namespace and object
//! selectors, then rules with the match policy.

mod rules;
mod selectors;

use crate::attributes::AdmissionAttributes;
use crate::configurations::Hook;
use crate::match_conditions::{self, Decision};
use crate::rejection::Rejection;

/// Kinds whose writes never reach webhooks, so a broken webhook cannot lock the cluster out
/// of fixing its own configuration.
const EXEMPT_KINDS: [&str; 6] = [
    "ValidatingWebhookConfiguration",
    "MutatingWebhookConfiguration",
    "ValidatingAdmissionPolicy",
    "ValidatingAdmissionPolicyBinding",
    "MutatingAdmissionPolicy",
    "MutatingAdmissionPolicyBinding",
];

/// Whether the request is for an admission configuration, which webhooks never see.
pub(crate) fn is_exempt(attributes: &AdmissionAttributes) -> bool {
    attributes.kind.group == "admissionregistration.k8s.io"
        && EXEMPT_KINDS.contains(&attributes.kind.kind.as_str())
}

/// Whether `hook` must be called for the request. Selector errors only count when a rule
/// matches, as upstream: a broken selector on an unrelated webhook does not fail requests.
/// `matchConditions` are evaluated last, only for webhooks everything else selects.
pub(crate) fn should_call(
    hook: &Hook,
    attributes: &AdmissionAttributes,
) -> Result<bool, Box<Rejection>> {
    let namespace = selectors::namespace_matches(hook.namespace_selector.as_ref(), attributes);
    if matches!(namespace, Ok(false)) {
        return Ok(false);
    }
    let object = selectors::object_matches(hook.object_selector.as_ref(), attributes);
    if matches!(object, Ok(false)) {
        return Ok(false);
    }
    if !rules::any_rule_matches(&hook.rules, hook.match_policy, attributes) {
        return Ok(false);
    }
    namespace?;
    object?;
    match match_conditions::decide(&hook.match_conditions, hook.failure_policy, attributes) {
        Decision::Call => Ok(true),
        Decision::Skip => Ok(false),
        Decision::Refuse(message) => {
            tracing::warn!(webhook = %hook.name, %message, "Failed evaluating match conditions, failing closed");
            Err(Box::new(Rejection::forbidden(
                &attributes.resource.group_resource(),
                &attributes.resource.group,
                &attributes.resource.resource,
                &attributes.name,
                &message,
            )))
        }
    }
}

#[cfg(test)]
mod tests;
