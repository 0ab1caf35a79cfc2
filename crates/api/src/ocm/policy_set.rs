//! `policy.open-cluster-management.io/v1beta1` `PolicySet`: a named group of policies in one
//! namespace that a PlacementBinding can bind as a whole.

use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::compliance;

/// Spec of a `PolicySet`.
#[allow(
    clippy::duplicated_attributes,
    reason = "each `printcolumn(...)` repeats `type_`, which clippy mistakes for a duplicate"
)]
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[kube(
    group = "policy.open-cluster-management.io",
    version = "v1beta1",
    kind = "PolicySet",
    plural = "policysets",
    namespaced,
    shortname = "plcset",
    status = "PolicySetStatus",
    derive = "Default",
    derive = "PartialEq",
    doc = "A group of policies bound to placements together.",
    printcolumn(name = "Compliance state", type_ = "string", json_path = ".status.compliant"),
    printcolumn(name = "Age", type_ = "date", json_path = ".metadata.creationTimestamp")
)]
#[serde(rename_all = "camelCase")]
pub struct PolicySetSpec {
    /// What the set is for, for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Names of Policies in the set's namespace.
    #[schemars(extend("items" = { "type": "string", "minLength": 1 }))]
    pub policies: Vec<String>,
    /// Clusters on which one of the policies is not placed through this set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exclusions: Option<Vec<PolicySetExclusion>>,
}

/// `spec.exclusions[]`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PolicySetExclusion {
    #[schemars(length(min = 1))]
    pub policy_name: String,
    #[schemars(length(min = 1), extend("items" = { "type": "string", "minLength": 1 }))]
    pub cluster_names: Vec<String>,
    /// Why the clusters are excluded, for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// `status` of a `PolicySet`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PolicySetStatus {
    /// One of [`compliance::ALL`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = compliance::ALL))]
    pub compliant: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placement: Option<Vec<PolicySetStatusPlacement>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exclusions: Option<Vec<PolicySetStatusExclusion>>,
}

/// `status.placement[]`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PolicySetStatusPlacement {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placement_binding: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placement: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placement_rule: Option<String>,
}

/// `status.exclusions[]`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PolicySetStatusExclusion {
    #[schemars(length(min = 1))]
    pub policy_name: String,
    #[schemars(length(min = 1), extend("items" = { "type": "string", "minLength": 1 }))]
    pub clusters: Vec<String>,
}
