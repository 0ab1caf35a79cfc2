//! `cluster.open-cluster-management.io/v1beta1` `PlacementDecision`: the clusters a
//! Placement selected, in slices labelled `cluster.open-cluster-management.io/placement`
//! with the placement's name. It has no `spec`, only `status`, so the type implements the
//! resource traits itself instead of deriving `CustomResource`.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use schemars::JsonSchema;
use serde::ser::SerializeStruct as _;
use serde::{Deserialize, Serialize, Serializer};

/// One slice of a Placement's decisions.
#[derive(Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlacementDecision {
    #[serde(default)]
    #[schemars(skip)]
    pub metadata: ObjectMeta,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<PlacementDecisionStatus>,
}

impl PlacementDecision {
    /// The label naming the Placement a PlacementDecision belongs to.
    pub const PLACEMENT_LABEL: &str = "cluster.open-cluster-management.io/placement";
}

/// `status`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlacementDecisionStatus {
    /// The selected clusters of this slice.
    pub decisions: Vec<ClusterDecision>,
}

/// `status.decisions[]`: a selected cluster.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClusterDecision {
    /// The ManagedCluster's name.
    pub cluster_name: String,
    /// Why the cluster was selected (may be empty).
    pub reason: String,
    /// The cluster's score, when the placement prioritises.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<i64>,
}

impl k8s_openapi::Resource for PlacementDecision {
    const API_VERSION: &'static str = "cluster.open-cluster-management.io/v1beta1";
    const GROUP: &'static str = super::CLUSTER_GROUP;
    const KIND: &'static str = "PlacementDecision";
    const VERSION: &'static str = "v1beta1";
    const URL_PATH_SEGMENT: &'static str = "placementdecisions";
    type Scope = k8s_openapi::NamespaceResourceScope;
}

impl k8s_openapi::ListableResource for PlacementDecision {
    const LIST_KIND: &'static str = "PlacementDecisionList";
}

impl k8s_openapi::Metadata for PlacementDecision {
    type Ty = ObjectMeta;

    fn metadata(&self) -> &ObjectMeta {
        &self.metadata
    }

    fn metadata_mut(&mut self) -> &mut ObjectMeta {
        &mut self.metadata
    }
}

/// With `apiVersion` and `kind` first, as the API server expects every object it is sent.
impl Serialize for PlacementDecision {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use k8s_openapi::Resource as _;
        let mut object = serializer.serialize_struct(Self::KIND, 4)?;
        object.serialize_field("apiVersion", Self::API_VERSION)?;
        object.serialize_field("kind", Self::KIND)?;
        object.serialize_field("metadata", &self.metadata)?;
        match &self.status {
            Some(value) => object.serialize_field("status", value)?,
            None => object.skip_field("status")?,
        }
        object.end()
    }
}
