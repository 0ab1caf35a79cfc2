//! kube-apiserver's validation of Mutating/ValidatingWebhookConfigurations on create and
//! update, as field errors with upstream's messages.

mod client_config;
mod field;
mod names;
pub(crate) mod selector;
mod webhook;

use certgate_api::field::{self as kube, BadValue, Path};
use k8s_openapi::api::admissionregistration::v1::{
    MatchCondition, MutatingWebhookConfiguration, RuleWithOperations,
    ValidatingWebhookConfiguration, WebhookClientConfig,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

pub use field::FieldError;

/// Which configuration kind an object is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConfigurationKind {
    Mutating,
    Validating,
}

/// The fields validation reads, borrowed from either webhook type.
pub(crate) struct WebhookView<'a> {
    name: &'a str,
    rules: &'a [RuleWithOperations],
    failure_policy: Option<&'a str>,
    match_policy: Option<&'a str>,
    side_effects: &'a str,
    timeout_seconds: Option<i32>,
    namespace_selector: Option<&'a LabelSelector>,
    object_selector: Option<&'a LabelSelector>,
    /// Always `None` for validating webhooks.
    reinvocation_policy: Option<&'a str>,
    client_config: &'a WebhookClientConfig,
    match_conditions: &'a [MatchCondition],
    admission_review_versions: &'a [String],
}

/// The [`WebhookView`] of a MutatingWebhook or ValidatingWebhook (distinct k8s-openapi types
/// with the same fields); only mutating webhooks have a reinvocation policy.
macro_rules! webhook_view {
    ($w:expr, $reinvocation_policy:expr) => {
        WebhookView {
            name: &$w.name,
            rules: $w.rules.as_deref().unwrap_or_default(),
            failure_policy: $w.failure_policy.as_deref(),
            match_policy: $w.match_policy.as_deref(),
            side_effects: &$w.side_effects,
            timeout_seconds: $w.timeout_seconds,
            namespace_selector: $w.namespace_selector.as_ref(),
            object_selector: $w.object_selector.as_ref(),
            reinvocation_policy: $reinvocation_policy,
            client_config: &$w.client_config,
            match_conditions: $w.match_conditions.as_deref().unwrap_or_default(),
            admission_review_versions: &$w.admission_review_versions,
        }
    };
}

/// Validates a configuration object as kube-apiserver does when it is created (the create
/// rules also apply to updates here; see docs/dispatch.md). `metadata` is not checked: the
/// pipeline validates object metadata for every kind.
///
/// An object that does not even decode as the kind yields one error on the field `""` with
/// the decoder's message; the API server answers those with 400 rather than 422.
pub fn validate_configuration(
    kind: ConfigurationKind,
    object: &serde_json::Value,
) -> Vec<FieldError> {
    let undecodable = |error: serde_json::Error| {
        vec![FieldError { field: String::new(), detail: format!("Invalid value: {error}") }]
    };
    let mut errors = Vec::new();
    let mut names = std::collections::HashSet::new();
    let mut check = |i: usize, view: WebhookView<'_>, errors: &mut Vec<kube::FieldError>| {
        let path = Path::new("webhooks").index(i);
        errors.extend(webhook::validate(&path, &view));
        if !view.name.is_empty() && !names.insert(view.name.to_owned()) {
            errors.push(kube::FieldError::duplicate(
                path.child("name"),
                BadValue::Str(view.name.to_owned()),
            ));
        }
    };
    match kind {
        ConfigurationKind::Mutating => {
            let config: MutatingWebhookConfiguration = match serde::Deserialize::deserialize(object)
            {
                Ok(config) => config,
                Err(error) => return undecodable(error),
            };
            for (i, w) in config.webhooks.iter().flatten().enumerate() {
                let view = webhook_view!(w, w.reinvocation_policy.as_deref());
                check(i, view, &mut errors);
            }
        }
        ConfigurationKind::Validating => {
            let config: ValidatingWebhookConfiguration =
                match serde::Deserialize::deserialize(object) {
                    Ok(config) => config,
                    Err(error) => return undecodable(error),
                };
            for (i, w) in config.webhooks.iter().flatten().enumerate() {
                let view = webhook_view!(w, None);
                check(i, view, &mut errors);
            }
        }
    }
    errors.into_iter().map(FieldError::from).collect()
}

#[cfg(test)]
mod tests;
