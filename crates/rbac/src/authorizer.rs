//! RBAC evaluation over in-memory Role, ClusterRole, RoleBinding and ClusterRoleBinding.

use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, Role, RoleBinding};

use crate::{AccessDecision, AccessReview, Authorizer, AuthorizerError};

/// The RBAC objects an authorizer evaluates.
#[derive(Clone, Debug, Default)]
pub struct RbacObjects {
    pub roles: Vec<Role>,
    pub cluster_roles: Vec<ClusterRole>,
    pub role_bindings: Vec<RoleBinding>,
    pub cluster_role_bindings: Vec<ClusterRoleBinding>,
}

/// Kubernetes RBAC over a snapshot of objects (aggregation rules resolved at build time,
/// bindings indexed by subject).
pub struct RbacAuthorizer {
    // Filled in by the rbac crate owner.
}

impl RbacAuthorizer {
    pub fn new(objects: RbacObjects) -> Self {
        let _ = objects;
        todo!("rbac crate owner")
    }
}

impl Authorizer for RbacAuthorizer {
    fn authorize(&self, review: &AccessReview) -> Result<AccessDecision, AuthorizerError> {
        let _ = review;
        todo!("rbac crate owner")
    }
}
