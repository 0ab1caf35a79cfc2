//! The root policy's status (upstream's `CalculatePerClusterStatus` and
//! `CalculateRootCompliance`).

use std::collections::BTreeMap;

use certgate_api::ocm::{CompliancePerClusterStatus, PolicyPlacement, RemainingBinding};

use super::decisions::DecisionSet;

/// One entry per decided cluster, sorted by cluster name, with the compliance its replica
/// reports (`compliance(cluster)`, `None` while the replica is missing or has none). A
/// disabled policy has none. `remainingBindings` lists, for a cluster a PolicySet path
/// excludes, the bindings that still place the policy there.
pub fn cluster_statuses(
    disabled: bool,
    placements: &[PolicyPlacement],
    decisions: &DecisionSet,
    compliance: &dyn Fn(&str) -> Option<String>,
) -> Vec<CompliancePerClusterStatus> {
    if disabled {
        return Vec::new();
    }
    let remaining = remaining_bindings(placements, decisions);
    decisions
        .keys()
        .map(|cluster| CompliancePerClusterStatus {
            compliant: compliance(cluster).filter(|c| !c.is_empty()),
            clustername: Some(cluster.clone()),
            clusternamespace: Some(cluster.clone()),
            remaining_bindings: remaining.get(cluster).cloned(),
        })
        .collect()
}

fn remaining_bindings(
    placements: &[PolicyPlacement],
    decisions: &DecisionSet,
) -> BTreeMap<String, Vec<RemainingBinding>> {
    let mut excluding: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for placement in
        placements.iter().filter(|p| p.policy_set.as_deref().is_some_and(|s| !s.is_empty()))
    {
        let binding = placement.placement_binding.as_deref().unwrap_or_default();
        for exclusion in placement.exclusions.iter().flatten() {
            let cluster = exclusion.cluster_name.as_deref().unwrap_or_default();
            excluding.entry(cluster).or_default().push(binding);
        }
    }
    let mut result = BTreeMap::new();
    for (cluster, bindings) in decisions {
        let Some(excluded_by) = excluding.get(cluster.as_str()) else { continue };
        let mut remaining: Vec<&String> =
            bindings.iter().filter(|b| !excluded_by.contains(&b.as_str())).collect();
        if remaining.is_empty() {
            continue;
        }
        remaining.sort();
        result.insert(
            cluster.clone(),
            remaining
                .into_iter()
                .map(|b| RemainingBinding { placement_binding: Some(b.clone()) })
                .collect(),
        );
    }
    result
}

/// The root's `status.compliant`: NonCompliant over Pending over unknown over Compliant; no
/// clusters, or any cluster without a known state (and none NonCompliant or Pending), gives
/// none.
pub fn root_compliance(statuses: &[CompliancePerClusterStatus]) -> Option<String> {
    if statuses.is_empty() {
        return None;
    }
    let (mut pending, mut unknown) = (false, false);
    for status in statuses {
        match status.compliant.as_deref() {
            Some("NonCompliant") => return Some("NonCompliant".to_owned()),
            Some("Pending") => pending = true,
            Some("Compliant") => {}
            _ => unknown = true,
        }
    }
    if pending {
        Some("Pending".to_owned())
    } else if unknown {
        None
    } else {
        Some("Compliant".to_owned())
    }
}
