//! The RBAC authorizer over the stored Roles, ClusterRoles and bindings.

use certgate_rbac::{RbacAuthorizer, RbacObjects};
use serde::de::DeserializeOwned;

use crate::api::prefix;
use crate::server::Sandbox;
use crate::target::Target;

pub const GROUP: &str = "rbac.authorization.k8s.io";

/// Whether writes to `target` change what RBAC allows.
pub fn is_rbac(target: &Target) -> bool {
    target.resource.group == GROUP
}

/// The authorizer for the objects stored now.
pub fn build(sandbox: &Sandbox) -> RbacAuthorizer {
    RbacAuthorizer::new(RbacObjects {
        roles: load(sandbox, "roles"),
        cluster_roles: load(sandbox, "clusterroles"),
        role_bindings: load(sandbox, "rolebindings"),
        cluster_role_bindings: load(sandbox, "clusterrolebindings"),
    })
}

fn load<T: DeserializeOwned>(sandbox: &Sandbox, plural: &str) -> Vec<T> {
    let Some(resource) = sandbox.registry.get(GROUP, "v1", plural) else { return Vec::new() };
    sandbox
        .store
        .list(&prefix(&resource, None), None, None)
        .items
        .into_iter()
        .filter_map(|stored| match serde_json::from_value(stored.object) {
            Ok(object) => Some(object),
            Err(err) => {
                // Stored objects passed decoding on write; one that no longer decodes
                // grants nothing rather than failing every request.
                tracing::warn!(key = ?stored.key, error = %err, "RBAC object ignored: it does not decode");
                None
            }
        })
        .collect()
}
