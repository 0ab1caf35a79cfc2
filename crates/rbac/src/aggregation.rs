//! ClusterRole aggregation: the rules the `clusterrole-aggregation` controller writes into
//! every ClusterRole that has an `aggregationRule`, computed once at build time.
//!
//! The controller replaces an aggregated role's rules with the union, without duplicates,
//! of the rules of every other ClusterRole matched by its selectors (selectors in order,
//! matches in name order). Roles matched that are themselves aggregated contribute their
//! own aggregated rules, so at steady state the result is the union of the plain roles
//! reachable through selectors; this is computed by an iterative depth-first walk, which
//! also terminates on selector cycles.

use std::collections::{BTreeMap, HashSet};

use k8s_openapi::api::rbac::v1::ClusterRole;

use crate::rule::Rule;
use crate::selector;

/// Rules of each ClusterRole (same order as `roles`), with aggregation applied. A stored
/// `rules` list of an aggregated role is ignored, as the controller overwrites it.
pub(crate) fn resolve(roles: &[&ClusterRole]) -> Vec<Vec<Rule>> {
    let own: Vec<Vec<Rule>> =
        roles.iter().map(|role| role.rules.iter().flatten().map(Rule::from).collect()).collect();
    let mut by_name: Vec<usize> = (0..roles.len()).collect();
    by_name.sort_by(|a, b| roles[*a].metadata.name.cmp(&roles[*b].metadata.name));
    let sources: Vec<Option<Vec<usize>>> =
        (0..roles.len()).map(|i| aggregation_sources(roles, &by_name, i)).collect();
    (0..roles.len())
        .map(|i| match &sources[i] {
            None => own[i].clone(),
            Some(_) => collect(i, &own, &sources),
        })
        .collect()
}

/// For an aggregated role, the roles its selectors match (itself excluded), selector by
/// selector and by name within a selector; `None` for a plain role.
fn aggregation_sources(
    roles: &[&ClusterRole],
    by_name: &[usize],
    index: usize,
) -> Option<Vec<usize>> {
    let rule = roles.get(index)?.aggregation_rule.as_ref()?;
    let no_labels = BTreeMap::new();
    let mut sources = Vec::new();
    for selector in rule.cluster_role_selectors.iter().flatten() {
        for &candidate in by_name {
            let labels = roles[candidate].metadata.labels.as_ref().unwrap_or(&no_labels);
            if candidate != index && selector::matches(selector, labels) {
                sources.push(candidate);
            }
        }
    }
    Some(sources)
}

/// The aggregated rules of role `start`: rules of plain roles in walk order, each once.
fn collect(start: usize, own: &[Vec<Rule>], sources: &[Option<Vec<usize>>]) -> Vec<Rule> {
    let mut visited = vec![false; own.len()];
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    // Each frame is (aggregated role, position of its next source).
    let mut stack = vec![(start, 0usize)];
    if let Some(flag) = visited.get_mut(start) {
        *flag = true;
    }
    while let Some((role, position)) = stack.pop() {
        let Some(Some(children)) = sources.get(role) else { continue };
        let Some(&child) = children.get(position) else { continue };
        stack.push((role, position + 1));
        match sources.get(child) {
            Some(Some(_)) => {
                if let Some(flag) = visited.get_mut(child).filter(|flag| !**flag) {
                    *flag = true;
                    stack.push((child, 0));
                }
            }
            _ => {
                for rule in own.get(child).into_iter().flatten() {
                    if seen.insert(rule) {
                        out.push(rule.clone());
                    }
                }
            }
        }
    }
    out
}
