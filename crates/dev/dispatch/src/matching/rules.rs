//! Whether a `RuleWithOperations` matches a request (upstream's `predicates/rules`), and the
//! `matchPolicy: Equivalent` second pass.

use k8s_openapi::api::admissionregistration::v1::RuleWithOperations;

use crate::attributes::AdmissionAttributes;
use crate::configurations::MatchPolicy;

/// Whether any of the rules matches, trying the request's own version first and, under
/// `Equivalent`, any version of the same group and resource after that (upstream asks the
/// server which versions are equivalent; the sandbox serves one version per group, so every
/// other version a rule names stands for the served one, without conversion).
pub(crate) fn any_rule_matches(
    rules: &[RuleWithOperations],
    policy: MatchPolicy,
    attributes: &AdmissionAttributes,
) -> bool {
    if rules.iter().any(|rule| matches(rule, attributes, VersionCheck::Exact)) {
        return true;
    }
    policy == MatchPolicy::Equivalent
        && rules.iter().any(|rule| matches(rule, attributes, VersionCheck::AnyListed))
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum VersionCheck {
    /// The rule must list the request's version (or `*`).
    Exact,
    /// Any version the rule lists counts as an equivalent of the served one.
    AnyListed,
}

pub(crate) fn matches(
    rule: &RuleWithOperations,
    attributes: &AdmissionAttributes,
    versions: VersionCheck,
) -> bool {
    scope_matches(rule.scope.as_deref(), attributes)
        && operation_matches(rule.operations.as_deref().unwrap_or_default(), attributes)
        && exact_or_wildcard(
            rule.api_groups.as_deref().unwrap_or_default(),
            &attributes.resource.group,
        )
        && version_matches(rule.api_versions.as_deref().unwrap_or_default(), attributes, versions)
        && resource_matches(rule.resources.as_deref().unwrap_or_default(), attributes)
}

fn exact_or_wildcard(items: &[String], requested: &str) -> bool {
    items.iter().any(|item| item == "*" || item == requested)
}

fn version_matches(
    listed: &[String],
    attributes: &AdmissionAttributes,
    check: VersionCheck,
) -> bool {
    match check {
        VersionCheck::Exact => exact_or_wildcard(listed, &attributes.resource.version),
        VersionCheck::AnyListed => !listed.is_empty(),
    }
}

/// Namespace objects are cluster-scoped even though requests for them carry a namespace
/// (their own name), so upstream singles out `v1 namespaces` of the core group.
fn is_namespace_resource(attributes: &AdmissionAttributes) -> bool {
    let r = &attributes.resource;
    r.group.is_empty() && r.version == "v1" && r.resource == "namespaces"
}

fn scope_matches(scope: Option<&str>, attributes: &AdmissionAttributes) -> bool {
    match scope {
        None | Some("*") => true,
        Some("Namespaced") => {
            !is_namespace_resource(attributes) && !attributes.namespace.is_empty()
        }
        Some("Cluster") => is_namespace_resource(attributes) || attributes.namespace.is_empty(),
        Some(_) => false,
    }
}

fn operation_matches(operations: &[String], attributes: &AdmissionAttributes) -> bool {
    operations.iter().any(|op| op == "*" || op == attributes.operation.as_str())
}

/// `pods`, `pods/status`, `pods/*`, `*/status`, `*`, `*/*`: the part before the slash matches
/// the resource, the part after it the subresource (none means no subresource).
fn resource_matches(resources: &[String], attributes: &AdmissionAttributes) -> bool {
    resources.iter().any(|entry| {
        let (resource, subresource) = entry.split_once('/').unwrap_or((entry.as_str(), ""));
        (resource == "*" || resource == attributes.resource.resource)
            && (subresource == "*" || subresource == attributes.subresource)
    })
}
