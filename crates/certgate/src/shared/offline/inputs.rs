//! The objects read, in input order, with the identity checks a cluster would make.

use std::collections::BTreeMap;
use std::collections::btree_map::Entry;

use certgate_api::{CertificateRequest, CertificateRequestPolicy};
use certgate_rbac::RbacObjects;
use k8s_openapi::api::core::v1::Namespace;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use super::classify::Object;
use crate::shared::manifests::LoadError;
use crate::shared::manifests::Source;

/// The namespace `kubectl` uses for namespaced objects without one (default context).
pub const DEFAULT_NAMESPACE: &str = "default";

/// An object and where it came from.
#[derive(Debug)]
pub struct Sourced<T> {
    pub at: Source,
    pub object: T,
}

/// Everything `check` evaluates.
#[derive(Debug, Default)]
pub struct Inputs {
    pub requests: Vec<Sourced<CertificateRequest>>,
    pub policies: Vec<Sourced<CertificateRequestPolicy>>,
    pub namespaces: Vec<Sourced<Namespace>>,
    pub rbac: RbacObjects,
    /// Whether any RBAC object was given (then RBAC is evaluated, even if the objects grant
    /// nothing).
    pub rbac_given: bool,
    /// First source of each identity, to reject duplicates.
    seen: BTreeMap<(&'static str, String), Source>,
}

impl Inputs {
    /// Adds one object. Namespaced objects without a namespace get `default`, as `kubectl
    /// apply` would give them; a second object with the same identity is an error, since a
    /// cluster cannot hold both.
    pub fn add(&mut self, at: Source, object: Object) -> Result<(), LoadError> {
        match object {
            Object::CertificateRequest(mut cr) => {
                let name = namespaced_name(&mut cr.metadata);
                self.claim("CertificateRequest", name, &at)?;
                self.requests.push(Sourced { at, object: *cr });
            }
            Object::Policy(policy) => {
                self.claim("CertificateRequestPolicy", name(&policy.metadata), &at)?;
                self.policies.push(Sourced { at, object: *policy });
            }
            Object::Namespace(ns) => {
                self.claim("Namespace", name(&ns.metadata), &at)?;
                self.namespaces.push(Sourced { at, object: *ns });
            }
            Object::Role(mut role) => {
                self.claim("Role", namespaced_name(&mut role.metadata), &at)?;
                self.rbac.roles.push(*role);
                self.rbac_given = true;
            }
            Object::ClusterRole(role) => {
                self.claim("ClusterRole", name(&role.metadata), &at)?;
                self.rbac.cluster_roles.push(*role);
                self.rbac_given = true;
            }
            Object::RoleBinding(mut binding) => {
                self.claim("RoleBinding", namespaced_name(&mut binding.metadata), &at)?;
                self.rbac.role_bindings.push(*binding);
                self.rbac_given = true;
            }
            Object::ClusterRoleBinding(binding) => {
                self.claim("ClusterRoleBinding", name(&binding.metadata), &at)?;
                self.rbac.cluster_role_bindings.push(*binding);
                self.rbac_given = true;
            }
        }
        Ok(())
    }

    fn claim(&mut self, kind: &'static str, name: String, at: &Source) -> Result<(), LoadError> {
        match self.seen.entry((kind, name)) {
            Entry::Vacant(slot) => {
                slot.insert(at.clone());
                Ok(())
            }
            Entry::Occupied(first) => Err(LoadError::Duplicate {
                kind,
                name: first.key().1.clone(),
                first: Box::new(first.get().clone()),
                second: at.clone(),
            }),
        }
    }
}

fn name(meta: &ObjectMeta) -> String {
    meta.name.clone().unwrap_or_default()
}

/// `namespace/name`, defaulting the namespace in the object itself so that evaluation sees
/// the same namespace as the messages.
fn namespaced_name(meta: &mut ObjectMeta) -> String {
    if meta.namespace.as_deref().is_none_or(str::is_empty) {
        meta.namespace = Some(DEFAULT_NAMESPACE.to_owned());
    }
    format!("{}/{}", meta.namespace.as_deref().unwrap_or(DEFAULT_NAMESPACE), name(meta))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    fn at(document: usize) -> Source {
        Source::document(&Arc::from("f.yaml"), document)
    }

    fn policy(name: &str) -> Object {
        let mut policy = CertificateRequestPolicy::new(name, Default::default());
        policy.metadata.name = Some(name.to_owned());
        Object::Policy(Box::new(policy))
    }

    fn request(namespace: Option<&str>, name: &str) -> Object {
        let mut cr = CertificateRequest::new(name, Default::default());
        cr.metadata.namespace = namespace.map(str::to_owned);
        Object::CertificateRequest(Box::new(cr))
    }

    #[test]
    fn duplicate_policy_names_are_errors_naming_both_places() {
        let mut inputs = Inputs::default();
        inputs.add(at(0), policy("p")).unwrap();
        inputs.add(at(1), policy("q")).unwrap();
        let err = inputs.add(at(4), policy("p")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "f.yaml#4: duplicate CertificateRequestPolicy \"p\" (first given at f.yaml#0); \
             names are unique in a cluster, so remove or rename one"
        );
    }

    #[test]
    fn requests_default_to_the_default_namespace_and_clash_there() {
        let mut inputs = Inputs::default();
        inputs.add(at(0), request(None, "r")).unwrap();
        inputs.add(at(1), request(Some("other"), "r")).unwrap();
        assert_eq!(inputs.requests[0].object.metadata.namespace.as_deref(), Some("default"));
        let err = inputs.add(at(2), request(Some("default"), "r")).unwrap_err();
        assert!(
            err.to_string().starts_with("f.yaml#2: duplicate CertificateRequest \"default/r\""),
            "{err}"
        );
    }

    #[test]
    fn same_name_in_different_kinds_is_fine() {
        let mut inputs = Inputs::default();
        inputs.add(at(0), policy("x")).unwrap();
        let mut ns = Namespace::default();
        ns.metadata.name = Some("x".to_owned());
        inputs.add(at(1), Object::Namespace(Box::new(ns))).unwrap();
        assert!(!inputs.rbac_given);
    }
}
