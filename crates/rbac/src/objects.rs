//! The RBAC objects an authorizer is built from, and the checks the API server would
//! have made on them.

use std::collections::HashMap;

use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, Role, RoleBinding};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use crate::error::{InvalidObjects, ObjectError};
use crate::{selector, subjects};

/// The RBAC objects an authorizer evaluates.
#[derive(Clone, Debug, Default)]
pub struct RbacObjects {
    pub roles: Vec<Role>,
    pub cluster_roles: Vec<ClusterRole>,
    pub role_bindings: Vec<RoleBinding>,
    pub cluster_role_bindings: Vec<ClusterRoleBinding>,
}

impl RbacObjects {
    /// No objects at all: every request but those of `system:masters` is denied.
    pub fn is_empty(&self) -> bool {
        self.roles.is_empty()
            && self.cluster_roles.is_empty()
            && self.role_bindings.is_empty()
            && self.cluster_role_bindings.is_empty()
    }

    /// Checks for objects the API server would refuse (no name, invalid aggregation
    /// selectors), namespaced objects without a namespace, ServiceAccount subjects of
    /// ClusterRoleBindings without a namespace, and objects given twice.
    pub fn validate(&self) -> Result<(), InvalidObjects> {
        let mut errors = Vec::new();
        check_metadata("Role", self.roles.iter().map(|o| &o.metadata), true, &mut errors);
        check_metadata(
            "ClusterRole",
            self.cluster_roles.iter().map(|o| &o.metadata),
            false,
            &mut errors,
        );
        check_metadata(
            "RoleBinding",
            self.role_bindings.iter().map(|o| &o.metadata),
            true,
            &mut errors,
        );
        check_metadata(
            "ClusterRoleBinding",
            self.cluster_role_bindings.iter().map(|o| &o.metadata),
            false,
            &mut errors,
        );
        for role in &self.cluster_roles {
            check_selectors(role, &mut errors);
        }
        for binding in &self.cluster_role_bindings {
            check_service_accounts(binding, &mut errors);
        }
        if errors.is_empty() { Ok(()) } else { Err(InvalidObjects(errors)) }
    }
}

/// `(namespace, name)`: the identity of an object within its kind.
pub(crate) fn key(metadata: &ObjectMeta) -> (&str, &str) {
    (
        metadata.namespace.as_deref().unwrap_or_default(),
        metadata.name.as_deref().unwrap_or_default(),
    )
}

/// One object per identity, the last copy given winning in the position of the first,
/// as re-applying a manifest replaces the object.
pub(crate) fn latest<T>(objects: &[T], metadata: impl Fn(&T) -> &ObjectMeta) -> Vec<&T> {
    let mut position: HashMap<(&str, &str), usize> = HashMap::new();
    let mut kept: Vec<&T> = Vec::with_capacity(objects.len());
    for object in objects {
        match position.get(&key(metadata(object))) {
            Some(&at) => kept[at] = object,
            None => {
                position.insert(key(metadata(object)), kept.len());
                kept.push(object);
            }
        }
    }
    kept
}

fn check_metadata<'a>(
    kind: &'static str,
    objects: impl Iterator<Item = &'a ObjectMeta>,
    namespaced: bool,
    errors: &mut Vec<ObjectError>,
) {
    let mut seen = HashMap::new();
    for (position, metadata) in objects.enumerate() {
        let (namespace, name) = key(metadata);
        if name.is_empty() {
            errors.push(ObjectError::MissingName { kind, position });
            continue;
        }
        if namespaced && namespace.is_empty() {
            errors.push(ObjectError::MissingNamespace { kind, name: name.to_owned() });
        }
        let count = seen.entry((namespace, name)).or_insert(0u32);
        *count += 1;
        // Reported once per identity however many copies there are.
        if *count == 2 {
            let id = if namespaced { format!("{namespace}/{name}") } else { name.to_owned() };
            errors.push(ObjectError::Duplicate { kind, id });
        }
    }
}

fn check_selectors(role: &ClusterRole, errors: &mut Vec<ObjectError>) {
    let Some(rule) = &role.aggregation_rule else { return };
    for (i, selector) in rule.cluster_role_selectors.iter().flatten().enumerate() {
        for (field, detail) in selector::problems(selector) {
            errors.push(ObjectError::InvalidSelector {
                cluster_role: key(&role.metadata).1.to_owned(),
                field: format!("aggregationRule.clusterRoleSelectors[{i}].{field}"),
                detail,
            });
        }
    }
}

fn check_service_accounts(binding: &ClusterRoleBinding, errors: &mut Vec<ObjectError>) {
    for (index, subject) in binding.subjects.iter().flatten().enumerate() {
        let namespace = subject.namespace.as_deref().unwrap_or_default();
        if subject.kind == subjects::SERVICE_ACCOUNT && namespace.is_empty() {
            errors.push(ObjectError::ServiceAccountWithoutNamespace {
                binding: key(&binding.metadata).1.to_owned(),
                index,
            });
        }
    }
}
