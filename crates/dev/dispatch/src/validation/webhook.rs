//! One webhook's fields (upstream's `validateMutatingWebhook`/`validateValidatingWebhook`,
//! rules, review versions and match conditions), in upstream's order.

use certgate_api::field::{BadValue, FieldError, Path};
use k8s_openapi::api::admissionregistration::v1::{MatchCondition, RuleWithOperations};

use super::WebhookView;
use super::client_config;
use super::field::{go_slice, string};
use super::names::{dns1035_label, dns1123_subdomain, qualified_name};
use super::selector;

const SCOPES: [&str; 3] = ["*", "Cluster", "Namespaced"];
const OPERATIONS: [&str; 5] = ["*", "CONNECT", "CREATE", "DELETE", "UPDATE"];
const FAILURE_POLICIES: [&str; 2] = ["Fail", "Ignore"];
const MATCH_POLICIES: [&str; 2] = ["Equivalent", "Exact"];
const NO_SIDE_EFFECTS: [&str; 2] = ["None", "NoneOnDryRun"];
const REINVOCATION_POLICIES: [&str; 2] = ["IfNeeded", "Never"];
const REVIEW_VERSIONS: [&str; 2] = ["v1", "v1beta1"];
const MAX_MATCH_CONDITIONS: usize = 64;

/// `IsFullyQualifiedName`: a DNS subdomain with at least three segments.
fn fully_qualified_name(path: Path, name: &str) -> Vec<FieldError> {
    if name.is_empty() {
        return vec![FieldError::required(path, "")];
    }
    let problems = dns1123_subdomain(name);
    if !problems.is_empty() {
        return vec![FieldError::invalid(path, string(name), problems.join(","))];
    }
    if name.split('.').count() < 3 {
        return vec![FieldError::invalid(
            path,
            string(name),
            "should be a domain with at least three segments separated by dots",
        )];
    }
    Vec::new()
}

fn has_wildcard(items: &[String]) -> bool {
    items.iter().any(|i| i == "*")
}

fn validate_resources(path: &Path, resources: &[String]) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if resources.is_empty() {
        errors.push(FieldError::required(path.clone(), ""));
    }
    let mut with_wildcard_subresource = std::collections::HashSet::new();
    let mut with_wildcard_resource = std::collections::HashSet::new();
    let mut has_double_wildcard = false;
    let mut has_single_wildcard = false;
    let mut has_resource_without_subresource = false;
    for (i, entry) in resources.iter().enumerate() {
        let at = path.index(i);
        if entry.is_empty() {
            errors.push(FieldError::required(at, ""));
            continue;
        }
        has_double_wildcard |= entry == "*/*";
        has_single_wildcard |= entry == "*";
        let Some((resource, subresource)) = entry.split_once('/') else {
            // Upstream overwrites rather than accumulates this flag: only the last plain
            // entry counts.
            has_resource_without_subresource = entry != "*";
            continue;
        };
        if with_wildcard_subresource.contains(resource) {
            errors.push(FieldError::invalid(
                at.clone(),
                string(entry),
                format!("if '{resource}/*' is present, must not specify {entry}"),
            ));
        }
        if with_wildcard_resource.contains(subresource) {
            errors.push(FieldError::invalid(
                at,
                string(entry),
                format!("if '*/{subresource}' is present, must not specify {entry}"),
            ));
        }
        if subresource == "*" {
            with_wildcard_subresource.insert(resource);
        }
        if resource == "*" {
            with_wildcard_resource.insert(subresource);
        }
    }
    if resources.len() > 1 && has_double_wildcard {
        errors.push(FieldError::invalid(
            path.clone(),
            go_slice("string", resources),
            "if '*/*' is present, must not specify other resources",
        ));
    }
    if has_single_wildcard && has_resource_without_subresource {
        errors.push(FieldError::invalid(
            path.clone(),
            go_slice("string", resources),
            "if '*' is present, must not specify other resources without subresources",
        ));
    }
    errors
}

fn validate_rule(path: &Path, rule: &RuleWithOperations) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let operations = rule.operations.as_deref().unwrap_or_default();
    let ops_path = path.child("operations");
    if operations.is_empty() {
        errors.push(FieldError::required(ops_path.clone(), ""));
    }
    if operations.len() > 1 && has_wildcard(operations) {
        errors.push(FieldError::invalid(
            ops_path.clone(),
            go_slice("admissionregistration.OperationType", operations),
            "if '*' is present, must not specify other operations",
        ));
    }
    for (i, operation) in operations.iter().enumerate() {
        if !OPERATIONS.contains(&operation.as_str()) {
            errors.push(FieldError::not_supported(
                ops_path.index(i),
                string(operation),
                &OPERATIONS,
            ));
        }
    }
    let groups = rule.api_groups.as_deref().unwrap_or_default();
    let groups_path = path.child("apiGroups");
    if groups.is_empty() {
        errors.push(FieldError::required(groups_path.clone(), ""));
    }
    if groups.len() > 1 && has_wildcard(groups) {
        errors.push(FieldError::invalid(
            groups_path,
            go_slice("string", groups),
            "if '*' is present, must not specify other API groups",
        ));
    }
    let versions = rule.api_versions.as_deref().unwrap_or_default();
    let versions_path = path.child("apiVersions");
    if versions.is_empty() {
        errors.push(FieldError::required(versions_path.clone(), ""));
    }
    if versions.len() > 1 && has_wildcard(versions) {
        errors.push(FieldError::invalid(
            versions_path.clone(),
            go_slice("string", versions),
            "if '*' is present, must not specify other API versions",
        ));
    }
    for (i, version) in versions.iter().enumerate() {
        if version.is_empty() {
            errors.push(FieldError::required(versions_path.index(i), ""));
        }
    }
    errors.extend(validate_resources(
        &path.child("resources"),
        rule.resources.as_deref().unwrap_or_default(),
    ));
    if let Some(scope) = &rule.scope
        && !SCOPES.contains(&scope.as_str())
    {
        errors.push(FieldError::not_supported(path.child("scope"), string(scope), &SCOPES));
    }
    errors
}

fn validate_match_conditions(path: &Path, conditions: &[MatchCondition]) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if conditions.len() > MAX_MATCH_CONDITIONS {
        errors.push(FieldError::too_many(path.clone(), conditions.len(), MAX_MATCH_CONDITIONS));
    }
    let mut names = std::collections::HashSet::new();
    for (i, condition) in conditions.iter().enumerate() {
        let at = path.index(i);
        let expression = condition.expression.trim();
        if expression.is_empty() {
            errors.push(FieldError::required(at.child("expression"), ""));
        } else if let Err(detail) = crate::match_conditions::compile(expression) {
            // Upstream compiles the trimmed text and shows it as the value.
            errors.push(FieldError::invalid(at.child("expression"), string(expression), detail));
        }
        let name_path = at.child("name");
        if condition.name.is_empty() {
            errors.push(FieldError::required(name_path.clone(), ""));
        } else {
            for message in qualified_name(&condition.name) {
                errors.push(FieldError::invalid(
                    name_path.clone(),
                    string(&condition.name),
                    message,
                ));
            }
        }
        if !condition.name.is_empty() && !names.insert(condition.name.as_str()) {
            errors.push(FieldError::duplicate(name_path, string(&condition.name)));
        }
    }
    errors
}

/// `validateAdmissionReviewVersions` with a recognized version required.
fn validate_review_versions(path: &Path, versions: &[String]) -> Vec<FieldError> {
    if versions.is_empty() {
        return vec![FieldError::required(
            path.clone(),
            format!("must specify one of {}", REVIEW_VERSIONS.join(", ")),
        )];
    }
    let mut errors = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (i, version) in versions.iter().enumerate() {
        let at = path.index(i);
        if !seen.insert(version.as_str()) {
            errors.push(FieldError::invalid(at, string(version), "duplicate version"));
            continue;
        }
        for message in dns1035_label(version) {
            errors.push(FieldError::invalid(at.clone(), string(version), message));
        }
    }
    if !versions.iter().any(|v| REVIEW_VERSIONS.contains(&v.as_str())) {
        errors.push(FieldError::invalid(
            path.clone(),
            go_slice("string", versions),
            format!("must include at least one of {}", REVIEW_VERSIONS.join(", ")),
        ));
    }
    errors
}

/// All errors for the webhook at `path` (`webhooks[0]`), review versions included.
pub(crate) fn validate(path: &Path, webhook: &WebhookView<'_>) -> Vec<FieldError> {
    let mut errors = fully_qualified_name(path.child("name"), webhook.name);
    for (i, rule) in webhook.rules.iter().enumerate() {
        errors.extend(validate_rule(&path.child("rules").index(i), rule));
    }
    let not_supported = |field: &str, value: &str, supported: &[&str]| {
        FieldError::not_supported(path.child(field), string(value), supported)
    };
    if let Some(policy) = webhook.failure_policy
        && !FAILURE_POLICIES.contains(&policy)
    {
        errors.push(not_supported("failurePolicy", policy, &FAILURE_POLICIES));
    }
    if let Some(policy) = webhook.match_policy
        && !MATCH_POLICIES.contains(&policy)
    {
        errors.push(not_supported("matchPolicy", policy, &MATCH_POLICIES));
    }
    match webhook.side_effects {
        "" => errors.push(FieldError::required(
            path.child("sideEffects"),
            format!("must specify one of {}", NO_SIDE_EFFECTS.join(", ")),
        )),
        class if !NO_SIDE_EFFECTS.contains(&class) => {
            errors.push(not_supported("sideEffects", class, &NO_SIDE_EFFECTS))
        }
        _ => {}
    }
    if let Some(timeout) = webhook.timeout_seconds
        && !(1..=30).contains(&timeout)
    {
        errors.push(FieldError::invalid(
            path.child("timeoutSeconds"),
            BadValue::Int(timeout.into()),
            "the timeout value must be between 1 and 30 seconds",
        ));
    }
    if let Some(s) = webhook.namespace_selector {
        errors.extend(selector::validate(s, &path.child("namespaceSelector")));
    }
    if let Some(s) = webhook.object_selector {
        errors.extend(selector::validate(s, &path.child("objectSelector")));
    }
    if let Some(policy) = webhook.reinvocation_policy
        && !REINVOCATION_POLICIES.contains(&policy)
    {
        errors.push(not_supported("reinvocationPolicy", policy, &REINVOCATION_POLICIES));
    }
    errors.extend(client_config::validate(&path.child("clientConfig"), webhook.client_config));
    errors.extend(validate_match_conditions(
        &path.child("matchConditions"),
        webhook.match_conditions,
    ));
    errors.extend(validate_review_versions(
        &path.child("admissionReviewVersions"),
        webhook.admission_review_versions,
    ));
    errors
}
