//! Which managed clusters get a replica of a root policy, and what the propagator writes
//! (spec §2 and §3): pure decisions over a [`Snapshot`] of PlacementBindings, PolicySets,
//! Placements and their decisions, as governance-policy-propagator makes them.
//!
//! - [`decisions`]: every cluster a root policy is placed on, with the bindings that place
//!   it and the root's `status.placement` entries; and the decision for one cluster, with
//!   the binding's `remediationAction` override;
//! - [`status`]: the root's per-cluster status list and aggregated compliance;
//! - [`plan`]: what the replicated-policy reconcile does with one `<cluster>/<ns>.<name>`
//!   (delete, leave alone, replicate) and whether a built replica must be written.

pub mod decisions;
pub mod plan;
pub mod snapshot;
pub mod status;

pub use decisions::{ClusterDecision, DecisionSet, RootDecisions, root_decisions, single_cluster};
pub use plan::{ReplicaPlan, WritePlan, plan_replica, plan_write};
pub use snapshot::{PLACEMENT_LABEL, Snapshot};
pub use status::{cluster_statuses, root_compliance};
