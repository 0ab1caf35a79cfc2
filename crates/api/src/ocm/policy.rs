//! `policy.open-cluster-management.io/v1` `Policy`: policy templates for managed clusters,
//! replicated into each selected cluster's namespace by the propagator.

use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::compliance;
use super::remediation;

/// Spec of a `Policy`.
#[allow(
    clippy::duplicated_attributes,
    reason = "each `printcolumn(...)` repeats `type_`, which clippy mistakes for a duplicate"
)]
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[kube(
    group = "policy.open-cluster-management.io",
    version = "v1",
    kind = "Policy",
    plural = "policies",
    namespaced,
    shortname = "plc",
    status = "PolicyStatus",
    derive = "Default",
    derive = "PartialEq",
    doc = "Policy templates to enforce or report on managed clusters.",
    printcolumn(
        name = "Remediation action",
        type_ = "string",
        json_path = ".spec.remediationAction"
    ),
    printcolumn(name = "Compliance state", type_ = "string", json_path = ".status.compliant"),
    printcolumn(name = "Age", type_ = "date", json_path = ".metadata.creationTimestamp")
)]
#[serde(rename_all = "camelCase")]
pub struct PolicySpec {
    /// `true`: the policy is not propagated to any cluster.
    pub disabled: bool,
    /// Whether the replicas carry all of the root policy's labels and annotations (unset:
    /// yes) or only the policy framework's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub copy_policy_metadata: Option<bool>,
    /// Overrides the templates' own remediation action: `inform`/`Inform` or
    /// `enforce`/`Enforce`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = remediation::POLICY_ACTIONS))]
    pub remediation_action: Option<String>,
    /// The policy templates, each a policy engine's object (ConfigurationPolicy, ...).
    #[serde(rename = "policy-templates")]
    pub policy_templates: Vec<PolicyTemplate>,
    /// Objects whose compliance this policy waits for before it is applied.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dependencies: Option<Vec<PolicyDependency>>,
    /// How hub templates are resolved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hub_template_options: Option<HubTemplateOptions>,
}

/// `spec.policy-templates[]`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PolicyTemplate {
    /// The policy engine object, any kind; kept as written.
    #[schemars(schema_with = "crate::crd::preserved_object")]
    pub object_definition: Value,
    /// Dependencies of this template only, on top of the policy's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra_dependencies: Option<Vec<PolicyDependency>>,
    /// `true`: a Pending template does not make the policy NonCompliant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ignore_pending: Option<bool>,
}

/// `spec.dependencies[]` and `spec.policy-templates[].extraDependencies[]`: an object and the
/// compliance it must have. A `CertificatePolicy` or `ConfigurationPolicy` dependency has no
/// namespace (the schema enforces it).
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PolicyDependency {
    pub api_version: String,
    pub kind: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// The compliance state the object must report: one of [`compliance::ALL`].
    #[schemars(extend("enum" = compliance::ALL))]
    pub compliance: String,
}

/// `spec.hubTemplateOptions`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HubTemplateOptions {
    /// A ServiceAccount in the policy's namespace whose permissions hub templates are
    /// resolved with; unset: the propagator's own, restricted to the policy's namespace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_account_name: Option<String>,
}

/// `status` of a `Policy`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PolicyStatus {
    /// The bindings and placements that select the policy (root policies).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placement: Option<Vec<PolicyPlacement>>,
    /// Compliance per managed cluster (root policies).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Vec<CompliancePerClusterStatus>>,
    /// The overall compliance state: one of [`compliance::ALL`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = compliance::ALL))]
    pub compliant: Option<String>,
    /// Compliance per template with its history (replicated policies).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Vec<DetailsPerTemplate>>,
}

/// `status.placement[]`: a binding that selects the policy, and what it selects through.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PolicyPlacement {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placement_binding: Option<String>,
    /// The deprecated PlacementRule the binding names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placement_rule: Option<String>,
    /// The Placement the binding names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placement: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decisions: Option<Vec<PolicyPlacementDecision>>,
    /// The PolicySet through which the binding selects the policy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy_set: Option<String>,
    /// Clusters that PolicySet excludes for this policy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exclusions: Option<Vec<PolicyExclusion>>,
}

/// `status.placement[].decisions[]` (upstream's `PlacementDecision`, renamed here because the
/// `PlacementDecision` kind has that name).
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PolicyPlacementDecision {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster_namespace: Option<String>,
}

/// `status.placement[].exclusions[]`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PolicyExclusion {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster_name: Option<String>,
}

/// `status.status[]`: one managed cluster's compliance. The JSON names are upstream's
/// lower-case `clustername` and `clusternamespace`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CompliancePerClusterStatus {
    /// One of [`compliance::ALL`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = compliance::ALL))]
    pub compliant: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(rename = "clustername")]
    pub clustername: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(rename = "clusternamespace")]
    pub clusternamespace: Option<String>,
    /// Other bindings that still select the cluster when a PolicySet excludes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remaining_bindings: Option<Vec<RemainingBinding>>,
}

/// `status.status[].remainingBindings[]`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RemainingBinding {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placement_binding: Option<String>,
}

/// `status.details[]`: one template's compliance.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DetailsPerTemplate {
    /// The template's object metadata, kept as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::crd::preserved_object")]
    pub template_meta: Option<Value>,
    /// One of [`compliance::ALL`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = compliance::ALL))]
    pub compliant: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history: Option<Vec<ComplianceHistory>>,
}

/// `status.details[].history[]`: a compliance event.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ComplianceHistory {
    /// When the event happened (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("format" = "date-time"))]
    pub last_timestamp: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event_name: Option<String>,
}
