//! `cluster.open-cluster-management.io/v1` `ManagedCluster`: a cluster registered with the
//! hub. Cluster-scoped; its name is also the name of the cluster's namespace on the hub.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The effects a taint may have, in upstream's schema order.
pub const TAINT_EFFECTS: [&str; 3] = ["NoSelect", "PreferNoSelect", "NoSelectIfNew"];

/// Spec of a `ManagedCluster`.
#[allow(
    clippy::duplicated_attributes,
    reason = "each `printcolumn(...)` repeats `type_`, which clippy mistakes for a duplicate"
)]
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[kube(
    group = "cluster.open-cluster-management.io",
    version = "v1",
    kind = "ManagedCluster",
    plural = "managedclusters",
    shortname = "mcl",
    shortname = "mcls",
    status = "ManagedClusterStatus",
    derive = "Default",
    derive = "PartialEq",
    doc = "A cluster managed from the hub.",
    printcolumn(name = "Hub Accepted", type_ = "boolean", json_path = ".spec.hubAcceptsClient"),
    printcolumn(
        name = "Managed Cluster URLs",
        type_ = "string",
        json_path = ".spec.managedClusterClientConfigs[*].url"
    ),
    printcolumn(
        name = "Joined",
        type_ = "string",
        json_path = r#".status.conditions[?(@.type=="ManagedClusterJoined")].status"#
    ),
    printcolumn(
        name = "Available",
        type_ = "string",
        json_path = r#".status.conditions[?(@.type=="ManagedClusterConditionAvailable")].status"#
    ),
    printcolumn(name = "Age", type_ = "date", json_path = ".metadata.creationTimestamp")
)]
#[serde(rename_all = "camelCase")]
pub struct ManagedClusterSpec {
    /// The cluster's API server endpoints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub managed_cluster_client_configs: Option<Vec<ClientConfig>>,
    /// Whether the hub admin accepted the cluster.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hub_accepts_client: Option<bool>,
    /// How often the agent renews its lease, in seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("default" = 60))]
    pub lease_duration_seconds: Option<i32>,
    /// Taints placements must tolerate to select the cluster.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub taints: Option<Vec<Taint>>,
}

/// `spec.managedClusterClientConfigs[]`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClientConfig {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// PEM CA bundle, base64-encoded as stored (`format: byte`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("format" = "byte"))]
    pub ca_bundle: Option<String>,
}

/// `spec.taints[]`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Taint {
    #[schemars(length(max = 316), regex(pattern = super::QUALIFIED_KEY_PATTERN))]
    pub key: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 1024))]
    pub value: Option<String>,
    /// One of [`TAINT_EFFECTS`].
    #[schemars(extend("enum" = TAINT_EFFECTS))]
    pub effect: String,
    /// When the taint was added (RFC 3339). Upstream's schema lets it be `null` (Go's zero
    /// time), which decodes as `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("format" = "date-time"))]
    pub time_added: Option<String>,
}

/// `status` of a `ManagedCluster`, written by the registration agent.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ManagedClusterStatus {
    /// `HubAcceptedManagedCluster`, `ManagedClusterJoined`, `ManagedClusterConditionAvailable`, ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(transform = crate::crd::metav1_condition_items)]
    pub conditions: Option<Vec<Condition>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(transform = crate::crd::quantity_values)]
    pub capacity: Option<BTreeMap<String, Quantity>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(transform = crate::crd::quantity_values)]
    pub allocatable: Option<BTreeMap<String, Quantity>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<ManagedClusterVersion>,
    /// The cluster's ClusterClaims, as the agent reports them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster_claims: Option<Vec<ManagedClusterClaim>>,
}

/// `status.version`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ManagedClusterVersion {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kubernetes: Option<String>,
}

/// `status.clusterClaims[]`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ManagedClusterClaim {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 253))]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 1024))]
    pub value: Option<String>,
}
