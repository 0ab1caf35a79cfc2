//! `cluster.open-cluster-management.io/v1beta1` `Placement`: selects managed clusters from
//! the ManagedClusterSets bound to its namespace; the result is written to
//! [`PlacementDecision`](super::PlacementDecision)s.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{
    Condition, LabelSelector, LabelSelectorRequirement,
};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Spec of a `Placement`.
#[allow(
    clippy::duplicated_attributes,
    reason = "each `printcolumn(...)` repeats `type_`, which clippy mistakes for a duplicate"
)]
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[kube(
    group = "cluster.open-cluster-management.io",
    version = "v1beta1",
    kind = "Placement",
    plural = "placements",
    namespaced,
    status = "PlacementStatus",
    derive = "Default",
    derive = "PartialEq",
    doc = "Selects managed clusters; the selection is written to PlacementDecisions.",
    printcolumn(
        name = "Succeeded",
        type_ = "string",
        json_path = r#".status.conditions[?(@.type=="PlacementSatisfied")].status"#
    ),
    printcolumn(
        name = "Reason",
        type_ = "string",
        json_path = r#".status.conditions[?(@.type=="PlacementSatisfied")].reason"#
    ),
    printcolumn(
        name = "SelectedClusters",
        type_ = "integer",
        json_path = ".status.numberOfSelectedClusters"
    )
)]
#[serde(rename_all = "camelCase")]
pub struct PlacementSpec {
    /// The ManagedClusterSets to select from; unset: every set bound to the namespace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster_sets: Option<Vec<String>>,
    /// How many clusters to select; unset: every cluster that qualifies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub number_of_clusters: Option<i32>,
    /// Cluster selectors; a cluster qualifies when it matches any of them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub predicates: Option<Vec<ClusterPredicate>>,
    /// How clusters are scored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prioritizer_policy: Option<PrioritizerPolicy>,
    /// How often scores may be refreshed, as `<n>h`, `<n>m` or `<n>s`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = r"^[0-9]+[hms]$"), extend("default" = "1m"))]
    pub score_rate_limit: Option<String>,
    /// `ClusterName` or `Score`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = ["ClusterName", "Score"], "default" = "ClusterName"))]
    pub sort_by: Option<String>,
    /// How selected clusters are spread over topologies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spread_policy: Option<SpreadPolicy>,
    /// Cluster taints this placement tolerates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerations: Option<Vec<Toleration>>,
    /// How the decisions are divided into groups.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision_strategy: Option<DecisionStrategy>,
}

/// `spec.predicates[]`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClusterPredicate {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required_cluster_selector: Option<ClusterSelector>,
}

/// `spec.predicates[].requiredClusterSelector`: by labels, by claims and by CEL.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClusterSelector {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(transform = crate::crd::atomic_label_selector)]
    pub label_selector: Option<LabelSelector>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claim_selector: Option<ClusterClaimSelector>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cel_selector: Option<ClusterCelSelector>,
}

/// A selector over the cluster's ClusterClaims, as a label selector's `matchExpressions`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClusterClaimSelector {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(transform = crate::crd::requirement_items_atomic_values)]
    pub match_expressions: Option<Vec<LabelSelectorRequirement>>,
}

/// CEL expressions a cluster must all satisfy.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClusterCelSelector {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cel_expressions: Option<Vec<String>>,
}

/// `spec.prioritizerPolicy`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PrioritizerPolicy {
    /// `Additive` (the default prioritizers plus `configurations`) or `Exact`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = "Additive"))]
    pub mode: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub configurations: Option<Vec<PrioritizerConfig>>,
}

/// `spec.prioritizerPolicy.configurations[]`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PrioritizerConfig {
    pub score_coordinate: ScoreCoordinate,
    /// From -10 to 10.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = -10, max = 10), extend("default" = 1))]
    pub weight: Option<i32>,
}

/// `spec.prioritizerPolicy.configurations[].scoreCoordinate`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScoreCoordinate {
    /// `BuiltIn` or `AddOn`; the API server defaults it to `BuiltIn`.
    #[serde(rename = "type")]
    #[schemars(extend("enum" = ["BuiltIn", "AddOn"], "default" = "BuiltIn"))]
    pub type_: String,
    /// A built-in prioritizer's name (`Balance`, `Steady`, `ResourceAllocatableCPU`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub built_in: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub add_on: Option<AddOnScore>,
}

/// `...scoreCoordinate.addOn`: a score an add-on publishes.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AddOnScore {
    pub resource_name: String,
    pub score_name: String,
}

/// `spec.spreadPolicy`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SpreadPolicy {
    /// At most 8.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 8))]
    pub spread_constraints: Option<Vec<SpreadConstraintsTerm>>,
}

/// `spec.spreadPolicy.spreadConstraints[]`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SpreadConstraintsTerm {
    /// A label or claim name.
    #[schemars(
        length(max = 316),
        regex(
            pattern = r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$"
        )
    )]
    pub topology_key: String,
    /// `Label` or `Claim`.
    #[schemars(extend("enum" = ["Label", "Claim"]))]
    pub topology_key_type: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1), extend("default" = 1))]
    pub max_skew: Option<i32>,
    /// `DoNotSchedule` or `ScheduleAnyway`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend(
        "enum" = ["DoNotSchedule", "ScheduleAnyway"],
        "default" = "ScheduleAnyway"
    ))]
    pub when_unsatisfiable: Option<String>,
}

/// `spec.tolerations[]`: a ManagedCluster taint the placement tolerates.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Toleration {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 316), regex(pattern = super::QUALIFIED_KEY_PATTERN))]
    pub key: Option<String>,
    /// `Equal` or `Exists`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = "Equal"))]
    pub operator: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 1024))]
    pub value: Option<String>,
    /// One of [`TAINT_EFFECTS`](super::TAINT_EFFECTS); unset: every effect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = super::TAINT_EFFECTS))]
    pub effect: Option<String>,
    /// How long a `NoSelect`/`PreferNoSelect` taint is tolerated after it was added.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub toleration_seconds: Option<i64>,
}

/// `spec.decisionStrategy`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DecisionStrategy {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group_strategy: Option<GroupStrategy>,
}

/// `spec.decisionStrategy.groupStrategy`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GroupStrategy {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision_groups: Option<Vec<DecisionGroup>>,
    /// A count or a percentage of the selected clusters (`25%`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("pattern" = r"^((100|[1-9][0-9]{0,1})%|[1-9][0-9]*)$", "default" = "100%"))]
    pub clusters_per_decision_group: Option<IntOrString>,
}

/// `spec.decisionStrategy.groupStrategy.decisionGroups[]`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DecisionGroup {
    #[schemars(regex(pattern = r"^[a-zA-Z0-9][-A-Za-z0-9_.]{0,61}[a-zA-Z0-9]$"))]
    pub group_name: String,
    pub group_cluster_selector: GroupClusterSelector,
}

/// `...decisionGroups[].groupClusterSelector`: like [`ClusterSelector`] without CEL.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GroupClusterSelector {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(transform = crate::crd::atomic_label_selector)]
    pub label_selector: Option<LabelSelector>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claim_selector: Option<ClusterClaimSelector>,
}

/// `status` of a `Placement`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlacementStatus {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub number_of_selected_clusters: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision_groups: Option<Vec<DecisionGroupStatus>>,
    /// `PlacementSatisfied`, `PlacementMisconfigured`, ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(
        extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["type"]),
        transform = crate::crd::metav1_condition_items
    )]
    pub conditions: Option<Vec<Condition>>,
    /// When scores were last refreshed (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("format" = "date-time"))]
    pub last_score_update_time: Option<String>,
}

/// `status.decisionGroups[]`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DecisionGroupStatus {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision_group_index: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision_group_name: Option<String>,
    /// Names of the PlacementDecisions of the group.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decisions: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = 0))]
    pub cluster_count: Option<i32>,
}
