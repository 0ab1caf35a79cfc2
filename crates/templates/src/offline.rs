//! Replication of root policies from objects held in memory: what `certgate template resolve`
//! and the benchmark run, and what a controller runs with live readers.

use std::sync::Arc;

use certgate_rbac::{Authorizer, RbacAuthorizer, RbacObjects};
use serde_json::Value;

use crate::access::split_api_version;
use crate::access::{
    Access, AllowedClusterScoped, InMemoryObjects, InvalidObject, ObjectReader, ResourceInfo,
};
use crate::pipeline::HubResolver;
use crate::replica::{
    ANNOTATION_ENCRYPTION_IV, EncryptionSource, LABEL_ROOT_POLICY, ResolverSetup, TemplateOutcome,
    TemplateProcessing, build_replica, process_templates, replica_name,
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

/// One root policy replicated for one cluster.
#[derive(Debug)]
pub struct Replication {
    pub replica: Value,
    pub outcome: TemplateOutcome,
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
    let (mut replica, metadata) = build_replica(root, cluster, &policy_set);
    let root_namespace = metadata.policy_metadata.namespace.clone();

    // Step 7: the IV of the replica as it exists now.
    let existing_name = replica_name(&root_namespace, &metadata.policy_metadata.name);
    let existing =
        world.find("policy.open-cluster-management.io/v1", "Policy", cluster, &existing_name);
    let existing_iv = existing
        .as_ref()
        .and_then(|e| e.pointer("/metadata/annotations"))
        .and_then(|a| a.get(ANNOTATION_ENCRYPTION_IV))
        .cloned();
    let annotations = replica.pointer_mut("/metadata/annotations").and_then(Value::as_object_mut);
    if let (Some(iv), Some(annotations)) = (existing_iv, annotations) {
        annotations.insert(ANNOTATION_ENCRYPTION_IV.to_owned(), iv);
    }

    let setup =
        match root.pointer("/spec/hubTemplateOptions/serviceAccountName").and_then(Value::as_str) {
            Some(sa) if !sa.is_empty() => {
                if world.find("v1", "ServiceAccount", &root_namespace, sa).is_some() {
                    ResolverSetup::Ready {
                        reader: world.reader(),
                        access: Access::ServiceAccount {
                            namespace: root_namespace.clone(),
                            name: sa.to_owned(),
                            authorizer: world.authorizer.clone(),
                        },
                    }
                } else {
                    ResolverSetup::ServiceAccountMissing(format!("{root_namespace}/{sa}"))
                }
            }
            _ => ResolverSetup::Ready {
                reader: world.reader(),
                access: Access::Default {
                    lookup_namespace: root_namespace.clone(),
                    cluster_scoped_allowlist: vec![AllowedClusterScoped {
                        group: "cluster.open-cluster-management.io".to_owned(),
                        kind: "ManagedCluster".to_owned(),
                        name: cluster.to_owned(),
                    }],
                },
            },
        };
    let outcome = process_templates(
        &mut replica,
        TemplateProcessing {
            resolver,
            setup,
            encryption,
            cluster,
            policy_metadata: metadata.policy_metadata,
        },
    );
    Replication { replica, outcome }
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
