//! Which resources are served right now: the built-ins, plus those of every established
//! CustomResourceDefinition. Read on every request, written when a CRD changes.

use std::collections::BTreeMap;
use std::sync::{PoisonError, RwLock};

use crate::resources::{ResourceType, builtins};

/// Served resources by group, version and plural. CRD-defined resources are replaced as a
/// whole each time their CRD changes.
#[derive(Debug)]
pub struct Registry {
    served: RwLock<Served>,
}

#[derive(Debug, Default)]
struct Served {
    /// (group, version, plural) → resource.
    by_path: BTreeMap<(String, String, String), ResourceType>,
    /// Group versions in discovery order: the core group first, then groups as first seen.
    order: Vec<(String, String)>,
    /// CRD name → the (group, version, plural) entries it added.
    from_crd: BTreeMap<String, Vec<(String, String, String)>>,
}

impl Default for Registry {
    fn default() -> Self {
        let registry = Registry { served: RwLock::new(Served::default()) };
        for resource in builtins() {
            registry.insert(resource);
        }
        registry
    }
}

impl Registry {
    fn insert(&self, resource: ResourceType) {
        let mut served = self.served.write().unwrap_or_else(PoisonError::into_inner);
        let gv = (resource.group.clone(), resource.version.clone());
        if !served.order.contains(&gv) {
            served.order.push(gv);
        }
        let key = (resource.group.clone(), resource.version.clone(), resource.plural.clone());
        served.by_path.insert(key, resource);
    }

    /// Serves `resources` for the CRD `name`, replacing what it served before.
    pub fn set_crd(&self, name: &str, resources: Vec<ResourceType>) {
        self.remove_crd(name);
        let keys = resources
            .iter()
            .map(|r| (r.group.clone(), r.version.clone(), r.plural.clone()))
            .collect();
        for resource in resources {
            self.insert(resource);
        }
        let mut served = self.served.write().unwrap_or_else(PoisonError::into_inner);
        served.from_crd.insert(name.to_owned(), keys);
    }

    /// Stops serving what the CRD `name` added.
    pub fn remove_crd(&self, name: &str) {
        let mut served = self.served.write().unwrap_or_else(PoisonError::into_inner);
        let Some(keys) = served.from_crd.remove(name) else { return };
        for key in keys {
            served.by_path.remove(&key);
        }
        let Served { by_path, order, .. } = &mut *served;
        order.retain(|(g, v)| by_path.keys().any(|(group, version, _)| group == g && version == v));
    }

    /// The resource at `/api(s)/<group>/<version>/<plural>`.
    pub fn get(&self, group: &str, version: &str, plural: &str) -> Option<ResourceType> {
        let served = self.served.read().unwrap_or_else(PoisonError::into_inner);
        served.by_path.get(&(group.to_owned(), version.to_owned(), plural.to_owned())).cloned()
    }

    /// Every served group version, in discovery order, with its resources.
    pub fn group_versions(&self) -> Vec<(String, String, Vec<ResourceType>)> {
        let served = self.served.read().unwrap_or_else(PoisonError::into_inner);
        served
            .order
            .iter()
            .map(|(group, version)| {
                let resources = served
                    .by_path
                    .iter()
                    .filter(|((g, v, _), _)| g == group && v == version)
                    .map(|(_, r)| r.clone())
                    .collect();
                (group.clone(), version.clone(), resources)
            })
            .collect()
    }
}
