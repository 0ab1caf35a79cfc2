//! Labels, annotations and names the propagator uses (§1.4).

pub const POLICY_GROUP: &str = "policy.open-cluster-management.io";
pub const LABEL_ROOT_POLICY: &str = "policy.open-cluster-management.io/root-policy";
pub const LABEL_CLUSTER_NAME: &str = "policy.open-cluster-management.io/cluster-name";
pub const LABEL_CLUSTER_NAMESPACE: &str = "policy.open-cluster-management.io/cluster-namespace";
pub const ANNOTATION_ARGOCD_COMPARE: &str = "argocd.argoproj.io/compare-options";
pub const ANNOTATION_ENCRYPTION_IV: &str = "policy.open-cluster-management.io/encryption-iv";
pub const ANNOTATION_DISABLE_TEMPLATES: &str =
    "policy.open-cluster-management.io/disable-templates";
pub const ANNOTATION_TRIGGER_UPDATE: &str = "policy.open-cluster-management.io/trigger-update";
pub const ANNOTATION_HUB_TEMPLATES_ERROR: &str =
    "policy.open-cluster-management.io/hub-templates-error";

/// `<rootNamespace>.<rootName>`.
pub fn replica_name(root_namespace: &str, root_name: &str) -> String {
    format!("{root_namespace}.{root_name}")
}

/// Splits a replica's name at the first dot (root names may contain dots); `None` when there is
/// no dot or either side is empty.
pub fn split_replica_name(name: &str) -> Option<(&str, &str)> {
    let (namespace, root) = name.split_once('.')?;
    (!namespace.is_empty() && !root.is_empty()).then_some((namespace, root))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replica_names_split_at_the_first_dot() {
        assert_eq!(split_replica_name("ns.a.b"), Some(("ns", "a.b")));
        assert_eq!(split_replica_name("nodot"), None);
        assert_eq!(split_replica_name(".x"), None);
        assert_eq!(replica_name("ns", "a.b"), "ns.a.b");
    }
}
