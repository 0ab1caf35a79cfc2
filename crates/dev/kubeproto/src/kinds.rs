//! Which field table decodes which apiVersion and kind.

use crate::schema::Message;
use crate::tables::{authentication, authorization, core, meta, rbac};

/// Every (apiVersion, kind) with a table, in the order the API groups are listed in the docs.
static KINDS: [(&str, &str, &Message); 16] = [
    ("v1", "Namespace", &core::NAMESPACE),
    ("v1", "ConfigMap", &core::CONFIG_MAP),
    ("v1", "Secret", &core::SECRET),
    ("v1", "ServiceAccount", &core::SERVICE_ACCOUNT),
    ("rbac.authorization.k8s.io/v1", "Role", &rbac::ROLE),
    ("rbac.authorization.k8s.io/v1", "ClusterRole", &rbac::CLUSTER_ROLE),
    ("rbac.authorization.k8s.io/v1", "RoleBinding", &rbac::ROLE_BINDING),
    ("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", &rbac::CLUSTER_ROLE_BINDING),
    ("authentication.k8s.io/v1", "TokenRequest", &authentication::TOKEN_REQUEST),
    ("authentication.k8s.io/v1", "TokenReview", &authentication::TOKEN_REVIEW),
    ("authentication.k8s.io/v1", "SelfSubjectReview", &authentication::SELF_SUBJECT_REVIEW),
    ("authorization.k8s.io/v1", "SubjectAccessReview", &authorization::SUBJECT_ACCESS_REVIEW),
    (
        "authorization.k8s.io/v1",
        "LocalSubjectAccessReview",
        &authorization::LOCAL_SUBJECT_ACCESS_REVIEW,
    ),
    (
        "authorization.k8s.io/v1",
        "SelfSubjectAccessReview",
        &authorization::SELF_SUBJECT_ACCESS_REVIEW,
    ),
    (
        "authorization.k8s.io/v1",
        "SelfSubjectRulesReview",
        &authorization::SELF_SUBJECT_RULES_REVIEW,
    ),
    ("meta.k8s.io/v1", "DeleteOptions", &meta::DELETE_OPTIONS),
];

/// The (apiVersion, kind) pairs [`crate::decode`] reads. DeleteOptions is also read under any
/// other group's `v1` apiVersion (`v1`, `apps/v1`, ...), as client-go sends it in the group version
/// of the resource being deleted.
pub fn supported_kinds() -> impl Iterator<Item = (&'static str, &'static str)> {
    KINDS.iter().map(|(api_version, kind, _)| (*api_version, *kind))
}

/// The table for an object of this apiVersion and kind.
///
/// client-go encodes DeleteOptions in the group version of the resource being deleted
/// (`v1`, `rbac.authorization.k8s.io/v1`, ...), because every group registers the meta/v1 type
/// under its own version; the wire message is the same, so any `v1` apiVersion is accepted.
pub(crate) fn table(api_version: &str, kind: &str) -> Option<&'static Message> {
    if kind == "DeleteOptions" {
        let version = api_version.rsplit('/').next().unwrap_or(api_version);
        return (version == "v1").then_some(&meta::DELETE_OPTIONS);
    }
    KINDS
        .iter()
        .find(|(known_version, known_kind, _)| *known_version == api_version && *known_kind == kind)
        .map(|(_, _, message)| *message)
}
