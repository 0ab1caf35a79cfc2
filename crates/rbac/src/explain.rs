//! Why RBAC answered as it did (`certgate check --explain`): every binding that applies to
//! the user, and for each one the rule that allowed the request or why none did.

use std::fmt;

use crate::rule::Request;
use crate::{AccessDecision, SYSTEM_MASTERS, UserInfo};
use certgate_gofmt::{quote, quote_list};

/// The answer, with the evidence for it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Explanation {
    /// Exactly what [`crate::Authorizer::authorize`] answers for the same question.
    pub decision: AccessDecision,
    /// Allowed because the user is in `system:masters`; no binding was consulted.
    pub superuser: bool,
    /// The question in kube-apiserver's wording for an RBAC denial, e.g.
    /// `user "alice" with groups ["devs"] to "get" resource "pods" in namespace "ns"`.
    pub request: String,
    /// Every binding that applies to the user here, in evaluation order: ClusterRoleBindings,
    /// then RoleBindings of the request's namespace. Empty when nothing is bound to the user.
    pub bindings: Vec<BindingExplanation>,
}

/// One binding that applies to the user, and what its role did with the request.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BindingExplanation {
    pub kind: BindingKind,
    /// Empty for a ClusterRoleBinding.
    pub namespace: String,
    pub name: String,
    /// `roleRef.kind` and `roleRef.name` as written in the binding.
    pub role_kind: String,
    pub role_name: String,
    /// The first subject that names the user, e.g. `Group "devs"`.
    pub subject: String,
    pub outcome: BindingOutcome,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum BindingKind {
    ClusterRoleBinding,
    RoleBinding,
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "result", rename_all = "camelCase")]
pub enum BindingOutcome {
    /// Rule number `rule` (from 0) of the role allows the request.
    Allowed { rule: usize },
    /// The role could not be found; kube-apiserver's error text, which also ends up in the
    /// denial reason.
    RoleUnresolved { error: String },
    /// No rule allows the request: for each rule in order, the first check that failed.
    NoRuleMatched { mismatches: Vec<RuleMismatch> },
}

/// The first PolicyRule check that failed, in kube-apiserver's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub enum RuleMismatch {
    Verb,
    ApiGroup,
    Resource,
    ResourceName,
    NonResourceUrl,
}

impl BindingExplanation {
    /// The binding as kube-apiserver names it in an allow reason:
    /// `ClusterRoleBinding "b" of ClusterRole "r" to User "u"` or
    /// `RoleBinding "b/ns" of Role "r" to Group "g"`.
    pub fn source(&self) -> String {
        binding_source(
            self.kind,
            &self.namespace,
            &self.name,
            &self.role_kind,
            &self.role_name,
            &self.subject,
        )
    }
}

/// See [`BindingExplanation::source`]; `subject` is already described.
pub(crate) fn binding_source(
    kind: BindingKind,
    namespace: &str,
    name: &str,
    role_kind: &str,
    role_name: &str,
    subject: &str,
) -> String {
    let binding = match kind {
        BindingKind::ClusterRoleBinding => format!("ClusterRoleBinding {}", quote(name)),
        BindingKind::RoleBinding => {
            format!("RoleBinding {}", quote(&format!("{name}/{namespace}")))
        }
    };
    format!("{binding} of {role_kind} {} to {subject}", quote(role_name))
}

/// `user "u" with groups [...] to "verb" resource "res.group/sub" named "n" in namespace "ns"`,
/// as kube-apiserver logs an RBAC denial (after `RBAC: no rules authorize `).
pub(crate) fn describe_request(user: &UserInfo, request: Request<'_>) -> String {
    let operation = match request {
        Request::Resource(attributes) => {
            let mut resource = attributes.resource.clone();
            if !attributes.group.is_empty() {
                resource = format!("{resource}.{}", attributes.group);
            }
            if !attributes.subresource.is_empty() {
                resource = format!("{resource}/{}", attributes.subresource);
            }
            // kube-apiserver writes these quotes literally rather than with %q.
            let mut text = format!("\"{}\" resource \"{resource}\"", attributes.verb);
            if !attributes.name.is_empty() {
                text = format!("{text} named \"{}\"", attributes.name);
            }
            text
        }
        Request::NonResource(attributes) => {
            format!("{} nonResourceURL {}", quote(&attributes.verb), quote(&attributes.path))
        }
    };
    let scope = match request.namespace() {
        "" => "cluster-wide".to_owned(),
        namespace => format!("in namespace {}", quote(namespace)),
    };
    format!(
        "user {} with groups {} to {operation} {scope}",
        quote(&user.username),
        quote_list(&user.groups)
    )
}

impl fmt::Display for Explanation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let verdict = if self.decision.allowed { "allowed" } else { "denied" };
        writeln!(f, "{verdict}: {}", self.request)?;
        if !self.decision.reason.is_empty() {
            writeln!(f, "reason: {}", self.decision.reason)?;
        }
        if self.superuser {
            return writeln!(
                f,
                "the user is in group {}, which is allowed everything",
                quote(SYSTEM_MASTERS)
            );
        }
        if self.bindings.is_empty() {
            return writeln!(
                f,
                "no ClusterRoleBinding or RoleBinding here names the user or its groups"
            );
        }
        for binding in &self.bindings {
            writeln!(f, "- {}: {}", binding.source(), binding.outcome)?;
        }
        Ok(())
    }
}

impl fmt::Display for BindingOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BindingOutcome::Allowed { rule } => write!(f, "rule {rule} allows the request"),
            BindingOutcome::RoleUnresolved { error } => write!(f, "{error}"),
            BindingOutcome::NoRuleMatched { mismatches } if mismatches.is_empty() => {
                write!(f, "the role has no rules")
            }
            BindingOutcome::NoRuleMatched { mismatches } => {
                let each: Vec<String> = mismatches
                    .iter()
                    .enumerate()
                    .map(|(i, mismatch)| format!("rule {i}: {mismatch}"))
                    .collect();
                write!(f, "no rule allows the request ({})", each.join("; "))
            }
        }
    }
}

impl fmt::Display for RuleMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let field = match self {
            RuleMismatch::Verb => "verbs",
            RuleMismatch::ApiGroup => "apiGroups",
            RuleMismatch::Resource => "resources",
            RuleMismatch::ResourceName => "resourceNames",
            RuleMismatch::NonResourceUrl => "nonResourceURLs",
        };
        write!(f, "{field} do not match")
    }
}
