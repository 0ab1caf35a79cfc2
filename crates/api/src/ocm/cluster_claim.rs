//! `cluster.open-cluster-management.io/v1alpha1` `ClusterClaim`: a fact a managed cluster
//! reports about itself (read on the hub through `ManagedCluster.status.clusterClaims`).

use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Spec of a `ClusterClaim`.
#[derive(
    CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema,
)]
#[kube(
    group = "cluster.open-cluster-management.io",
    version = "v1alpha1",
    kind = "ClusterClaim",
    plural = "clusterclaims",
    derive = "Default",
    derive = "PartialEq",
    doc = "A named fact about the cluster it lives in."
)]
#[serde(rename_all = "camelCase")]
pub struct ClusterClaimSpec {
    /// The claimed value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 1024))]
    pub value: Option<String>,
}
