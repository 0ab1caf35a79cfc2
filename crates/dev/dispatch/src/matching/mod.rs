//! Which webhooks a request reaches (upstream's `ShouldCallHook`): namespace and object
//! selectors, then rules with the match policy.

mod rules;
mod selectors;

use crate::attributes::AdmissionAttributes;
use crate::configurations::Hook;
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
///
/// `matchConditions` are not evaluated: a webhook that has them is called as if they all
/// matched (documented in docs/dispatch.md).
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
    if hook.has_match_conditions {
        tracing::debug!(webhook = %hook.name, "matchConditions are not evaluated; calling the webhook as if they matched");
    }
    Ok(true)
}

#[cfg(test)]
mod tests;
