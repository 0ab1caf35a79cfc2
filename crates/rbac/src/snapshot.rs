//! The RBAC objects compiled for lookups: role rules (aggregation applied) in one table,
//! role references resolved once, and bindings indexed by subject and namespace.

use std::collections::HashMap;

use k8s_openapi::api::rbac::v1::{RoleRef, Subject};

use crate::UserInfo;
use crate::aggregation;
use crate::explain::BindingKind;
use crate::objects::{self, RbacObjects};
use crate::rule::Rule;
use crate::subjects::{self, SubjectIndex};
use certgate_gofmt::quote;

#[derive(Debug)]
pub(crate) struct Snapshot {
    /// Rules of every Role and ClusterRole; bindings point into this.
    rules: Vec<Vec<Rule>>,
    cluster_role_bindings: Vec<Binding>,
    role_bindings: Vec<Binding>,
    cluster_index: SubjectIndex,
    /// RoleBindings by namespace, then by subject.
    namespace_index: HashMap<String, SubjectIndex>,
}

#[derive(Debug)]
pub(crate) struct Binding {
    pub(crate) kind: BindingKind,
    /// Empty for ClusterRoleBindings.
    pub(crate) namespace: String,
    pub(crate) name: String,
    pub(crate) role_ref: RoleRef,
    subjects: Vec<Subject>,
    /// Index into `rules`, or kube-apiserver's error for the role reference.
    role: Result<usize, String>,
}

/// Role names to rule-table indices while building.
#[derive(Default)]
struct RoleIds<'a> {
    roles: HashMap<(&'a str, &'a str), usize>,
    cluster_roles: HashMap<&'a str, usize>,
}

impl RoleIds<'_> {
    /// kube-apiserver resolves a reference at request time; the objects here never change,
    /// so resolving once gives the same rules or the same error text.
    fn resolve(&self, role_ref: &RoleRef, binding_namespace: &str) -> Result<usize, String> {
        let name = role_ref.name.as_str();
        match role_ref.kind.as_str() {
            "Role" => {
                self.roles.get(&(binding_namespace, name)).copied().ok_or_else(|| {
                    format!("role.rbac.authorization.k8s.io {} not found", quote(name))
                })
            }
            "ClusterRole" => self.cluster_roles.get(name).copied().ok_or_else(|| {
                format!("clusterrole.rbac.authorization.k8s.io {} not found", quote(name))
            }),
            other => Err(format!("unsupported role reference kind: {}", quote(other))),
        }
    }
}

impl Snapshot {
    /// Objects given twice count once (the last copy); Roles and RoleBindings without a
    /// namespace are left out, as they can never take effect.
    pub(crate) fn build(objects: &RbacObjects) -> Self {
        let mut rules = Vec::new();
        let mut ids = RoleIds::default();
        for role in objects::latest(&objects.roles, |r| &r.metadata) {
            let (namespace, name) = objects::key(&role.metadata);
            if !namespace.is_empty() {
                ids.roles.insert((namespace, name), rules.len());
                rules.push(role.rules.iter().flatten().map(Rule::from).collect());
            }
        }
        let cluster_roles = objects::latest(&objects.cluster_roles, |r| &r.metadata);
        for (role, resolved) in cluster_roles.iter().zip(aggregation::resolve(&cluster_roles)) {
            ids.cluster_roles.insert(objects::key(&role.metadata).1, rules.len());
            rules.push(resolved);
        }

        let mut cluster_role_bindings = Vec::new();
        let mut cluster_index = SubjectIndex::default();
        for binding in objects::latest(&objects.cluster_role_bindings, |b| &b.metadata) {
            let name = objects::key(&binding.metadata).1;
            let compiled = Binding::new(
                BindingKind::ClusterRoleBinding,
                "",
                name,
                binding.role_ref.clone(),
                binding.subjects.as_deref(),
                &ids,
            );
            cluster_index.insert(cluster_role_bindings.len(), &compiled.subjects, "");
            cluster_role_bindings.push(compiled);
        }

        let mut role_bindings = Vec::new();
        let mut namespace_index: HashMap<String, SubjectIndex> = HashMap::new();
        for binding in objects::latest(&objects.role_bindings, |b| &b.metadata) {
            let (namespace, name) = objects::key(&binding.metadata);
            // Only requests in the binding's namespace consult it, and those always have one.
            if namespace.is_empty() {
                continue;
            }
            let compiled = Binding::new(
                BindingKind::RoleBinding,
                namespace,
                name,
                binding.role_ref.clone(),
                binding.subjects.as_deref(),
                &ids,
            );
            let index = namespace_index.entry(namespace.to_owned()).or_default();
            index.insert(role_bindings.len(), &compiled.subjects, namespace);
            role_bindings.push(compiled);
        }

        Snapshot { rules, cluster_role_bindings, role_bindings, cluster_index, namespace_index }
    }

    /// The bindings that apply to the user, in kube-apiserver's visiting order
    /// (ClusterRoleBindings, then for namespaced requests the RoleBindings of that
    /// namespace), each with its first subject naming the user.
    pub(crate) fn applicable(&self, user: &UserInfo, namespace: &str) -> Vec<(&Binding, &Subject)> {
        let namespaced = (!namespace.is_empty())
            .then(|| self.namespace_index.get(namespace))
            .flatten()
            .map(|index| (index, &self.role_bindings));
        let scopes = [Some((&self.cluster_index, &self.cluster_role_bindings)), namespaced];
        let mut found = Vec::new();
        for (index, bindings) in scopes.into_iter().flatten() {
            let mut candidates = Vec::new();
            index.candidates(user, &mut candidates);
            // Input order, as a stable stand-in for the informer cache's order.
            candidates.sort_unstable();
            candidates.dedup();
            for binding in candidates.into_iter().filter_map(|i| bindings.get(i)) {
                let first = subjects::first_applying(user, &binding.subjects, &binding.namespace);
                if let Some(subject) = first.and_then(|i| binding.subjects.get(i)) {
                    found.push((binding, subject));
                }
            }
        }
        found
    }

    /// The rules a binding grants, or kube-apiserver's error for its role reference.
    pub(crate) fn rules_of<'s>(&'s self, binding: &'s Binding) -> Result<&'s [Rule], &'s str> {
        match &binding.role {
            Ok(role) => Ok(self.rules.get(*role).map(Vec::as_slice).unwrap_or_default()),
            Err(error) => Err(error),
        }
    }
}

impl Binding {
    fn new(
        kind: BindingKind,
        namespace: &str,
        name: &str,
        role_ref: RoleRef,
        subjects: Option<&[Subject]>,
        ids: &RoleIds<'_>,
    ) -> Self {
        Binding {
            kind,
            namespace: namespace.to_owned(),
            name: name.to_owned(),
            role: ids.resolve(&role_ref, namespace),
            role_ref,
            subjects: subjects.unwrap_or_default().to_vec(),
        }
    }
}
