//! What a user may do in a namespace, as a list of rules: the answer behind a
//! SelfSubjectRulesReview (`kubectl auth can-i --list`).

use k8s_openapi::api::rbac::v1::PolicyRule;

/// The rules of every binding that applies to a user, and kube-apiserver's error for each
/// role reference that could not be resolved (its `status.evaluationError`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UserRules {
    pub rules: Vec<PolicyRule>,
    pub errors: Vec<String>,
}
