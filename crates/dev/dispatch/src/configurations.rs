//! The registered Mutating/ValidatingWebhookConfigurations, decoded once and flattened into
//! the ordered webhook lists the dispatchers walk.

use std::sync::Arc;

use k8s_openapi::api::admissionregistration::v1::{
    MatchCondition, MutatingWebhook, MutatingWebhookConfiguration, RuleWithOperations,
    ValidatingWebhook, ValidatingWebhookConfiguration, WebhookClientConfig,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

use crate::match_conditions::Condition;

/// Seconds a webhook may take when `timeoutSeconds` is unset (the v1 API default).
const DEFAULT_TIMEOUT_SECONDS: i32 = 10;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FailurePolicy {
    Fail,
    Ignore,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MatchPolicy {
    Exact,
    Equivalent,
}

/// Identifies a webhook across the two mutating rounds (upstream keys reinvocation by a
/// per-webhook UID derived from the configuration and position).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct HookId {
    pub configuration: usize,
    pub position: usize,
}

/// One webhook with the v1 API defaults applied, so stored objects that were never defaulted
/// behave as the API server would have stored them.
#[derive(Debug)]
pub(crate) struct Hook {
    pub id: HookId,
    pub configuration_name: String,
    pub name: String,
    pub rules: Vec<RuleWithOperations>,
    pub failure_policy: FailurePolicy,
    pub match_policy: MatchPolicy,
    pub namespace_selector: Option<LabelSelector>,
    pub object_selector: Option<LabelSelector>,
    /// `None` when unset (v1 has no default; upstream refuses dry-run calls then).
    pub side_effects: Option<String>,
    pub timeout_seconds: i32,
    pub admission_review_versions: Vec<String>,
    pub client_config: WebhookClientConfig,
    /// `reinvocationPolicy: IfNeeded` (mutating webhooks only).
    pub reinvoke_if_needed: bool,
    /// The webhook's matchConditions, compiled once per configuration.
    pub match_conditions: Vec<Condition>,
}

/// The fields shared by MutatingWebhook and ValidatingWebhook.
struct CommonFields {
    name: String,
    rules: Option<Vec<RuleWithOperations>>,
    failure_policy: Option<String>,
    match_policy: Option<String>,
    namespace_selector: Option<LabelSelector>,
    object_selector: Option<LabelSelector>,
    side_effects: String,
    timeout_seconds: Option<i32>,
    admission_review_versions: Vec<String>,
    client_config: WebhookClientConfig,
    match_conditions: Vec<MatchCondition>,
}

/// MutatingWebhook and ValidatingWebhook are distinct k8s-openapi types with the same
/// fields: one conversion, written once.
macro_rules! common_fields_from {
    ($webhook:ty) => {
        impl From<$webhook> for CommonFields {
            fn from(w: $webhook) -> Self {
                CommonFields {
                    name: w.name,
                    rules: w.rules,
                    failure_policy: w.failure_policy,
                    match_policy: w.match_policy,
                    namespace_selector: w.namespace_selector,
                    object_selector: w.object_selector,
                    side_effects: w.side_effects,
                    timeout_seconds: w.timeout_seconds,
                    admission_review_versions: w.admission_review_versions,
                    client_config: w.client_config,
                    match_conditions: w.match_conditions.unwrap_or_default(),
                }
            }
        }
    };
}

common_fields_from!(MutatingWebhook);
common_fields_from!(ValidatingWebhook);

fn hook(
    id: HookId,
    configuration_name: &str,
    fields: CommonFields,
    reinvoke_if_needed: bool,
) -> Hook {
    Hook {
        id,
        configuration_name: configuration_name.to_owned(),
        name: fields.name,
        rules: fields.rules.unwrap_or_default(),
        // Upstream fails open only for an explicit Ignore.
        failure_policy: match fields.failure_policy.as_deref() {
            Some("Ignore") => FailurePolicy::Ignore,
            _ => FailurePolicy::Fail,
        },
        // v1 defaults matchPolicy to Equivalent; only an explicit Exact turns it off.
        match_policy: match fields.match_policy.as_deref() {
            Some("Exact") => MatchPolicy::Exact,
            _ => MatchPolicy::Equivalent,
        },
        namespace_selector: fields.namespace_selector,
        object_selector: fields.object_selector,
        side_effects: Some(fields.side_effects).filter(|s| !s.is_empty()),
        timeout_seconds: fields.timeout_seconds.unwrap_or(DEFAULT_TIMEOUT_SECONDS),
        admission_review_versions: fields.admission_review_versions,
        client_config: fields.client_config,
        reinvoke_if_needed,
        match_conditions: fields.match_conditions.iter().map(Condition::compile).collect(),
    }
}

/// The registered configurations, decoded from the stored JSON objects.
#[derive(Debug, Default, Clone)]
pub struct Configurations {
    pub(crate) mutating: Vec<Arc<Hook>>,
    pub(crate) validating: Vec<Arc<Hook>>,
}

impl Configurations {
    /// Decodes stored `MutatingWebhookConfiguration` and `ValidatingWebhookConfiguration`
    /// objects. Webhooks run ordered by configuration name, then position, as upstream.
    /// Objects that do not decode are skipped with a warning.
    pub fn from_objects(
        mutating: &[serde_json::Value],
        validating: &[serde_json::Value],
    ) -> Configurations {
        let mut mutating_configs: Vec<MutatingWebhookConfiguration> =
            decode_all(mutating, "MutatingWebhookConfiguration");
        let mut validating_configs: Vec<ValidatingWebhookConfiguration> =
            decode_all(validating, "ValidatingWebhookConfiguration");
        mutating_configs.sort_by(|a, b| a.metadata.name.cmp(&b.metadata.name));
        validating_configs.sort_by(|a, b| a.metadata.name.cmp(&b.metadata.name));

        let mut out = Configurations::default();
        for (c, config) in mutating_configs.into_iter().enumerate() {
            let config_name = config.metadata.name.unwrap_or_default();
            for (p, webhook) in config.webhooks.into_iter().flatten().enumerate() {
                let if_needed = webhook.reinvocation_policy.as_deref() == Some("IfNeeded");
                let id = HookId { configuration: c, position: p };
                out.mutating.push(Arc::new(hook(id, &config_name, webhook.into(), if_needed)));
            }
        }
        for (c, config) in validating_configs.into_iter().enumerate() {
            let config_name = config.metadata.name.unwrap_or_default();
            for (p, webhook) in config.webhooks.into_iter().flatten().enumerate() {
                let id = HookId { configuration: c, position: p };
                out.validating.push(Arc::new(hook(id, &config_name, webhook.into(), false)));
            }
        }
        out
    }

    /// Whether no webhook is registered at all (the pipeline can skip admission calls).
    pub fn is_empty(&self) -> bool {
        self.mutating.is_empty() && self.validating.is_empty()
    }
}

fn decode_all<T: serde::de::DeserializeOwned>(objects: &[serde_json::Value], kind: &str) -> Vec<T> {
    objects
        .iter()
        .filter_map(|object| match T::deserialize(object) {
            Ok(decoded) => Some(decoded),
            Err(error) => {
                let name = object.pointer("/metadata/name").and_then(|n| n.as_str()).unwrap_or("");
                tracing::warn!(kind, name, %error, "skipping a webhook configuration that does not decode");
                None
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn validating(name: &str, hooks: &[&str]) -> serde_json::Value {
        let webhooks: Vec<_> =
            hooks.iter().map(|h| json!({ "name": h, "clientConfig": {} })).collect();
        json!({
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingWebhookConfiguration",
            "metadata": { "name": name },
            "webhooks": webhooks,
        })
    }

    #[test]
    fn orders_by_configuration_name_then_position_and_skips_undecodable_objects() {
        let broken = json!({ "kind": "ValidatingWebhookConfiguration", "metadata": { "name": "0" }, "webhooks": "nope" });
        let configurations = Configurations::from_objects(
            &[],
            &[validating("b", &["b1.x.y", "b2.x.y"]), broken, validating("a", &["a1.x.y"])],
        );
        let names: Vec<&str> = configurations.validating.iter().map(|h| h.name.as_str()).collect();
        assert_eq!(names, ["a1.x.y", "b1.x.y", "b2.x.y"]);
        assert!(!configurations.is_empty());
        assert!(Configurations::from_objects(&[], &[]).is_empty());
    }

    #[test]
    fn applies_the_v1_defaults() {
        let configurations = Configurations::from_objects(&[], &[validating("a", &["a1.x.y"])]);
        let hook = &configurations.validating[0];
        assert_eq!(hook.failure_policy, FailurePolicy::Fail);
        assert_eq!(hook.match_policy, MatchPolicy::Equivalent);
        assert_eq!(hook.timeout_seconds, 10);
        assert_eq!(hook.side_effects, None);
        assert!(!hook.reinvoke_if_needed);
    }
}
