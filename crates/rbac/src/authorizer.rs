//! Answers over a [`Snapshot`], as kube-apiserver's `system:masters` and RBAC authorizers
//! answer a SubjectAccessReview.

use k8s_openapi::api::rbac::v1::Subject;

use crate::error::InvalidObjects;
use crate::explain::{self, BindingExplanation, BindingOutcome, Explanation};
use crate::objects::RbacObjects;
use crate::rule::{Request, Rule};
use crate::snapshot::{Binding, Snapshot};
use crate::user_rules::UserRules;
use crate::{
    AccessDecision, AccessReview, Authorizer, AuthorizerError, NonResourceAttributes,
    SYSTEM_MASTERS, UserInfo, subjects,
};

/// Kubernetes RBAC over a snapshot of objects (aggregation rules resolved at build time,
/// bindings indexed by subject).
#[derive(Debug)]
pub struct RbacAuthorizer {
    snapshot: Snapshot,
}

impl RbacAuthorizer {
    /// Builds the authorizer; never fails. Objects given twice count once (the last copy),
    /// Roles and RoleBindings without a namespace never take effect, and an aggregation
    /// selector the API server would reject matches nothing. Use [`Self::try_new`] to be
    /// told about such objects instead.
    pub fn new(objects: RbacObjects) -> Self {
        RbacAuthorizer { snapshot: Snapshot::build(&objects) }
    }

    /// Like [`Self::new`], but refuses objects that the API server would have refused or
    /// that can never take effect (see [`RbacObjects::validate`]).
    pub fn try_new(objects: RbacObjects) -> Result<Self, InvalidObjects> {
        objects.validate()?;
        Ok(Self::new(objects))
    }

    /// The answer for a non-resource URL (`/healthz`, `/metrics`); only ClusterRoleBindings
    /// can allow these.
    pub fn authorize_non_resource(
        &self,
        user: &UserInfo,
        attributes: &NonResourceAttributes,
    ) -> AccessDecision {
        self.decide(user, Request::NonResource(attributes))
    }

    /// The answer to `review` with every applicable binding and why it did or did not allow.
    pub fn explain(&self, review: &AccessReview) -> Explanation {
        self.explain_request(&review.user, Request::Resource(&review.resource))
    }

    /// [`Self::explain`] for a non-resource URL.
    pub fn explain_non_resource(
        &self,
        user: &UserInfo,
        attributes: &NonResourceAttributes,
    ) -> Explanation {
        self.explain_request(user, Request::NonResource(attributes))
    }

    /// Every rule granted to `user` in `namespace` (ClusterRoleBindings, then the RoleBindings
    /// of `namespace`), as kube-apiserver's RBAC `RulesFor` lists them for a
    /// SelfSubjectRulesReview: in binding order, repeats kept, with the errors of role
    /// references that do not resolve. Unlike [`Self::explain`], `system:masters` gets no
    /// shortcut here, as upstream: its rules are those of the bindings naming it.
    pub fn rules_for(&self, user: &UserInfo, namespace: &str) -> UserRules {
        let mut found = UserRules::default();
        for (binding, _) in self.snapshot.applicable(user, namespace) {
            match self.snapshot.rules_of(binding) {
                Ok(rules) => found.rules.extend(rules.iter().map(Rule::to_policy_rule)),
                Err(error) => found.errors.push(error.to_owned()),
            }
        }
        found
    }

    /// Stops at the first binding with an allowing rule, as kube-apiserver does.
    fn decide(&self, user: &UserInfo, request: Request<'_>) -> AccessDecision {
        if is_superuser(user) {
            return allow(String::new());
        }
        let mut errors = Vec::new();
        for (binding, subject) in self.snapshot.applicable(user, request.namespace()) {
            match self.snapshot.rules_of(binding) {
                Err(error) => errors.push(error),
                Ok(rules) => {
                    if rules.iter().any(|rule| rule.mismatch(request).is_none()) {
                        return allow(format!("RBAC: allowed by {}", source(binding, subject)));
                    }
                }
            }
        }
        deny(&errors)
    }

    /// Looks at every applicable binding; the decision is the one [`Self::decide`] makes.
    fn explain_request(&self, user: &UserInfo, request: Request<'_>) -> Explanation {
        let description = explain::describe_request(user, request);
        if is_superuser(user) {
            return Explanation {
                decision: allow(String::new()),
                superuser: true,
                request: description,
                bindings: Vec::new(),
            };
        }
        let mut bindings = Vec::new();
        let mut errors = Vec::new();
        for (binding, subject) in self.snapshot.applicable(user, request.namespace()) {
            let outcome = match self.snapshot.rules_of(binding) {
                Err(error) => {
                    errors.push(error);
                    BindingOutcome::RoleUnresolved { error: error.to_owned() }
                }
                Ok(rules) => {
                    let checks: Vec<_> = rules.iter().map(|rule| rule.mismatch(request)).collect();
                    match checks.iter().position(Option::is_none) {
                        Some(rule) => BindingOutcome::Allowed { rule },
                        None => BindingOutcome::NoRuleMatched {
                            mismatches: checks.into_iter().flatten().collect(),
                        },
                    }
                }
            };
            bindings.push(explanation(binding, subject, outcome));
        }
        let allowing =
            bindings.iter().find(|b| matches!(b.outcome, BindingOutcome::Allowed { .. }));
        let decision = match allowing {
            Some(binding) => allow(format!("RBAC: allowed by {}", binding.source())),
            None => deny(&errors),
        };
        Explanation { decision, superuser: false, request: description, bindings }
    }
}

impl Authorizer for RbacAuthorizer {
    fn authorize(&self, review: &AccessReview) -> Result<AccessDecision, AuthorizerError> {
        Ok(self.decide(&review.user, Request::Resource(&review.resource)))
    }
}

/// kube-apiserver allows `system:masters` everything before RBAC is asked, with an empty
/// reason.
fn is_superuser(user: &UserInfo) -> bool {
    user.groups.iter().any(|group| group == SYSTEM_MASTERS)
}

fn allow(reason: String) -> AccessDecision {
    AccessDecision { allowed: true, reason }
}

/// RBAC has no opinion: an empty reason, or the role references that could not be
/// resolved (`RBAC: <error>`, several as `RBAC: [<error>, <error>]`, repeats removed).
fn deny(errors: &[&str]) -> AccessDecision {
    let mut unique: Vec<&str> = Vec::new();
    for error in errors {
        if !unique.contains(error) {
            unique.push(error);
        }
    }
    let reason = match unique.as_slice() {
        [] => String::new(),
        [only] => format!("RBAC: {only}"),
        several => format!("RBAC: [{}]", several.join(", ")),
    };
    AccessDecision { allowed: false, reason }
}

/// The allow-reason source of a binding (see [`BindingExplanation::source`]).
fn source(binding: &Binding, subject: &Subject) -> String {
    explain::binding_source(
        binding.kind,
        &binding.namespace,
        &binding.name,
        &binding.role_ref.kind,
        &binding.role_ref.name,
        &subjects::describe(subject, &binding.namespace),
    )
}

fn explanation(
    binding: &Binding,
    subject: &Subject,
    outcome: BindingOutcome,
) -> BindingExplanation {
    BindingExplanation {
        kind: binding.kind,
        namespace: binding.namespace.clone(),
        name: binding.name.clone(),
        role_kind: binding.role_ref.kind.clone(),
        role_name: binding.role_ref.name.clone(),
        subject: subjects::describe(subject, &binding.namespace),
        outcome,
    }
}
