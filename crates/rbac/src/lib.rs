//! Who may do what: Kubernetes RBAC semantics behind the [`Authorizer`] trait.
//!
//! The trait is the I/O seam: offline and in the sandbox it is [`RbacAuthorizer`] over
//! RBAC objects; in a cluster it is a SubjectAccessReview client (in the binary).
#![forbid(unsafe_code)]

use std::collections::BTreeMap;

mod authorizer;

pub use authorizer::{RbacAuthorizer, RbacObjects};

/// The requester, as in `SubjectAccessReview.spec` / `UserInfo`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UserInfo {
    pub username: String,
    pub uid: String,
    pub groups: Vec<String>,
    pub extra: BTreeMap<String, Vec<String>>,
}

/// `SubjectAccessReview.spec.resourceAttributes`. Empty strings mean unset.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ResourceAttributes {
    pub namespace: String,
    pub verb: String,
    pub group: String,
    pub version: String,
    pub resource: String,
    pub subresource: String,
    pub name: String,
}

/// One access question.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AccessReview {
    pub user: UserInfo,
    pub resource: ResourceAttributes,
}

/// The answer, with the reason Kubernetes would give (`RBAC: allowed by ClusterRoleBinding
/// "x" of ClusterRole "y" to User "z"`), or why nothing allowed it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccessDecision {
    pub allowed: bool,
    pub reason: String,
}

/// An authorizer could not answer (API unreachable, ...). Callers fail closed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct AuthorizerError(pub String);

/// SubjectAccessReview semantics.
pub trait Authorizer: Send + Sync {
    fn authorize(&self, review: &AccessReview) -> Result<AccessDecision, AuthorizerError>;
}

/// Allows everything: used when no RBAC objects are available and the caller says so.
#[derive(Clone, Copy, Debug, Default)]
pub struct AllowAll;

impl Authorizer for AllowAll {
    fn authorize(&self, _review: &AccessReview) -> Result<AccessDecision, AuthorizerError> {
        Ok(AccessDecision { allowed: true, reason: "RBAC not evaluated".to_owned() })
    }
}
