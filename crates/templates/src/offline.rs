//! Replication of root policies from objects held in memory: what `certgate template resolve`
//! and the benchmark run, and what a controller runs with live readers.

use std::sync::Arc;

use certgate_rbac::{Authorizer, RbacAuthorizer, RbacObjects};
use serde_json::Value;

use crate::access::split_api_version;
use crate::access::{Access, InMemoryObjects, InvalidObject, ObjectReader, ResourceInfo};
use crate::pipeline::HubResolver;
pub use crate::replica::Replication;
use crate::replica::{
    EncryptionSource, LABEL_ROOT_POLICY, ReplicaSources, ResolverSetup, replica_name,
};

/// Everything a replication may read: the objects (ConfigMaps, Secrets, ManagedClusters,
/// ServiceAccounts, PolicySets …) and the RBAC objects that decide a ServiceAccount's reads.
pub struct World {
    reader: Arc<InMemoryObjects>,
    authorizer: Arc<dyn Authorizer>,
}

impl World {
    /// `objects` may include RBAC objects (evaluated with certgate-rbac) and
    /// CustomResourceDefinitions. Every kind present in `objects` is served: with the scope
    /// and plural of its CRD when one is given, otherwise namespaced if its objects have a
    /// namespace, with the plural `<lowercase kind>s`. Fails when an object lacks
    /// `apiVersion`, `kind` or `metadata.name`, or an RBAC object is malformed.
    pub fn new(objects: &[Value]) -> Result<Self, InvalidObject> {
        let rbac = rbac_objects(objects)?;
        let kinds = kinds_of(objects);
        let mut reader = InMemoryObjects::new(objects.iter().cloned())?;
        for info in kinds {
            if reader.resource(&api_version_of(&info), &info.kind).is_none() {
                reader = reader.with_kind(info);
            }
        }
        Ok(Self { reader: Arc::new(reader), authorizer: Arc::new(RbacAuthorizer::new(rbac)) })
    }

    pub fn reader(&self) -> Arc<dyn ObjectReader> {
        self.reader.clone()
    }

    /// The propagator's own reads (PolicySets, ServiceAccounts, the current replica): not
    /// template reads, so no access checks and nothing recorded.
    fn find(&self, api_version: &str, kind: &str, namespace: &str, name: &str) -> Option<Value> {
        let resource = self.reader.resource(api_version, kind)?;
        let found = self.reader.get(&resource, namespace, name).ok().flatten()?;
        Some(Value::clone(&found))
    }
}

fn api_version_of(info: &ResourceInfo) -> String {
    if info.group.is_empty() {
        info.version.clone()
    } else {
        format!("{}/{}", info.group, info.version)
    }
}

/// The kinds of `objects` as discovery would list them, from their CRDs where given.
fn kinds_of(objects: &[Value]) -> Vec<ResourceInfo> {
    let text =
        |o: &Value, pointer: &str| o.pointer(pointer).and_then(Value::as_str).map(str::to_owned);
    let mut kinds: Vec<ResourceInfo> = Vec::new();
    for crd in
        objects.iter().filter(|o| text(o, "/kind").as_deref() == Some("CustomResourceDefinition"))
    {
        let (Some(group), Some(kind), Some(plural)) = (
            text(crd, "/spec/group"),
            text(crd, "/spec/names/kind"),
            text(crd, "/spec/names/plural"),
        ) else {
            continue;
        };
        let namespaced = text(crd, "/spec/scope").as_deref() != Some("Cluster");
        let versions = crd.pointer("/spec/versions").and_then(Value::as_array);
        for version in versions.into_iter().flatten().filter_map(|v| v.get("name")?.as_str()) {
            kinds.push(ResourceInfo::new(&group, version, &kind, &plural, namespaced));
        }
    }
    for object in objects {
        let (Some(api_version), Some(kind)) = (text(object, "/apiVersion"), text(object, "/kind"))
        else {
            continue;
        };
        let (group, version) = split_api_version(&api_version);
        let known =
            kinds.iter().any(|k| k.group == group && k.version == version && k.kind == kind);
        if !known && kind != "List" {
            let namespaced = object.pointer("/metadata/namespace").is_some();
            let plural = format!("{}s", kind.to_lowercase());
            kinds.push(ResourceInfo::new(group, version, &kind, &plural, namespaced));
        }
    }
    kinds
}

/// Whether an object is a root Policy (not a replica).
pub fn is_root_policy(object: &Value) -> bool {
    object.get("kind").and_then(Value::as_str) == Some("Policy")
        && object.get("apiVersion").and_then(Value::as_str)
            == Some("policy.open-cluster-management.io/v1")
        && object
            .pointer(&format!("/metadata/labels/{}", LABEL_ROOT_POLICY.replace('/', "~1")))
            .is_none()
}

/// Builds the replica of `root` for `cluster` and resolves its hub templates (§3 step 6–8).
pub fn replicate(
    root: &Value,
    cluster: &str,
    world: &World,
    resolver: &HubResolver,
    encryption: &dyn EncryptionSource,
) -> Replication {
    let policy_set = |ns: &str, name: &str| {
        world.find("policy.open-cluster-management.io/v1beta1", "PolicySet", ns, name)
    };
    let text = |pointer: &str| root.pointer(pointer).and_then(Value::as_str).unwrap_or("");
    let root_namespace = text("/metadata/namespace").to_owned();
    let existing = world.find(
        "policy.open-cluster-management.io/v1",
        "Policy",
        cluster,
        &replica_name(&root_namespace, text("/metadata/name")),
    );
    let setup = match text("/spec/hubTemplateOptions/serviceAccountName") {
        "" => ResolverSetup::Ready {
            reader: world.reader(),
            access: Access::for_policy(&root_namespace, cluster),
        },
        sa if world.find("v1", "ServiceAccount", &root_namespace, sa).is_some() => {
            ResolverSetup::Ready {
                reader: world.reader(),
                access: Access::ServiceAccount {
                    namespace: root_namespace.clone(),
                    name: sa.to_owned(),
                    authorizer: world.authorizer.clone(),
                },
            }
        }
        sa => ResolverSetup::ServiceAccountMissing(format!("{root_namespace}/{sa}")),
    };
    crate::replica::replicate(
        root,
        ReplicaSources {
            cluster,
            existing: existing.as_ref(),
            policy_set: &policy_set,
            remediation_override: None,
            setup,
            resolver,
            encryption,
        },
    )
}

/// The RBAC objects among `objects`; one that does not decode is an input error (silently
/// dropping a binding would change what a ServiceAccount may read).
fn rbac_objects(objects: &[Value]) -> Result<RbacObjects, InvalidObject> {
    fn decode<T: serde::de::DeserializeOwned>(
        index: usize,
        object: &Value,
        into: &mut Vec<T>,
    ) -> Result<(), InvalidObject> {
        let value = serde_json::from_value(object.clone())
            .map_err(|e| InvalidObject { index, reason: e.to_string() })?;
        into.push(value);
        Ok(())
    }
    let mut rbac = RbacObjects::default();
    for (index, object) in objects.iter().enumerate() {
        if object.get("apiVersion").and_then(Value::as_str) != Some("rbac.authorization.k8s.io/v1")
        {
            continue;
        }
        match object.get("kind").and_then(Value::as_str) {
            Some("Role") => decode(index, object, &mut rbac.roles)?,
            Some("ClusterRole") => decode(index, object, &mut rbac.cluster_roles)?,
            Some("RoleBinding") => decode(index, object, &mut rbac.role_bindings)?,
            Some("ClusterRoleBinding") => decode(index, object, &mut rbac.cluster_role_bindings)?,
            _ => {}
        }
    }
    Ok(rbac)
}
