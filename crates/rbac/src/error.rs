//! Objects the API server would have refused or that can never take effect, reported by
//! [`crate::RbacAuthorizer::try_new`] and [`crate::RbacObjects::validate`].

/// One problem with one RBAC object.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ObjectError {
    #[error("{kind} at position {position} has no metadata.name; every {kind} needs a name")]
    MissingName { kind: &'static str, position: usize },

    #[error(
        "{kind} {name:?} has no metadata.namespace; a {kind} only takes effect in its own \
         namespace, so set metadata.namespace"
    )]
    MissingNamespace { kind: &'static str, name: String },

    #[error("{kind} {id} is given more than once; the last copy is used, remove the others")]
    Duplicate {
        kind: &'static str,
        /// `name` or `namespace/name`.
        id: String,
    },

    #[error(
        "ClusterRoleBinding {binding:?}: subjects[{index}] is a ServiceAccount without a \
         namespace, so it matches nobody; set subjects[{index}].namespace"
    )]
    ServiceAccountWithoutNamespace { binding: String, index: usize },

    /// `detail` is the API server's validation text, e.g. `Required value: must be
    /// specified when `operator` is 'In' or 'NotIn'`.
    #[error("ClusterRole {cluster_role:?} is invalid: {field}: {detail}")]
    InvalidSelector { cluster_role: String, field: String, detail: String },
}

/// Every problem found, in object order.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{} invalid RBAC object(s): {}", .0.len(), join(.0))]
pub struct InvalidObjects(pub Vec<ObjectError>);

fn join(errors: &[ObjectError]) -> String {
    errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")
}
