//! The root policies as the replicated reconcile reads them: `apiVersion`, `kind`,
//! `metadata` and `spec` as JSON, built once per resourceVersion and shared by every
//! replica of the root. The status is left out: a root's status lists every cluster (about
//! 70 KB at 1,000 clusters), and no replica is built from it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use kube::api::DynamicObject;
use serde_json::{Map, Value};

/// A root policy: (namespace, name).
type RootKey = (String, String);
/// The JSON of a root at a resourceVersion.
type Versioned = (String, Arc<Value>);

#[derive(Default)]
pub struct RootJson(Mutex<HashMap<RootKey, Versioned>>);

impl RootJson {
    /// The JSON of `root` at its current resourceVersion.
    pub fn get(&self, root: &DynamicObject) -> Arc<Value> {
        let (Some(namespace), Some(name), Some(version)) =
            (&root.metadata.namespace, &root.metadata.name, &root.metadata.resource_version)
        else {
            return Arc::new(without_status(root));
        };
        let key = (namespace.clone(), name.clone());
        if let Some((cached, json)) = self.lock().get(&key)
            && cached == version
        {
            return json.clone();
        }
        // Built outside the lock: ten replica workers read different roots at once.
        let json = Arc::new(without_status(root));
        self.lock().insert(key, (version.clone(), json.clone()));
        json
    }

    /// Forgets a deleted root.
    pub fn forget(&self, namespace: &str, name: &str) {
        self.lock().remove(&(namespace.to_owned(), name.to_owned()));
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<RootKey, Versioned>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

fn without_status(root: &DynamicObject) -> Value {
    let mut json = Map::new();
    let types = root.types.as_ref();
    let api_version = types.map_or("policy.open-cluster-management.io/v1", |t| &t.api_version);
    json.insert("apiVersion".to_owned(), Value::String(api_version.to_owned()));
    json.insert("kind".to_owned(), Value::String(types.map_or("Policy", |t| &t.kind).to_owned()));
    json.insert("metadata".to_owned(), serde_json::to_value(&root.metadata).unwrap_or_default());
    for (field, value) in root.data.as_object().into_iter().flatten() {
        if field != "status" {
            json.insert(field.clone(), value.clone());
        }
    }
    Value::Object(json)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::policy_resource;

    fn root(version: &str, spec: Value) -> DynamicObject {
        let mut root = DynamicObject::new("p", &policy_resource()).within("policies");
        root.metadata.resource_version = Some(version.to_owned());
        root.data = serde_json::json!({
            "spec": spec,
            "status": {"compliant": "Compliant", "status": [{"clustername": "c1"}]},
        });
        root
    }

    #[test]
    fn is_the_policy_without_its_status() {
        let root = root("1", serde_json::json!({"disabled": false}));
        let mut expected = serde_json::to_value(&root).unwrap();
        expected.as_object_mut().unwrap().remove("status");
        assert_eq!(*RootJson::default().get(&root), expected);
    }

    #[test]
    fn is_built_once_per_resource_version() {
        let roots = RootJson::default();
        let first = roots.get(&root("1", serde_json::json!({"disabled": false})));
        let again = roots.get(&root("1", serde_json::json!({"disabled": false})));
        assert!(Arc::ptr_eq(&first, &again));
        let edited = roots.get(&root("2", serde_json::json!({"disabled": true})));
        assert_eq!(edited.pointer("/spec/disabled"), Some(&Value::Bool(true)));
        roots.forget("policies", "p");
        let rebuilt = roots.get(&root("2", serde_json::json!({"disabled": true})));
        assert!(!Arc::ptr_eq(&edited, &rebuilt));
    }
}
