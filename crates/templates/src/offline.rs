//! Replication of root policies from objects held in memory: what `certgate template resolve`
//! and the benchmark run, and what a controller runs with live readers.

use std::collections::HashMap;
use std::sync::Arc;

use certgate_rbac::{Authorizer, RbacAuthorizer, RbacObjects};
use serde_json::Value;

use crate::access::{Access, AllowedClusterScoped, InMemoryObjects, InvalidObject, ObjectReader};
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
    /// The propagator's own reads (PolicySets, ServiceAccounts, the current replica), which
    /// are not template reads and need no access checks.
    by_identity: HashMap<(String, String, String, String), Value>,
}

impl World {
    /// `objects` may include RBAC objects; they are evaluated with certgate-rbac. Fails when
    /// an object lacks `apiVersion`, `kind` or `metadata.name`.
    pub fn new(objects: Vec<Value>) -> Result<Self, InvalidObject> {
        let rbac = rbac_objects(&objects);
        let by_identity = objects
            .iter()
            .map(|o| {
                let text = |pointer: &str| {
                    o.pointer(pointer).and_then(Value::as_str).unwrap_or("").to_owned()
                };
                let key = (
                    text("/apiVersion"),
                    text("/kind"),
                    text("/metadata/namespace"),
                    text("/metadata/name"),
                );
                (key, o.clone())
            })
            .collect();
        Ok(Self {
            reader: Arc::new(InMemoryObjects::new(objects)?),
            authorizer: Arc::new(RbacAuthorizer::new(rbac)),
            by_identity,
        })
    }

    pub fn reader(&self) -> Arc<dyn ObjectReader> {
        self.reader.clone()
    }

    fn find(&self, api_version: &str, kind: &str, namespace: &str, name: &str) -> Option<Value> {
        let key = (api_version.to_owned(), kind.to_owned(), namespace.to_owned(), name.to_owned());
        self.by_identity.get(&key).cloned()
    }
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

fn rbac_objects(objects: &[Value]) -> RbacObjects {
    let mut rbac = RbacObjects::default();
    for object in objects {
        if object.get("apiVersion").and_then(Value::as_str) != Some("rbac.authorization.k8s.io/v1")
        {
            continue;
        }
        let value = object.clone();
        match object.get("kind").and_then(Value::as_str) {
            Some("Role") => rbac.roles.extend(serde_json::from_value(value).ok()),
            Some("ClusterRole") => rbac.cluster_roles.extend(serde_json::from_value(value).ok()),
            Some("RoleBinding") => rbac.role_bindings.extend(serde_json::from_value(value).ok()),
            Some("ClusterRoleBinding") => {
                rbac.cluster_role_bindings.extend(serde_json::from_value(value).ok())
            }
            _ => {}
        }
    }
    rbac
}
