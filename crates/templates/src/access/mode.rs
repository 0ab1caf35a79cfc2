//! Whose reads these are: the propagator's default restrictions or a ServiceAccount's RBAC.

use std::fmt;
use std::sync::Arc;

use certgate_rbac::{
    AccessReview, Authorizer, RequestAttributes, ResourceAttributes, UserInfo,
    forbidden_status_message,
};

use super::reader::{ReadError, ResourceInfo, RetryReason};

/// A cluster-scoped object default mode may read; `*` in a field matches anything.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AllowedClusterScoped {
    pub group: String,
    pub kind: String,
    pub name: String,
}

impl AllowedClusterScoped {
    fn allows(&self, group: &str, kind: &str, name: &str) -> bool {
        let field = |want: &str, have: &str| want == "*" || want == have;
        field(&self.group, group) && field(&self.kind, kind) && field(&self.name, name)
    }
}

/// The access rules of one resolution.
#[derive(Clone)]
pub enum Access {
    /// The propagator's own identity, restricted by the resolver: namespace arguments must
    /// equal `lookup_namespace` (empty means it) and cluster-scoped reads must be on the
    /// allowlist. An empty `lookup_namespace` lifts both restrictions.
    Default { lookup_namespace: String, cluster_scoped_allowlist: Vec<AllowedClusterScoped> },
    /// `spec.hubTemplateOptions.serviceAccountName`: no restrictions of the propagator's own;
    /// every read needs `list` and `watch` for the ServiceAccount.
    ServiceAccount { namespace: String, name: String, authorizer: Arc<dyn Authorizer> },
}

impl fmt::Debug for Access {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Access::Default { lookup_namespace, cluster_scoped_allowlist } => f
                .debug_struct("Default")
                .field("lookup_namespace", lookup_namespace)
                .field("cluster_scoped_allowlist", cluster_scoped_allowlist)
                .finish(),
            Access::ServiceAccount { namespace, name, .. } => f
                .debug_struct("ServiceAccount")
                .field("namespace", namespace)
                .field("name", name)
                .finish_non_exhaustive(),
        }
    }
}

impl Access {
    /// Default mode for a replica of a root policy in `root_namespace` on `cluster`: reads
    /// limited to the root namespace and the cluster's own `ManagedCluster` (§6).
    pub fn for_policy(root_namespace: &str, cluster: &str) -> Self {
        Access::Default {
            lookup_namespace: root_namespace.to_owned(),
            cluster_scoped_allowlist: vec![AllowedClusterScoped {
                group: "cluster.open-cluster-management.io".to_owned(),
                kind: "ManagedCluster".to_owned(),
                name: cluster.to_owned(),
            }],
        }
    }

    /// No restrictions at all (offline CLI without a policy context).
    pub fn unrestricted() -> Self {
        Access::Default { lookup_namespace: String::new(), cluster_scoped_allowlist: Vec::new() }
    }

    /// The namespace reads are restricted to; empty when there is none.
    pub fn lookup_namespace(&self) -> &str {
        match self {
            Access::Default { lookup_namespace, .. } => lookup_namespace,
            Access::ServiceAccount { .. } => "",
        }
    }

    pub(crate) fn allows_cluster_scoped(&self, group: &str, kind: &str, name: &str) -> bool {
        match self {
            Access::Default { cluster_scoped_allowlist, .. } => {
                cluster_scoped_allowlist.iter().any(|a| a.allows(group, kind, name))
            }
            Access::ServiceAccount { .. } => true,
        }
    }

    /// In ServiceAccount mode, whether the account may `list` and `watch` what the read
    /// needs. A single get is a list with a `metadata.name` field selector, which the API
    /// server authorizes with the name set; the 403 text is that of the first denied verb.
    pub(crate) fn authorize(
        &self,
        resource: &ResourceInfo,
        namespace: &str,
        name: &str,
    ) -> Result<(), ReadError> {
        let Access::ServiceAccount { namespace: sa_namespace, name: sa_name, authorizer } = self
        else {
            return Ok(());
        };
        let user = UserInfo::service_account(sa_namespace, sa_name, "");
        for verb in ["list", "watch"] {
            let attributes = ResourceAttributes {
                namespace: namespace.to_owned(),
                verb: verb.to_owned(),
                group: resource.group.clone(),
                version: resource.version.clone(),
                resource: resource.plural.clone(),
                subresource: String::new(),
                name: name.to_owned(),
            };
            let review = AccessReview { user: user.clone(), resource: attributes.clone() };
            let decision = authorizer.authorize(&review).map_err(|e| ReadError::Transient {
                reason: RetryReason::Internal,
                message: format!("Internal error occurred: {e}"),
            })?;
            if !decision.allowed {
                return Err(ReadError::Forbidden(forbidden_status_message(
                    &user.username,
                    &RequestAttributes::Resource(attributes),
                    &decision.reason,
                )));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allowlist_wildcards() {
        let entry = |g: &str, k: &str, n: &str| AllowedClusterScoped {
            group: g.into(),
            kind: k.into(),
            name: n.into(),
        };
        let access = Access::Default {
            lookup_namespace: "ns".into(),
            cluster_scoped_allowlist: vec![entry("*", "Node", "*"), entry("g", "K", "one")],
        };
        assert!(access.allows_cluster_scoped("", "Node", "x"));
        assert!(access.allows_cluster_scoped("g", "K", "one"));
        assert!(!access.allows_cluster_scoped("g", "K", "two"));
        assert!(!Access::for_policy("ns", "c1").allows_cluster_scoped(
            "cluster.open-cluster-management.io",
            "ManagedCluster",
            "c2"
        ));
    }
}
