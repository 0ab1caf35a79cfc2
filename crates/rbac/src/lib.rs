//! Who may do what: Kubernetes RBAC semantics behind the [`Authorizer`] trait, and the one
//! asynchronous access-check seam, [`AccessChecker`].
//!
//! - [`Authorizer`] answers synchronously: [`RbacAuthorizer`] over RBAC objects (offline, in
//!   the sandbox, `--authorizer=local`).
//! - [`AccessChecker`] is the one async access-check trait of the workspace: in a cluster a
//!   SubjectAccessReview client (`certgate-cluster`), and every [`Authorizer`] through a
//!   blanket impl. [`KindResolver`] is its companion for API discovery; [`NoCluster`]
//!   answers both with an error when there is no API server. Both traits are dyn-compatible,
//!   so callers hold `Arc<dyn AccessChecker>` instead of an enum of implementations.
//! - [`RequestAttributes`] (what a request asks to do) and [`forbidden_status_message`] (the
//!   API server's 403 text) are the one implementation of kube-apiserver's authorization
//!   attributes and denial wording, shared by production code and the sandbox.
#![forbid(unsafe_code)]

use std::collections::BTreeMap;

mod aggregation;
mod authorizer;
mod checker;
mod error;
mod explain;
mod forbidden;
mod kinds;
mod no_cluster;
mod objects;
mod request;
mod rule;
mod selector;
mod snapshot;
mod subjects;
mod user_rules;

pub use authorizer::RbacAuthorizer;
pub use checker::{AccessChecker, CheckFuture};
pub use error::{InvalidObjects, ObjectError};
pub use explain::{BindingExplanation, BindingKind, BindingOutcome, Explanation, RuleMismatch};
pub use forbidden::{forbidden_message, forbidden_status_message};
pub use kinds::{DiscoveryError, KindResolver, ResolveFuture, ResolvedKind};
pub use no_cluster::{NO_CLUSTER, NoCluster};
pub use objects::RbacObjects;
pub use request::RequestAttributes;
/// Whether labels satisfy a `metav1.LabelSelector` (an invalid selector matches nothing).
pub use selector::matches as label_selector_matches;
pub use user_rules::UserRules;

/// The group whose members kube-apiserver allows everything, before RBAC is consulted.
pub const SYSTEM_MASTERS: &str = "system:masters";

/// The requester, as in `SubjectAccessReview.spec` / `UserInfo`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct UserInfo {
    pub username: String,
    pub uid: String,
    pub groups: Vec<String>,
    pub extra: BTreeMap<String, Vec<String>>,
}

impl UserInfo {
    /// The identity Kubernetes authentication gives a ServiceAccount token: username
    /// `system:serviceaccount:<namespace>:<name>` and the groups `system:serviceaccounts`,
    /// `system:serviceaccounts:<namespace>` and `system:authenticated`. RBAC itself never
    /// adds these groups, so callers that build a [`UserInfo`] by hand for a ServiceAccount
    /// should use this to get the same answers as the API server.
    pub fn service_account(namespace: &str, name: &str, uid: &str) -> Self {
        UserInfo {
            username: format!("{}{namespace}:{name}", subjects::SERVICE_ACCOUNT_USERNAME_PREFIX),
            uid: uid.to_owned(),
            groups: vec![
                "system:serviceaccounts".to_owned(),
                format!("system:serviceaccounts:{namespace}"),
                "system:authenticated".to_owned(),
            ],
            extra: BTreeMap::new(),
        }
    }
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

/// `SubjectAccessReview.spec.nonResourceAttributes`: a request for a URL path that is not
/// an API resource (`/healthz`, `/metrics`). Such requests are always cluster-scoped, so only
/// ClusterRoleBindings can allow them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct NonResourceAttributes {
    pub path: String,
    pub verb: String,
}

/// One access question. Hashable, so that answers to many questions can be looked up by
/// the question (a review asks one per policy, and clusters have hundreds of policies).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct AccessReview {
    pub user: UserInfo,
    pub resource: ResourceAttributes,
}

/// The answer, with the reason Kubernetes would give (`RBAC: allowed by ClusterRoleBinding
/// "x" of ClusterRole "y" to User "z"`), or why nothing allowed it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct AccessDecision {
    pub allowed: bool,
    pub reason: String,
}

/// An authorizer could not answer (API unreachable, ...). Callers fail closed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct AuthorizerError(pub String);

/// SubjectAccessReview semantics, answered synchronously. Every implementation is also an
/// [`AccessChecker`] (a blanket impl), so asynchronous callers take either.
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
