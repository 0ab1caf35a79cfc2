//! The data hub templates see as dot: `.ManagedClusterName`, `.ManagedClusterLabels` and
//! `.PolicyMetadata` of the root policy.

use std::collections::BTreeMap;
use std::sync::Arc;

use certgate_gotemplate::Value;

/// The root policy's metadata as templates see it (`.PolicyMetadata.name` …, lower-case keys
/// as upstream's map).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PolicyMetadata {
    pub name: String,
    pub namespace: String,
    pub labels: BTreeMap<String, String>,
    pub annotations: BTreeMap<String, String>,
}

/// What one resolution for one managed cluster sees.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HubContext {
    pub managed_cluster_name: String,
    /// Filled by the resolver from the ManagedCluster when a template mentions
    /// `ManagedClusterLabels` (upstream's context transformer); otherwise `None`, which
    /// templates see as an empty map (upstream's nil `map[string]string`).
    pub managed_cluster_labels: Option<BTreeMap<String, String>>,
    pub policy_metadata: PolicyMetadata,
}

fn string_map(map: &BTreeMap<String, String>) -> Value {
    Value::Map(Arc::new(
        map.iter()
            .map(|(k, v)| (Arc::from(k.as_str()), Value::String(Arc::from(v.as_str()))))
            .collect(),
    ))
}

impl HubContext {
    pub(crate) fn to_value(&self) -> Value {
        let metadata: BTreeMap<Arc<str>, Value> = [
            ("annotations", string_map(&self.policy_metadata.annotations)),
            ("labels", string_map(&self.policy_metadata.labels)),
            ("name", Value::String(Arc::from(self.policy_metadata.name.as_str()))),
            ("namespace", Value::String(Arc::from(self.policy_metadata.namespace.as_str()))),
        ]
        .into_iter()
        .map(|(k, v)| (Arc::from(k), v))
        .collect();
        // Upstream's field is a `map[string]string` left nil: still a map, so `index` on it
        // does not fail as on an untyped nil, it prints `map[]`, is falsy and ranges over
        // nothing, all as an empty map here. (A missing key gives Go's "" there and nil here:
        // maps carry no element type; docs/templates.md lists it.)
        let labels = self
            .managed_cluster_labels
            .as_ref()
            .map_or_else(|| string_map(&BTreeMap::new()), string_map);
        let root: BTreeMap<Arc<str>, Value> = [
            ("ManagedClusterLabels", labels),
            ("ManagedClusterName", Value::String(Arc::from(self.managed_cluster_name.as_str()))),
            ("PolicyMetadata", Value::Map(Arc::new(metadata))),
        ]
        .into_iter()
        .map(|(k, v)| (Arc::from(k), v))
        .collect();
        Value::Map(Arc::new(root))
    }
}
