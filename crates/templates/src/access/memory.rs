//! An in-memory [`ObjectReader`] for the offline CLI, tests and benchmarks.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use super::reader::{ObjectReader, ReadError, ResourceInfo};
use super::selector::LabelSelector;

/// An object [`InMemoryObjects`] cannot index.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("object {index} cannot be stored: {reason}")]
pub struct InvalidObject {
    /// Position in the input.
    pub index: usize,
    pub reason: String,
}

/// `name → object`.
type ByName = BTreeMap<String, Arc<serde_json::Value>>;

/// Objects held in memory with a discovery table. Gets are a few map lookups (no scan), so
/// the per-read cost does not grow with the number of clusters.
#[derive(Clone, Debug)]
pub struct InMemoryObjects {
    kinds: Vec<ResourceInfo>,
    /// `kind → group → namespace → name → object`; cluster-scoped objects under `""`.
    /// Versions are not part of the key: an API server serves an object in every version
    /// of its group.
    objects: HashMap<String, HashMap<String, BTreeMap<String, ByName>>>,
}

impl Default for InMemoryObjects {
    fn default() -> Self {
        Self { kinds: builtin_kinds(), objects: HashMap::new() }
    }
}

/// The kinds hub templates read on an OCM hub.
fn builtin_kinds() -> Vec<ResourceInfo> {
    const CLUSTER: &str = "cluster.open-cluster-management.io";
    const RBAC: &str = "rbac.authorization.k8s.io";
    vec![
        ResourceInfo::new("", "v1", "Secret", "secrets", true),
        ResourceInfo::new("", "v1", "ConfigMap", "configmaps", true),
        ResourceInfo::new("", "v1", "ServiceAccount", "serviceaccounts", true),
        ResourceInfo::new("", "v1", "Namespace", "namespaces", false),
        ResourceInfo::new("", "v1", "Node", "nodes", false),
        ResourceInfo::new(CLUSTER, "v1", "ManagedCluster", "managedclusters", false),
        ResourceInfo::new(CLUSTER, "v1alpha1", "ClusterClaim", "clusterclaims", false),
        ResourceInfo::new("policy.open-cluster-management.io", "v1", "Policy", "policies", true),
        ResourceInfo::new(RBAC, "v1", "Role", "roles", true),
        ResourceInfo::new(RBAC, "v1", "RoleBinding", "rolebindings", true),
        ResourceInfo::new(RBAC, "v1", "ClusterRole", "clusterroles", false),
        ResourceInfo::new(RBAC, "v1", "ClusterRoleBinding", "clusterrolebindings", false),
    ]
}

pub(crate) fn split_api_version(api_version: &str) -> (&str, &str) {
    api_version.split_once('/').unwrap_or(("", api_version))
}

impl InMemoryObjects {
    /// The built-in discovery table and these objects (each needs `apiVersion`, `kind` and
    /// `metadata.name`). A later object with the same identity replaces an earlier one.
    pub fn new(
        objects: impl IntoIterator<Item = serde_json::Value>,
    ) -> Result<Self, InvalidObject> {
        let mut store = Self::default();
        for (index, object) in objects.into_iter().enumerate() {
            store.insert(object).map_err(|reason| InvalidObject { index, reason })?;
        }
        Ok(store)
    }

    /// Serves another kind (a CRD); replaces an entry with the same group, version and kind.
    pub fn with_kind(mut self, info: ResourceInfo) -> Self {
        self.kinds.retain(|k| {
            !(k.group == info.group && k.version == info.version && k.kind == info.kind)
        });
        // Cluster-scoped objects stored before their kind was known move to the "" namespace.
        if let Some(namespaces) = self
            .objects
            .get_mut(&info.kind)
            .and_then(|g| g.get_mut(&info.group))
            .filter(|_| !info.namespaced)
        {
            let all: ByName = std::mem::take(namespaces).into_values().flatten().collect();
            namespaces.insert(String::new(), all);
        }
        self.kinds.push(info);
        self
    }

    /// Stops serving a kind (to model a missing CRD).
    pub fn without_kind(mut self, group: &str, kind: &str) -> Self {
        self.kinds.retain(|k| !(k.group == group && k.kind == kind));
        self
    }

    /// Adds or replaces one object.
    pub fn insert(&mut self, object: serde_json::Value) -> Result<(), String> {
        let text = |field: &str| object.get(field).and_then(serde_json::Value::as_str);
        let (Some(api_version), Some(kind)) = (text("apiVersion"), text("kind")) else {
            return Err("apiVersion and kind must be strings".to_owned());
        };
        let metadata = object.get("metadata");
        let field =
            |name: &str| metadata.and_then(|m| m.get(name)).and_then(serde_json::Value::as_str);
        let Some(name) = field("name").filter(|n| !n.is_empty()) else {
            return Err("metadata.name must be a non-empty string".to_owned());
        };
        let (group, _) = split_api_version(api_version);
        let cluster_scoped =
            self.kinds.iter().any(|k| k.group == group && k.kind == kind && !k.namespaced);
        let namespace = if cluster_scoped { "" } else { field("namespace").unwrap_or_default() };
        let (kind, group, namespace, name) =
            (kind.to_owned(), group.to_owned(), namespace.to_owned(), name.to_owned());
        self.objects
            .entry(kind)
            .or_default()
            .entry(group)
            .or_default()
            .entry(namespace)
            .or_default()
            .insert(name, Arc::new(object));
        Ok(())
    }

    /// Number of stored objects.
    pub fn len(&self) -> usize {
        self.objects
            .values()
            .flat_map(HashMap::values)
            .flat_map(BTreeMap::values)
            .map(BTreeMap::len)
            .sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn namespaces(&self, resource: &ResourceInfo) -> Option<&BTreeMap<String, ByName>> {
        self.objects.get(&resource.kind)?.get(&resource.group)
    }
}

impl ObjectReader for InMemoryObjects {
    fn resource(&self, api_version: &str, kind: &str) -> Option<ResourceInfo> {
        let (group, version) = split_api_version(api_version);
        self.kinds
            .iter()
            .find(|k| k.group == group && k.version == version && k.kind == kind)
            .cloned()
    }

    fn get(
        &self,
        resource: &ResourceInfo,
        namespace: &str,
        name: &str,
    ) -> Result<Option<Arc<serde_json::Value>>, ReadError> {
        Ok(self
            .namespaces(resource)
            .and_then(|n| n.get(namespace))
            .and_then(|n| n.get(name))
            .cloned())
    }

    fn list(
        &self,
        resource: &ResourceInfo,
        namespace: &str,
        selector: &LabelSelector,
    ) -> Result<Vec<Arc<serde_json::Value>>, ReadError> {
        let Some(namespaces) = self.namespaces(resource) else { return Ok(Vec::new()) };
        let selected = |object: &&Arc<serde_json::Value>| {
            selector
                .matches(object.pointer("/metadata/labels").and_then(serde_json::Value::as_object))
        };
        let items = if namespace.is_empty() {
            namespaces.values().flat_map(BTreeMap::values).filter(selected).cloned().collect()
        } else {
            namespaces
                .get(namespace)
                .into_iter()
                .flat_map(BTreeMap::values)
                .filter(selected)
                .cloned()
                .collect()
        };
        Ok(items)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn indexes_by_kind_namespace_and_name() {
        let store = InMemoryObjects::new([
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "namespace": "x", "labels": {"k": "v"}}}),
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "b", "namespace": "y"}}),
            json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n", "namespace": "ignored"}}),
        ])
        .expect("valid objects");
        assert_eq!(store.len(), 3);
        let cm = store.resource("v1", "ConfigMap").expect("built in");
        assert!(store.get(&cm, "x", "a").expect("reads").is_some());
        assert!(store.get(&cm, "y", "a").expect("reads").is_none());
        assert_eq!(store.list(&cm, "", &LabelSelector::everything()).expect("lists").len(), 2);
        let selector = LabelSelector::parse("k=v").expect("valid");
        assert_eq!(store.list(&cm, "", &selector).expect("lists").len(), 1);
        let node = store.resource("v1", "Node").expect("built in");
        assert!(store.get(&node, "", "n").expect("reads").is_some());
        assert!(store.resource("v2", "ConfigMap").is_none());
        assert!(InMemoryObjects::new([json!({"kind": "ConfigMap"})]).is_err());
    }
}
