//! The objects placement decisions are made from, as the propagator's caches hold them.

use std::sync::Arc;

use certgate_api::ocm::{PlacementBinding, PlacementDecision, PolicySet};

/// The label that ties a PlacementDecision to its Placement.
pub const PLACEMENT_LABEL: &str = "cluster.open-cluster-management.io/placement";

/// Read access to the cached objects placement decisions depend on. Implemented over watch
/// caches by the controller and over plain vectors by tests.
pub trait Snapshot {
    /// The PlacementBindings of `namespace`, in a stable order (upstream lists them by name).
    fn bindings(&self, namespace: &str) -> Vec<Arc<PlacementBinding>>;
    fn policy_set(&self, namespace: &str, name: &str) -> Option<Arc<PolicySet>>;
    /// Whether the Placement `namespace/name` exists.
    fn placement_exists(&self, namespace: &str, name: &str) -> bool;
    /// The PlacementDecisions of `namespace` labelled with [`PLACEMENT_LABEL`]` = placement`.
    fn placement_decisions(&self, namespace: &str, placement: &str) -> Vec<Arc<PlacementDecision>>;
    /// The clusters of the deprecated PlacementRule `namespace/name`'s `status.decisions`;
    /// `None` when it does not exist or PlacementRules are not served.
    fn placement_rule(&self, namespace: &str, name: &str) -> Option<Vec<String>>;
}
