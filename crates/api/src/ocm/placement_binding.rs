//! `policy.open-cluster-management.io/v1` `PlacementBinding`: binds policies and policy sets
//! to a placement. It has no `spec`: its fields sit at the top level, as upstream's do, so
//! the type implements the resource traits itself instead of deriving `CustomResource`.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use schemars::JsonSchema;
use serde::ser::SerializeStruct as _;
use serde::{Deserialize, Serialize, Serializer};

use super::remediation;

/// A binding of `subjects` (Policies, PolicySets) to the clusters `placementRef` selects.
#[derive(Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlacementBinding {
    #[serde(default)]
    #[schemars(skip)]
    pub metadata: ObjectMeta,
    /// The Placement (or deprecated PlacementRule) that selects the clusters.
    pub placement_ref: PlacementRef,
    /// The Policies and PolicySets bound; at least one.
    #[schemars(length(min = 1))]
    pub subjects: Vec<Subject>,
    /// Overrides for the bound policies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binding_overrides: Option<BindingOverrides>,
    /// `restricted`: the binding applies its overrides only to clusters another
    /// (unrestricted) binding already places the policy on, and places nothing itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = [PlacementBinding::SUB_FILTER_RESTRICTED]))]
    pub sub_filter: Option<String>,
    /// Upstream's status has no fields.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<PlacementBindingStatus>,
}

impl PlacementBinding {
    /// The one `subFilter` value.
    pub const SUB_FILTER_RESTRICTED: &str = "restricted";
}

/// `placementRef`: `Placement` in `cluster.open-cluster-management.io`, or the deprecated
/// `PlacementRule` in `apps.open-cluster-management.io` (the schema rejects other pairs).
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlacementRef {
    #[schemars(length(min = 1))]
    pub name: String,
    #[schemars(length(min = 1), extend("enum" = ["PlacementRule", "Placement"]))]
    pub kind: String,
    #[schemars(
        length(min = 1),
        extend("enum" = [super::PLACEMENT_RULE_GROUP, super::CLUSTER_GROUP])
    )]
    pub api_group: String,
}

/// `subjects[]`: a `Policy` or `PolicySet` in `policy.open-cluster-management.io`, in the
/// binding's namespace.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Subject {
    #[schemars(length(min = 1))]
    pub name: String,
    #[schemars(length(min = 1), extend("enum" = ["Policy", "PolicySet"]))]
    pub kind: String,
    #[schemars(length(min = 1), extend("enum" = [super::POLICY_GROUP]))]
    pub api_group: String,
}

/// `bindingOverrides`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BindingOverrides {
    /// `Enforce` or `enforce`: the bound policies are enforced on the selected clusters
    /// whatever their own remediation action.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = remediation::OVERRIDE_ACTIONS))]
    pub remediation_action: Option<String>,
}

/// `status`: upstream declares an object without properties, so the API server keeps `{}`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
pub struct PlacementBindingStatus {}

impl k8s_openapi::Resource for PlacementBinding {
    const API_VERSION: &'static str = "policy.open-cluster-management.io/v1";
    const GROUP: &'static str = super::POLICY_GROUP;
    const KIND: &'static str = "PlacementBinding";
    const VERSION: &'static str = "v1";
    const URL_PATH_SEGMENT: &'static str = "placementbindings";
    type Scope = k8s_openapi::NamespaceResourceScope;
}

impl k8s_openapi::ListableResource for PlacementBinding {
    const LIST_KIND: &'static str = "PlacementBindingList";
}

impl k8s_openapi::Metadata for PlacementBinding {
    type Ty = ObjectMeta;

    fn metadata(&self) -> &ObjectMeta {
        &self.metadata
    }

    fn metadata_mut(&mut self) -> &mut ObjectMeta {
        &mut self.metadata
    }
}

/// With `apiVersion` and `kind` first, as the API server expects every object it is sent.
impl Serialize for PlacementBinding {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use k8s_openapi::Resource as _;
        let mut object = serializer.serialize_struct(Self::KIND, 8)?;
        object.serialize_field("apiVersion", Self::API_VERSION)?;
        object.serialize_field("kind", Self::KIND)?;
        object.serialize_field("metadata", &self.metadata)?;
        object.serialize_field("placementRef", &self.placement_ref)?;
        object.serialize_field("subjects", &self.subjects)?;
        match &self.binding_overrides {
            Some(value) => object.serialize_field("bindingOverrides", value)?,
            None => object.skip_field("bindingOverrides")?,
        }
        match &self.sub_filter {
            Some(value) => object.serialize_field("subFilter", value)?,
            None => object.skip_field("subFilter")?,
        }
        match &self.status {
            Some(value) => object.serialize_field("status", value)?,
            None => object.skip_field("status")?,
        }
        object.end()
    }
}
