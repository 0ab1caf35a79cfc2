//! `namespace/name` Secret references and the `TLSCertificateDelegation` rule (spec §3).

use std::fmt;

use crate::types::TlsCertificateDelegation;

/// A resolved Secret reference. `Display` is Go's `types.NamespacedName` (`ns/name`), which
/// Contour quotes with `%q` in `ClientValidationInvalid` messages.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NamespacedName {
    pub namespace: String,
    pub name: String,
}

impl NamespacedName {
    pub fn new(namespace: &str, name: &str) -> Self {
        NamespacedName { namespace: namespace.to_string(), name: name.to_string() }
    }

    /// Contour's `k8s.NamespacedNameFrom(field, DefaultNamespace(proxyNamespace))`: split at the
    /// first `/`; no `/` or an empty namespace part means the proxy's namespace. The name keeps
    /// any further `/` (such a Secret cannot exist, so the lookup fails later as not found).
    pub fn from_reference(field: &str, default_namespace: &str) -> Self {
        match field.split_once('/') {
            None => NamespacedName::new(default_namespace, field),
            Some(("", name)) => NamespacedName::new(default_namespace, name),
            Some((namespace, name)) => NamespacedName::new(namespace, name),
        }
    }
}

impl fmt::Display for NamespacedName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.namespace, self.name)
    }
}

/// Contour's `delegationPermitted`: a Secret in the referring object's namespace is always
/// allowed; otherwise a delegation in the Secret's namespace must name the Secret and list the
/// target namespace, or be exactly `["*"]` (a `*` inside a longer list is compared literally).
pub fn delegation_permitted(
    secret: &NamespacedName,
    target_namespace: &str,
    delegations: &[TlsCertificateDelegation],
) -> bool {
    if secret.namespace == target_namespace {
        return true;
    }
    delegations
        .iter()
        .filter(|d| d.metadata.namespace() == secret.namespace)
        .flat_map(|d| d.spec.delegations.iter())
        .any(|entry| {
            entry.secret_name == secret.name
                && targets_contain(&entry.target_namespaces, target_namespace)
        })
}

fn targets_contain(targets: &[String], namespace: &str) -> bool {
    if let [only] = targets
        && only == "*"
    {
        return true;
    }
    targets.iter().any(|t| t == namespace)
}
