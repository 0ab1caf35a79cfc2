//! Strategic merge schemas: how each list field of a built-in kind merges.
//!
//! The tables restate the `patchStrategy`/`patchMergeKey` struct tags of the upstream Go
//! types for the kinds the sandbox serves. A list without a tag is atomic (replaced).

use std::borrow::Cow;

/// How a list field is combined with the list in a strategic merge patch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListStrategy {
    /// The patch list replaces the live list (no `patchStrategy` tag).
    Replace,
    /// `patchStrategy: merge` with `patchMergeKey`: items with equal key values merge.
    MergeByKey(Cow<'static, str>),
    /// `patchStrategy: merge` on a list of primitives: set union, order kept.
    MergePrimitives,
}

/// Answers, for a field path (field names from the object root; list items add no
/// segment, so `webhooks[*].rules` is `["webhooks", "rules"]`), how its list merges.
pub trait MergeStrategy: Sync {
    /// The strategy for the list at `path`. Unknown paths are [`ListStrategy::Replace`].
    fn list(&self, path: &[&str]) -> ListStrategy;
}

/// A table-driven strategy: the `metadata` lists every kind shares plus the kind's own.
#[derive(Debug)]
pub struct BuiltinStrategy {
    kind_lists: &'static [(&'static [&'static str], ListStrategy)],
}

/// `ObjectMeta`: `finalizers` is a merged set, `ownerReferences` merges by `uid`;
/// labels and annotations are plain maps and need no entry.
const METADATA_LISTS: &[(&[&str], ListStrategy)] = &[
    (&["metadata", "finalizers"], ListStrategy::MergePrimitives),
    (&["metadata", "ownerReferences"], ListStrategy::MergeByKey(Cow::Borrowed("uid"))),
];

/// The strategy of a `metadata` list, shared by every kind (custom resources included).
pub(crate) fn metadata_list(path: &[&str]) -> ListStrategy {
    METADATA_LISTS
        .iter()
        .find(|(p, _)| *p == path)
        .map_or(ListStrategy::Replace, |(_, s)| s.clone())
}

impl MergeStrategy for BuiltinStrategy {
    fn list(&self, path: &[&str]) -> ListStrategy {
        METADATA_LISTS
            .iter()
            .chain(self.kind_lists)
            .find(|(p, _)| *p == path)
            .map_or(ListStrategy::Replace, |(_, s)| s.clone())
    }
}

/// Kinds whose only merging lists are the metadata ones (ConfigMap, Secret, Event, Lease,
/// Role/ClusterRole whose `rules` are atomic, bindings whose `subjects` are atomic, CRDs).
static METADATA_ONLY: BuiltinStrategy = BuiltinStrategy { kind_lists: &[] };

/// ServiceAccount: `secrets` merges by `name`; `imagePullSecrets` is atomic upstream.
static SERVICE_ACCOUNT: BuiltinStrategy = BuiltinStrategy {
    kind_lists: &[(&["secrets"], ListStrategy::MergeByKey(Cow::Borrowed("name")))],
};

/// Namespace: `status.conditions` merges by `type`; `spec.finalizers` is atomic.
static NAMESPACE: BuiltinStrategy = BuiltinStrategy {
    kind_lists: &[(&["status", "conditions"], ListStrategy::MergeByKey(Cow::Borrowed("type")))],
};

/// Mutating/ValidatingWebhookConfiguration: `webhooks` merges by `name`.
static WEBHOOK_CONFIGURATION: BuiltinStrategy = BuiltinStrategy {
    kind_lists: &[(&["webhooks"], ListStrategy::MergeByKey(Cow::Borrowed("name")))],
};

/// The strategic merge schema for a built-in kind the sandbox serves (`group` is `""` for
/// the core group). `None` means no schema: the kind is a custom resource and a strategic
/// merge patch must be refused with 415, as the API server does.
pub fn builtin_strategy(group: &str, kind: &str) -> Option<&'static dyn MergeStrategy> {
    let strategy: &'static BuiltinStrategy = match (group, kind) {
        ("", "Namespace") => &NAMESPACE,
        ("", "ServiceAccount") => &SERVICE_ACCOUNT,
        ("", "ConfigMap" | "Secret" | "Event")
        | ("events.k8s.io", "Event")
        | ("coordination.k8s.io", "Lease")
        | (
            "rbac.authorization.k8s.io",
            "Role" | "ClusterRole" | "RoleBinding" | "ClusterRoleBinding",
        )
        | ("apiextensions.k8s.io", "CustomResourceDefinition") => &METADATA_ONLY,
        (
            "admissionregistration.k8s.io",
            "MutatingWebhookConfiguration" | "ValidatingWebhookConfiguration",
        ) => &WEBHOOK_CONFIGURATION,
        _ => return None,
    };
    Some(strategy)
}
