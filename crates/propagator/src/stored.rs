//! The Policies as the propagator keeps them in its store.
//!
//! A hub holds few root policies and many replicas (20,000 for 20 policies on 1,000
//! clusters). Each replica is read whole only by its own reconcile, while root reconciles,
//! key rotations and watch events need only its name, labels, annotations, resourceVersion
//! and compliance. So a replica is kept as those fields plus its JSON text, parsed on
//! demand: about a seventh of the memory of the parsed tree, where nearly all of the
//! controller's memory went (measured in docs/performance.md, "Policy propagator"). Roots
//! stay parsed, as every root reconcile reads them.
//!
//! `managedFields` are dropped from both, as controller-runtime's caches commonly do: the
//! propagator never reads them, a replica it writes carries none, and an update without
//! them leaves the API server's record as it is.

use std::borrow::Cow;
use std::sync::Arc;

use kube::api::{DynamicObject, ObjectMeta};
use kube::core::NamespaceResourceScope;
use serde_json::Value;

use crate::index::is_replica_meta;

const GROUP: &str = "policy.open-cluster-management.io";
const API_VERSION: &str = "policy.open-cluster-management.io/v1";

#[derive(Clone, Debug)]
pub enum StoredPolicy {
    Root(Arc<DynamicObject>),
    Replica(Arc<Replica>),
}

/// A replicated policy: what indexes and events read, and the whole object as JSON text.
#[derive(Clone, Debug)]
pub struct Replica {
    /// Name, namespace, resourceVersion, labels and annotations (the rest is in the text).
    pub metadata: ObjectMeta,
    /// `status.compliant`.
    pub compliance: Option<String>,
    text: Box<str>,
}

impl Replica {
    /// The replica as JSON, `apiVersion` and `kind` included.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.text).unwrap_or(Value::Null)
    }
}

impl StoredPolicy {
    /// The form kept for a Policy the watch delivered.
    pub fn from_watched(mut object: DynamicObject) -> Self {
        object.metadata.managed_fields = None;
        if !is_replica_meta(&object.metadata) {
            return StoredPolicy::Root(Arc::new(object));
        }
        let compliance =
            object.data.pointer("/status/compliant").and_then(Value::as_str).map(str::to_owned);
        let json = to_json(&object);
        let metadata = ObjectMeta {
            name: object.metadata.name,
            namespace: object.metadata.namespace,
            resource_version: object.metadata.resource_version,
            labels: object.metadata.labels,
            annotations: object.metadata.annotations,
            ..ObjectMeta::default()
        };
        StoredPolicy::Replica(Arc::new(Replica {
            metadata,
            compliance,
            text: json.to_string().into_boxed_str(),
        }))
    }

    /// The policy as JSON, `apiVersion` and `kind` included.
    pub fn json(&self) -> Value {
        match self {
            StoredPolicy::Root(root) => to_json(root),
            StoredPolicy::Replica(replica) => replica.json(),
        }
    }

    pub fn metadata(&self) -> &ObjectMeta {
        match self {
            StoredPolicy::Root(root) => &root.metadata,
            StoredPolicy::Replica(replica) => &replica.metadata,
        }
    }

    pub fn as_root(&self) -> Option<&Arc<DynamicObject>> {
        match self {
            StoredPolicy::Root(root) => Some(root),
            StoredPolicy::Replica(_) => None,
        }
    }

    pub fn as_replica(&self) -> Option<&Arc<Replica>> {
        match self {
            StoredPolicy::Replica(replica) => Some(replica),
            StoredPolicy::Root(_) => None,
        }
    }
}

/// `object` as JSON, with the type fields a list item may lack.
fn to_json(object: &DynamicObject) -> Value {
    let mut json = serde_json::to_value(object).unwrap_or(Value::Null);
    if let Some(map) = json.as_object_mut() {
        map.entry("apiVersion").or_insert_with(|| Value::String(API_VERSION.to_owned()));
        map.entry("kind").or_insert_with(|| Value::String("Policy".to_owned()));
    }
    json
}

/// Lets a reflector store hold it, keyed by namespace and name.
impl kube::Resource for StoredPolicy {
    type DynamicType = ();
    type Scope = NamespaceResourceScope;

    fn kind(_: &()) -> Cow<'_, str> {
        "Policy".into()
    }
    fn group(_: &()) -> Cow<'_, str> {
        GROUP.into()
    }
    fn version(_: &()) -> Cow<'_, str> {
        "v1".into()
    }
    fn plural(_: &()) -> Cow<'_, str> {
        "policies".into()
    }
    fn meta(&self) -> &ObjectMeta {
        self.metadata()
    }
    fn meta_mut(&mut self) -> &mut ObjectMeta {
        match self {
            StoredPolicy::Root(root) => &mut Arc::make_mut(root).metadata,
            StoredPolicy::Replica(replica) => &mut Arc::make_mut(replica).metadata,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::policy_resource;
    use certgate_templates::replica::LABEL_ROOT_POLICY;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ManagedFieldsEntry;

    fn watched(labels: &[(&str, &str)]) -> DynamicObject {
        let mut object = DynamicObject::new("policies.p", &policy_resource()).within("cluster1");
        object.metadata.resource_version = Some("12".to_owned());
        object.metadata.labels =
            Some(labels.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect());
        object.metadata.managed_fields = Some(vec![ManagedFieldsEntry::default()]);
        object.data = serde_json::json!({
            "spec": {"remediationAction": "inform", "disabled": false},
            "status": {"compliant": "NonCompliant"},
        });
        object
    }

    #[test]
    fn a_replica_keeps_its_whole_json_and_the_fields_indexes_read() {
        let object = watched(&[(LABEL_ROOT_POLICY, "policies.p")]);
        let mut expected = serde_json::to_value(&object).unwrap();
        expected["metadata"].as_object_mut().unwrap().remove("managedFields");
        let stored = StoredPolicy::from_watched(object);
        let replica = stored.as_replica().expect("a replica");
        assert_eq!(replica.json(), expected);
        assert_eq!(replica.compliance.as_deref(), Some("NonCompliant"));
        assert_eq!(stored.metadata().resource_version.as_deref(), Some("12"));
        assert_eq!(stored.metadata().namespace.as_deref(), Some("cluster1"));
        assert!(stored.as_root().is_none());
    }

    #[test]
    fn a_root_stays_parsed_without_managed_fields() {
        let stored = StoredPolicy::from_watched(watched(&[("team", "platform")]));
        let root = stored.as_root().expect("a root");
        assert!(root.metadata.managed_fields.is_none());
        assert_eq!(root.data.pointer("/spec/disabled"), Some(&Value::Bool(false)));
    }

    #[test]
    fn a_list_item_without_type_fields_gets_them() {
        let mut object = watched(&[(LABEL_ROOT_POLICY, "policies.p")]);
        object.types = None;
        let json = StoredPolicy::from_watched(object).as_replica().unwrap().json();
        assert_eq!(json["apiVersion"], API_VERSION);
        assert_eq!(json["kind"], "Policy");
    }
}
