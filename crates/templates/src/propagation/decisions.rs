//! Placement decisions for a root policy (spec §3 step 5), as upstream's `common` package
//! computes them for the root's status and the replicated-policy reconcile computes them
//! for one cluster.

use std::collections::{BTreeMap, BTreeSet};

use certgate_api::ocm::{PlacementBinding, PolicyExclusion, PolicyPlacement, PolicySet};

use super::snapshot::Snapshot;
use crate::replica::POLICY_GROUP;

const PLACEMENT_GROUP: &str = "cluster.open-cluster-management.io";
const PLACEMENT_RULE_GROUP: &str = "apps.open-cluster-management.io";
const SUB_FILTER_RESTRICTED: &str = "restricted";

/// Cluster name → the names of the bindings that place the policy there, sorted.
pub type DecisionSet = BTreeMap<String, Vec<String>>;

/// Everything placed for a root policy: its `status.placement` entries and the clusters.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RootDecisions {
    pub placements: Vec<PolicyPlacement>,
    pub decisions: DecisionSet,
}

/// Whether one cluster gets the replica, and the binding override that applies.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClusterDecision {
    /// `bindingOverrides.remediationAction` of the first selecting binding that enforces.
    pub remediation_override: Option<String>,
}

/// Upstream accepts a `placementRef` only with the group that serves its kind.
fn has_valid_placement_ref(binding: &PlacementBinding) -> bool {
    let reference = &binding.placement_ref;
    match reference.kind.as_str() {
        "PlacementRule" => reference.api_group == PLACEMENT_RULE_GROUP,
        "Placement" => reference.api_group == PLACEMENT_GROUP,
        _ => false,
    }
}

fn is_restricted(binding: &PlacementBinding) -> bool {
    binding.sub_filter.as_deref() == Some(SUB_FILTER_RESTRICTED)
}

fn enforcing_override(binding: &PlacementBinding) -> Option<String> {
    let action = binding.binding_overrides.as_ref()?.remediation_action.as_deref()?;
    action.eq_ignore_ascii_case("enforce").then(|| action.to_owned())
}

fn namespace_of(binding: &PlacementBinding) -> &str {
    binding.metadata.namespace.as_deref().unwrap_or_default()
}

fn name_of(binding: &PlacementBinding) -> &str {
    binding.metadata.name.as_deref().unwrap_or_default()
}

fn contains_policy(set: &PolicySet, policy: &str) -> bool {
    !policy.is_empty() && set.spec.policies.iter().any(|p| p == policy)
}

/// The clusters a PolicySet excludes for `policy`, sorted and without repeats.
fn excluded_clusters(set: &PolicySet, policy: &str) -> Vec<String> {
    let excluded: BTreeSet<&str> = set
        .spec
        .exclusions
        .iter()
        .flatten()
        .filter(|e| e.policy_name == policy)
        .flat_map(|e| e.cluster_names.iter().map(String::as_str))
        .collect();
    excluded.into_iter().map(str::to_owned).collect()
}

/// The clusters the binding's Placement or PlacementRule decided, in their order (upstream's
/// `GetDecisions`); a missing Placement decides nothing.
fn binding_decisions(binding: &PlacementBinding, snapshot: &dyn Snapshot) -> Vec<String> {
    let (namespace, reference) = (namespace_of(binding), &binding.placement_ref);
    match reference.kind.as_str() {
        "Placement" if snapshot.placement_exists(namespace, &reference.name) => snapshot
            .placement_decisions(namespace, &reference.name)
            .iter()
            .filter_map(|d| d.status.as_ref())
            .flat_map(|s| s.decisions.iter().map(|c| c.cluster_name.clone()))
            .collect(),
        "PlacementRule" => snapshot.placement_rule(namespace, &reference.name).unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// Upstream's `GetPolicyPlacementDecisions`: the binding's placement entries for the policy
/// and, unless the policy is disabled, the clusters it decides.
fn policy_placement_decisions(
    policy: &str,
    disabled: bool,
    binding: &PlacementBinding,
    snapshot: &dyn Snapshot,
) -> (Vec<String>, Vec<PolicyPlacement>) {
    let binding_name = name_of(binding).to_owned();
    let mut placements = Vec::new();
    let mut policy_subject_found = false;
    let mut seen_sets = BTreeSet::new();
    for subject in binding.subjects.iter().filter(|s| s.api_group == POLICY_GROUP) {
        match subject.kind.as_str() {
            "Policy" if !policy_subject_found && subject.name == policy => {
                policy_subject_found = true;
                placements.push(PolicyPlacement {
                    placement_binding: Some(binding_name.clone()),
                    ..PolicyPlacement::default()
                });
            }
            "PolicySet" if seen_sets.insert(subject.name.clone()) => {
                let Some(set) = snapshot.policy_set(namespace_of(binding), &subject.name) else {
                    continue;
                };
                if contains_policy(&set, policy) {
                    let exclusions: Vec<PolicyExclusion> = excluded_clusters(&set, policy)
                        .into_iter()
                        .map(|cluster| PolicyExclusion { cluster_name: Some(cluster) })
                        .collect();
                    placements.push(PolicyPlacement {
                        placement_binding: Some(binding_name.clone()),
                        policy_set: Some(subject.name.clone()),
                        exclusions: (!exclusions.is_empty()).then_some(exclusions),
                        ..PolicyPlacement::default()
                    });
                }
            }
            _ => {}
        }
    }
    if placements.is_empty() || !has_valid_placement_ref(binding) {
        return (Vec::new(), Vec::new());
    }
    let (namespace, reference) = (namespace_of(binding), &binding.placement_ref);
    for placement in &mut placements {
        // Empty (omitted) when the Placement or PlacementRule does not exist.
        if reference.kind == "PlacementRule" {
            placement.placement_rule =
                snapshot.placement_rule(namespace, &reference.name).map(|_| reference.name.clone());
        } else if snapshot.placement_exists(namespace, &reference.name) {
            placement.placement = Some(reference.name.clone());
        }
    }
    if disabled {
        return (Vec::new(), placements);
    }
    (binding_decisions(binding, snapshot), placements)
}

fn add_binding(decisions: &mut DecisionSet, cluster: String, binding: &str) {
    let bindings = decisions.entry(cluster).or_default();
    if !bindings.iter().any(|b| b == binding) {
        bindings.push(binding.to_owned());
    }
}

/// Every cluster the root policy `namespace/policy` is placed on, and its placement status
/// entries (upstream's `GetClusterDecisions`). Bindings with `subFilter: restricted` add
/// their placement entries only when one of their clusters is also decided by a
/// non-restricted binding; their clusters join the set either way (the replicated-policy
/// reconcile then refuses the ones no non-restricted binding selects, as upstream).
pub fn root_decisions(
    namespace: &str,
    policy: &str,
    disabled: bool,
    snapshot: &dyn Snapshot,
) -> RootDecisions {
    let bindings = snapshot.bindings(namespace);
    let mut decisions = DecisionSet::new();
    let mut placements = Vec::new();
    for binding in bindings.iter().filter(|b| !is_restricted(b)) {
        let (clusters, found) = policy_placement_decisions(policy, disabled, binding, snapshot);
        for cluster in clusters {
            add_binding(&mut decisions, cluster, name_of(binding));
        }
        placements.extend(found);
    }
    for binding in bindings.iter().filter(|b| is_restricted(b)) {
        let (clusters, found) = policy_placement_decisions(policy, disabled, binding, snapshot);
        let mut overlaps = false;
        for cluster in clusters {
            overlaps |= decisions.get(&cluster).is_some_and(|b| !b.is_empty());
            add_binding(&mut decisions, cluster, name_of(binding));
        }
        if overlaps {
            placements.extend(found);
        }
    }
    for bindings in decisions.values_mut() {
        bindings.sort();
    }
    let key = |p: &PolicyPlacement| {
        let text = |f: &Option<String>| f.clone().unwrap_or_default();
        format!(
            "{} {} {} {}",
            text(&p.placement_binding),
            text(&p.placement),
            text(&p.placement_rule),
            text(&p.policy_set)
        )
    };
    placements.sort_by_key(key);
    RootDecisions { placements, decisions }
}

/// Whether `binding` places the policy on `cluster` (upstream's `isSingleClusterInDecisions`):
/// a subject names the policy, or a PolicySet that holds it and does not exclude the cluster.
fn places_on_cluster(
    binding: &PlacementBinding,
    policy: &str,
    cluster: &str,
    snapshot: &dyn Snapshot,
) -> bool {
    if !has_valid_placement_ref(binding) {
        return false;
    }
    let subject_found = binding.subjects.iter().filter(|s| s.api_group == POLICY_GROUP).any(
        |subject| match subject.kind.as_str() {
            "Policy" => subject.name == policy,
            "PolicySet" => {
                snapshot.policy_set(namespace_of(binding), &subject.name).is_some_and(|set| {
                    contains_policy(&set, policy)
                        && !excluded_clusters(&set, policy).iter().any(|c| c == cluster)
                })
            }
            _ => false,
        },
    );
    subject_found && binding_decisions(binding, snapshot).iter().any(|c| c == cluster)
}

/// Whether the root policy `namespace/policy` is replicated to `cluster`, and with which
/// override (upstream's `singleClusterDecision`). Non-restricted bindings decide; a
/// restricted binding only contributes its override to a cluster already selected. The
/// first selecting binding whose override is `enforce` (any case) ends the search.
pub fn single_cluster(
    namespace: &str,
    policy: &str,
    cluster: &str,
    snapshot: &dyn Snapshot,
) -> Option<ClusterDecision> {
    let bindings = snapshot.bindings(namespace);
    let mut selected = false;
    for binding in bindings.iter().filter(|b| !is_restricted(b)) {
        if !places_on_cluster(binding, policy, cluster, snapshot) {
            continue;
        }
        if let Some(action) = enforcing_override(binding) {
            return Some(ClusterDecision { remediation_override: Some(action) });
        }
        selected = true;
    }
    if !selected {
        return None;
    }
    for binding in bindings.iter().filter(|b| is_restricted(b)) {
        if places_on_cluster(binding, policy, cluster, snapshot)
            && let Some(action) = enforcing_override(binding)
        {
            return Some(ClusterDecision { remediation_override: Some(action) });
        }
    }
    Some(ClusterDecision::default())
}
