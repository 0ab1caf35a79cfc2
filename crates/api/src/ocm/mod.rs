//! Open Cluster Management resources, API-compatible with upstream: the governance kinds of
//! `policy.open-cluster-management.io` (`Policy`, `PlacementBinding`, `PolicySet`) and the
//! cluster kinds of `cluster.open-cluster-management.io` (`Placement`, `PlacementDecision`,
//! `ManagedCluster`, `ClusterClaim`). Their CRDs are [`crate::crd::ocm`].
//!
//! Field names are upstream's JSON names and every field upstream's schema declares is here,
//! so an object decodes and encodes back unchanged. A field upstream's schema requires is a
//! plain value; every other field is an `Option`, absent when unset.
//!
//! Fields with an enumerated set of values are `String`s whose schema carries upstream's
//! `enum`: the API server validates them, and an object written by a newer upstream with a
//! value this version does not know still decodes. The known values are the constants below
//! and next to each type.

mod cluster_claim;
mod managed_cluster;
mod placement;
mod placement_binding;
mod placement_decision;
mod policy;
mod policy_set;

pub use cluster_claim::{ClusterClaim, ClusterClaimSpec};
pub use managed_cluster::{
    ClientConfig, ManagedCluster, ManagedClusterClaim, ManagedClusterSpec, ManagedClusterStatus,
    ManagedClusterVersion, TAINT_EFFECTS, Taint,
};
pub use placement::{
    AddOnScore, ClusterCelSelector, ClusterClaimSelector, ClusterPredicate, ClusterSelector,
    DecisionGroup, DecisionGroupStatus, DecisionStrategy, GroupClusterSelector, GroupStrategy,
    Placement, PlacementSpec, PlacementStatus, PrioritizerConfig, PrioritizerPolicy,
    ScoreCoordinate, SpreadConstraintsTerm, SpreadPolicy, Toleration,
};
pub use placement_binding::{
    BindingOverrides, PlacementBinding, PlacementBindingStatus, PlacementRef, Subject,
};
pub use placement_decision::{ClusterDecision, PlacementDecision, PlacementDecisionStatus};
pub use policy::{
    ComplianceHistory, CompliancePerClusterStatus, DetailsPerTemplate, HubTemplateOptions, Policy,
    PolicyDependency, PolicyExclusion, PolicyPlacement, PolicyPlacementDecision, PolicySpec,
    PolicyStatus, PolicyTemplate, RemainingBinding,
};
pub use policy_set::{
    PolicySet, PolicySetExclusion, PolicySetSpec, PolicySetStatus, PolicySetStatusExclusion,
    PolicySetStatusPlacement,
};

/// The API group of the governance kinds.
pub const POLICY_GROUP: &str = "policy.open-cluster-management.io";
/// The API group of the cluster kinds.
pub const CLUSTER_GROUP: &str = "cluster.open-cluster-management.io";
/// The API group of the deprecated `PlacementRule`, which a PlacementBinding may still name.
pub const PLACEMENT_RULE_GROUP: &str = "apps.open-cluster-management.io";

/// A policy's (or a cluster's, or a dependency's) compliance state.
pub mod compliance {
    pub const COMPLIANT: &str = "Compliant";
    pub const PENDING: &str = "Pending";
    pub const NON_COMPLIANT: &str = "NonCompliant";
    /// Every state, in the order upstream's schema lists them.
    pub const ALL: [&str; 3] = [COMPLIANT, PENDING, NON_COMPLIANT];
}

/// A policy's `spec.remediationAction`; upstream accepts both capitalisations and compares
/// them case-insensitively.
pub mod remediation {
    pub const INFORM: &str = "Inform";
    pub const ENFORCE: &str = "Enforce";
    /// Every value `Policy.spec.remediationAction` accepts, in upstream's schema order.
    pub const POLICY_ACTIONS: [&str; 4] = ["Inform", "inform", "Enforce", "enforce"];
    /// Every value `PlacementBinding.bindingOverrides.remediationAction` accepts.
    pub const OVERRIDE_ACTIONS: [&str; 2] = ["Enforce", "enforce"];
}

/// The pattern of a qualified name as a taint or toleration key (`metav1.Condition.type`'s).
const QUALIFIED_KEY_PATTERN: &str = r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$";

#[cfg(test)]
mod tests;
