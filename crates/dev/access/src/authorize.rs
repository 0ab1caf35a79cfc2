//! The one question the sandbox asks for every request: may this user do this?

use certgate_rbac::{AccessDecision, AccessReview, Authorizer, RbacAuthorizer, UserInfo};

use crate::RequestAttributes;

/// Answers for resource and non-resource requests alike. `AccessDecision.reason` is what
/// kube-apiserver appends to a Forbidden message and reports in `status.reason` of access
/// reviews.
pub trait RequestAuthorizer {
    fn authorize(&self, user: &UserInfo, attributes: &RequestAttributes) -> AccessDecision;
}

/// RBAC as kube-apiserver runs it: `system:masters` is allowed everything (the
/// [`RbacAuthorizer`] already answers so, with an empty reason), everyone else by bindings.
impl RequestAuthorizer for RbacAuthorizer {
    fn authorize(&self, user: &UserInfo, attributes: &RequestAttributes) -> AccessDecision {
        match attributes {
            RequestAttributes::Resource(resource) => {
                let review = AccessReview { user: user.clone(), resource: resource.clone() };
                // RbacAuthorizer cannot fail; should another implementation, deny (fail closed)
                // and say why.
                Authorizer::authorize(self, &review).unwrap_or_else(|error| AccessDecision {
                    allowed: false,
                    reason: error.to_string(),
                })
            }
            RequestAttributes::NonResource(non_resource) => {
                self.authorize_non_resource(user, non_resource)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use certgate_rbac::{NonResourceAttributes, RbacObjects, ResourceAttributes};

    #[test]
    fn masters_are_allowed_and_others_are_not_without_bindings() {
        let rbac = RbacAuthorizer::new(RbacObjects::default());
        let master = UserInfo {
            username: "root".into(),
            groups: vec!["system:masters".into()],
            ..UserInfo::default()
        };
        let alice = UserInfo { username: "alice".into(), ..UserInfo::default() };
        let secrets = RequestAttributes::Resource(ResourceAttributes {
            verb: "get".into(),
            resource: "secrets".into(),
            namespace: "ns".into(),
            ..ResourceAttributes::default()
        });
        let version = RequestAttributes::NonResource(NonResourceAttributes {
            path: "/version".into(),
            verb: "get".into(),
        });
        for attributes in [&secrets, &version] {
            assert!(RequestAuthorizer::authorize(&rbac, &master, attributes).allowed);
            assert_eq!(
                RequestAuthorizer::authorize(&rbac, &alice, attributes),
                AccessDecision { allowed: false, reason: String::new() }
            );
        }
    }
}
