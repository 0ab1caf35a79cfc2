//! The RBACBound predicate (spec §3 step 2.3): may the requester `use` this policy? One
//! SubjectAccessReview per policy, with exactly upstream's attributes, plus the `kubectl`
//! commands that would grant a missing permission (for the `--explain` trace).

use certgate_api::CertificateRequest;
use certgate_api::gofmt::quote;
use certgate_rbac::{AccessDecision, AccessReview, Authorizer, ResourceAttributes, UserInfo};

use crate::review::PredicateError;
use crate::trace::{AccessReviewTrace, Grant};

const POLICY_GROUP: &str = "policy.cert-manager.io";
const POLICY_RESOURCE: &str = "certificaterequestpolicies";
const VERB_USE: &str = "use";
const SERVICE_ACCOUNT_PREFIX: &str = "system:serviceaccount:";

/// The requester's access question, built once per review; only the policy name changes.
pub(crate) struct UseCheck {
    review: AccessReview,
}

impl UseCheck {
    pub(crate) fn new(cr: &CertificateRequest) -> Self {
        let spec = &cr.spec;
        UseCheck {
            review: AccessReview {
                user: UserInfo {
                    username: spec.username.clone().unwrap_or_default(),
                    uid: spec.uid.clone().unwrap_or_default(),
                    groups: spec.groups.clone().unwrap_or_default(),
                    extra: spec.extra.clone().unwrap_or_default(),
                },
                resource: ResourceAttributes {
                    namespace: cr.metadata.namespace.clone().unwrap_or_default(),
                    verb: VERB_USE.to_owned(),
                    group: POLICY_GROUP.to_owned(),
                    resource: POLICY_RESOURCE.to_owned(),
                    ..ResourceAttributes::default()
                },
            },
        }
    }

    /// Asks the authorizer whether the requester may `use` the named policy.
    pub(crate) fn check(
        &mut self,
        authorizer: &dyn Authorizer,
        policy: &str,
    ) -> Result<AccessDecision, PredicateError> {
        self.review.resource.name.clear();
        self.review.resource.name.push_str(policy);
        authorizer
            .authorize(&self.review)
            .map_err(|err| PredicateError(format!("failed to create subjectaccessreview: {err}")))
    }

    /// The attributes of the last question asked, for the trace.
    pub(crate) fn trace(&self) -> AccessReviewTrace {
        let (user, resource) = (&self.review.user, &self.review.resource);
        AccessReviewTrace {
            user: user.username.clone(),
            groups: user.groups.clone(),
            uid: user.uid.clone(),
            verb: resource.verb.clone(),
            group: resource.group.clone(),
            resource: resource.resource.clone(),
            name: resource.name.clone(),
            namespace: resource.namespace.clone(),
        }
    }

    /// What is missing for the last policy asked about, and the commands that grant it.
    pub(crate) fn grant(&self) -> Grant {
        let (user, resource) = (&self.review.user, &self.review.resource);
        let policy = &resource.name;
        let target = format!(
            "{} {POLICY_RESOURCE}.{POLICY_GROUP} {} in namespace {}",
            quote(VERB_USE),
            quote(policy),
            quote(&resource.namespace),
        );
        if user.username.is_empty() {
            let missing = format!(
                "the request names no requester (spec.username is empty), so no binding can grant {target}"
            );
            return Grant { missing, commands: Vec::new() };
        }
        let missing = format!("user {} may not {target}", quote(&user.username));
        let role = format!("use-policy-{policy}");
        let subject = match service_account(&user.username) {
            Some((namespace, name)) => format!("--serviceaccount={namespace}:{name}"),
            None => format!("--user={}", user.username),
        };
        // `kubectl create clusterrole --verb=use` is refused for anything but
        // podsecuritypolicies, so the ClusterRole is piped in as one line of JSON.
        let cluster_role = serde_json::json!({
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRole",
            "metadata": {"name": role},
            "rules": [{
                "apiGroups": [POLICY_GROUP],
                "resources": [POLICY_RESOURCE],
                "verbs": [VERB_USE],
                "resourceNames": [policy],
            }],
        });
        let commands = vec![
            format!("echo {} | kubectl apply -f -", shell_word(&cluster_role.to_string())),
            format!(
                "kubectl create rolebinding {} -n {} --clusterrole={} {}",
                shell_word(&role),
                shell_word(&resource.namespace),
                shell_word(&role),
                shell_word(&subject)
            ),
        ];
        Grant { missing, commands }
    }
}

/// `system:serviceaccount:<namespace>:<name>` split into its parts.
fn service_account(username: &str) -> Option<(&str, &str)> {
    let rest = username.strip_prefix(SERVICE_ACCOUNT_PREFIX)?;
    let (namespace, name) = rest.split_once(':')?;
    (!namespace.is_empty() && !name.is_empty() && !name.contains(':')).then_some((namespace, name))
}

/// Quotes a word for a POSIX shell when it holds anything beyond the safe characters, so
/// a pasted command does what it shows.
fn shell_word(word: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "@%+=:,./_-".contains(c);
    if !word.is_empty() && word.chars().all(safe) {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use certgate_api::{CertificateRequestSpec, IssuerReference};
    use certgate_rbac::AuthorizerError;
    use std::collections::BTreeMap;
    use std::sync::Mutex;

    struct Recording(Mutex<Vec<AccessReview>>, Result<bool, String>);

    impl Authorizer for Recording {
        fn authorize(&self, review: &AccessReview) -> Result<AccessDecision, AuthorizerError> {
            if let Ok(mut seen) = self.0.lock() {
                seen.push(review.clone());
            }
            match &self.1 {
                Ok(allowed) => Ok(AccessDecision { allowed: *allowed, reason: "because".into() }),
                Err(err) => Err(AuthorizerError(err.clone())),
            }
        }
    }

    fn cr(username: &str) -> CertificateRequest {
        let mut cr = CertificateRequest::new(
            "req",
            CertificateRequestSpec {
                issuer_ref: IssuerReference { name: "ca".into(), ..Default::default() },
                username: Some(username.into()),
                uid: Some("uid-1".into()),
                groups: Some(vec!["g1".into(), "system:authenticated".into()]),
                extra: Some(BTreeMap::from([("scopes".into(), vec!["a".into()])])),
                ..Default::default()
            },
        );
        cr.metadata.namespace = Some("team-a".into());
        cr
    }

    #[test]
    fn asks_exactly_upstreams_subject_access_review_per_policy() {
        let authorizer = Recording(Mutex::new(vec![]), Ok(true));
        let mut check = UseCheck::new(&cr("alice"));
        assert!(check.check(&authorizer, "p1").expect("authorized").allowed);
        assert!(check.check(&authorizer, "p2").expect("authorized").allowed);
        let seen = authorizer.0.into_inner().expect("not poisoned");
        let expected = |name: &str| AccessReview {
            user: UserInfo {
                username: "alice".into(),
                uid: "uid-1".into(),
                groups: vec!["g1".into(), "system:authenticated".into()],
                extra: BTreeMap::from([("scopes".into(), vec!["a".into()])]),
            },
            resource: ResourceAttributes {
                namespace: "team-a".into(),
                verb: "use".into(),
                group: "policy.cert-manager.io".into(),
                version: String::new(),
                resource: "certificaterequestpolicies".into(),
                subresource: String::new(),
                name: name.into(),
            },
        };
        assert_eq!(seen, vec![expected("p1"), expected("p2")]);
    }

    #[test]
    fn authorizer_failure_is_a_predicate_error() {
        let authorizer = Recording(Mutex::new(vec![]), Err("connection refused".into()));
        let err = UseCheck::new(&cr("alice")).check(&authorizer, "p").err();
        assert_eq!(
            err.map(|e| e.0),
            Some("failed to create subjectaccessreview: connection refused".to_owned())
        );
    }

    #[test]
    fn grant_commands_bind_a_user_or_a_service_account() {
        let mut check = UseCheck::new(&cr("alice@example.com"));
        check.review.resource.name = "prod".into();
        let grant = check.grant();
        assert_eq!(
            grant.missing,
            r#"user "alice@example.com" may not "use" certificaterequestpolicies.policy.cert-manager.io "prod" in namespace "team-a""#
        );
        assert_eq!(
            grant.commands,
            vec![
                r#"echo '{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"use-policy-prod"},"rules":[{"apiGroups":["policy.cert-manager.io"],"resources":["certificaterequestpolicies"],"verbs":["use"],"resourceNames":["prod"]}]}' | kubectl apply -f -"#,
                "kubectl create rolebinding use-policy-prod -n team-a --clusterrole=use-policy-prod --user=alice@example.com",
            ]
        );

        let mut check = UseCheck::new(&cr("system:serviceaccount:cert-manager:cert-manager"));
        check.review.resource.name = "prod".into();
        assert_eq!(
            check.grant().commands.get(1).map(String::as_str),
            Some(
                "kubectl create rolebinding use-policy-prod -n team-a --clusterrole=use-policy-prod --serviceaccount=cert-manager:cert-manager"
            )
        );
    }

    #[test]
    fn grant_quotes_unusual_names_and_offers_nothing_without_a_user() {
        let mut check = UseCheck::new(&cr("it's me"));
        check.review.resource.name = "p".into();
        assert_eq!(
            check.grant().commands.get(1).map(String::as_str),
            Some(
                r"kubectl create rolebinding use-policy-p -n team-a --clusterrole=use-policy-p '--user=it'\''s me'"
            )
        );
        let mut check = UseCheck::new(&cr(""));
        check.review.resource.name = "p".into();
        let grant = check.grant();
        assert!(grant.commands.is_empty());
        assert_eq!(
            grant.missing,
            r#"the request names no requester (spec.username is empty), so no binding can grant "use" certificaterequestpolicies.policy.cert-manager.io "p" in namespace "team-a""#
        );
    }
}
