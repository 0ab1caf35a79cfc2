//! PolicyRule matching, check for check as kube-apiserver's `RuleAllows` and the
//! `rbac/v1` helpers (`VerbMatches`, `APIGroupMatches`, `ResourceMatches`,
//! `ResourceNameMatches`, `NonResourceURLMatches`).

use k8s_openapi::api::rbac::v1::PolicyRule;

use crate::explain::RuleMismatch;
use crate::{NonResourceAttributes, ResourceAttributes};

const ALL: &str = "*";

/// What is being asked for: a resource, or a non-resource URL.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Request<'a> {
    Resource(&'a ResourceAttributes),
    NonResource(&'a NonResourceAttributes),
}

impl Request<'_> {
    /// Non-resource requests have no namespace, so only cluster-wide grants apply to them.
    pub(crate) fn namespace(&self) -> &str {
        match self {
            Request::Resource(attributes) => &attributes.namespace,
            Request::NonResource(_) => "",
        }
    }
}

/// A PolicyRule with absent lists as empty ones: Kubernetes treats nil and empty alike.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Rule {
    verbs: Vec<String>,
    api_groups: Vec<String>,
    resources: Vec<String>,
    resource_names: Vec<String>,
    non_resource_urls: Vec<String>,
}

impl From<&PolicyRule> for Rule {
    fn from(rule: &PolicyRule) -> Self {
        Rule {
            verbs: rule.verbs.clone(),
            api_groups: rule.api_groups.clone().unwrap_or_default(),
            resources: rule.resources.clone().unwrap_or_default(),
            resource_names: rule.resource_names.clone().unwrap_or_default(),
            non_resource_urls: rule.non_resource_urls.clone().unwrap_or_default(),
        }
    }
}

impl Rule {
    /// Back to a PolicyRule, empty lists left out, for listing a user's rules.
    pub(crate) fn to_policy_rule(&self) -> PolicyRule {
        let list = |items: &Vec<String>| (!items.is_empty()).then(|| items.clone());
        PolicyRule {
            verbs: self.verbs.clone(),
            api_groups: list(&self.api_groups),
            resources: list(&self.resources),
            resource_names: list(&self.resource_names),
            non_resource_urls: list(&self.non_resource_urls),
        }
    }

    /// The first check that fails, in kube-apiserver's order, or `None` when the rule
    /// allows the request.
    pub(crate) fn mismatch(&self, request: Request<'_>) -> Option<RuleMismatch> {
        match request {
            Request::Resource(attributes) => {
                if !self.verb_matches(&attributes.verb) {
                    Some(RuleMismatch::Verb)
                } else if !self.api_group_matches(&attributes.group) {
                    Some(RuleMismatch::ApiGroup)
                } else if !self.resource_matches(&attributes.resource, &attributes.subresource) {
                    Some(RuleMismatch::Resource)
                } else if !self.resource_name_matches(&attributes.name) {
                    Some(RuleMismatch::ResourceName)
                } else {
                    None
                }
            }
            Request::NonResource(attributes) => {
                if !self.verb_matches(&attributes.verb) {
                    Some(RuleMismatch::Verb)
                } else if !self.non_resource_url_matches(&attributes.path) {
                    Some(RuleMismatch::NonResourceUrl)
                } else {
                    None
                }
            }
        }
    }

    fn verb_matches(&self, verb: &str) -> bool {
        self.verbs.iter().any(|v| v == ALL || v == verb)
    }

    /// The core group is the empty string, so `""` in apiGroups matches only core resources.
    fn api_group_matches(&self, group: &str) -> bool {
        self.api_groups.iter().any(|g| g == ALL || g == group)
    }

    /// `*` matches everything (subresources included); otherwise the rule entry must equal
    /// `resource` or `resource/subresource`, or be `*/subresource`. A `resource/*` entry is
    /// not a wildcard: it only equals a request whose subresource is literally `*`.
    fn resource_matches(&self, resource: &str, subresource: &str) -> bool {
        self.resources.iter().any(|entry| {
            entry == ALL
                || equals_combined(entry, resource, subresource)
                || (!subresource.is_empty()
                    && entry.strip_prefix("*/").is_some_and(|sub| sub == subresource))
        })
    }

    /// An empty list allows every name; otherwise the requested name must be listed, so a
    /// request without a name (list, create, watch) is not allowed by a named rule.
    fn resource_name_matches(&self, name: &str) -> bool {
        self.resource_names.is_empty() || self.resource_names.iter().any(|n| n == name)
    }

    /// Exact paths, or a prefix when the entry ends in `*` (`*` alone matches every path).
    fn non_resource_url_matches(&self, path: &str) -> bool {
        self.non_resource_urls.iter().any(|url| match url.strip_suffix('*') {
            Some(_) => path.starts_with(url.trim_end_matches('*')),
            None => url == path,
        })
    }
}

/// Whether `entry` equals `resource` (no subresource) or `resource/subresource`, without
/// building the combined string for every rule checked.
fn equals_combined(entry: &str, resource: &str, subresource: &str) -> bool {
    if subresource.is_empty() {
        return entry == resource;
    }
    entry
        .strip_prefix(resource)
        .and_then(|rest| rest.strip_prefix('/'))
        .is_some_and(|rest| rest == subresource)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(
        verbs: &[&str],
        groups: &[&str],
        resources: &[&str],
        names: &[&str],
        urls: &[&str],
    ) -> Rule {
        let owned = |items: &[&str]| items.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        Rule {
            verbs: owned(verbs),
            api_groups: owned(groups),
            resources: owned(resources),
            resource_names: owned(names),
            non_resource_urls: owned(urls),
        }
    }

    fn resource(verb: &str, group: &str, res: &str, sub: &str, name: &str) -> ResourceAttributes {
        ResourceAttributes {
            namespace: "ns".to_owned(),
            verb: verb.to_owned(),
            group: group.to_owned(),
            version: "v1".to_owned(),
            resource: res.to_owned(),
            subresource: sub.to_owned(),
            name: name.to_owned(),
        }
    }

    #[test]
    fn resource_rules() {
        use RuleMismatch::*;
        let pods_get = rule(&["get"], &[""], &["pods"], &[], &[]);
        #[rustfmt::skip]
        let cases: &[(&str, Rule, ResourceAttributes, Option<RuleMismatch>)] = &[
            ("exact", pods_get.clone(), resource("get", "", "pods", "", "p"), None),
            ("other verb", pods_get.clone(), resource("list", "", "pods", "", ""), Some(Verb)),
            ("core group only", pods_get.clone(), resource("get", "apps", "pods", "", ""), Some(ApiGroup)),
            ("other resource", pods_get.clone(), resource("get", "", "secrets", "", ""), Some(Resource)),
            ("subresource needs listing", pods_get.clone(), resource("get", "", "pods", "log", ""), Some(Resource)),
            ("verb wildcard", rule(&["*"], &[""], &["pods"], &[], &[]), resource("escalate", "", "pods", "", ""), None),
            ("group wildcard", rule(&["get"], &["*"], &["pods"], &[], &[]), resource("get", "metrics.k8s.io", "pods", "", ""), None),
            ("named group does not match core", rule(&["get"], &["apps"], &["pods"], &[], &[]), resource("get", "", "pods", "", ""), Some(ApiGroup)),
            ("resource wildcard covers subresources", rule(&["get"], &[""], &["*"], &[], &[]), resource("get", "", "pods", "log", ""), None),
            ("res/sub", rule(&["get"], &[""], &["pods/log"], &[], &[]), resource("get", "", "pods", "log", ""), None),
            ("res/sub not the parent", rule(&["get"], &[""], &["pods/log"], &[], &[]), resource("get", "", "pods", "", ""), Some(Resource)),
            ("*/sub", rule(&["get"], &[""], &["*/scale"], &[], &[]), resource("get", "", "deployments", "scale", ""), None),
            ("*/sub other sub", rule(&["get"], &[""], &["*/scale"], &[], &[]), resource("get", "", "deployments", "status", ""), Some(Resource)),
            ("*/sub not the parent", rule(&["get"], &[""], &["*/scale"], &[], &[]), resource("get", "", "deployments", "", ""), Some(Resource)),
            ("*/ is not a wildcard", rule(&["get"], &[""], &["*/"], &[], &[]), resource("get", "", "pods", "", ""), Some(Resource)),
            ("res/* is literal", rule(&["get"], &[""], &["pods/*"], &[], &[]), resource("get", "", "pods", "log", ""), Some(Resource)),
            ("res/* literal star sub", rule(&["get"], &[""], &["pods/*"], &[], &[]), resource("get", "", "pods", "*", ""), None),
            ("prefix is not a match", rule(&["get"], &[""], &["pod"], &[], &[]), resource("get", "", "pods", "", ""), Some(Resource)),
            ("combined prefix is not a match", rule(&["get"], &[""], &["pods/lo"], &[], &[]), resource("get", "", "pods", "log", ""), Some(Resource)),
            ("resourceNames listed", rule(&["get"], &[""], &["pods"], &["a", "b"], &[]), resource("get", "", "pods", "", "b"), None),
            ("resourceNames unlisted", rule(&["get"], &[""], &["pods"], &["a"], &[]), resource("get", "", "pods", "", "c"), Some(ResourceName)),
            ("resourceNames need a name", rule(&["list"], &[""], &["pods"], &["a"], &[]), resource("list", "", "pods", "", ""), Some(ResourceName)),
            ("no verbs", rule(&[], &[""], &["pods"], &[], &[]), resource("get", "", "pods", "", ""), Some(Verb)),
            ("urls only", rule(&["get"], &[], &[], &[], &["*"]), resource("get", "", "pods", "", ""), Some(ApiGroup)),
        ];
        for (name, rule, attributes, want) in cases {
            assert_eq!(rule.mismatch(Request::Resource(attributes)), *want, "{name}");
        }
    }

    #[test]
    fn non_resource_rules() {
        use RuleMismatch::*;
        type Case<'a> = (&'a str, &'a [&'a str], &'a str, &'a str, Option<RuleMismatch>);
        #[rustfmt::skip]
        let cases: &[Case<'_>] = &[
            ("exact", &["/healthz"], "get", "/healthz", None),
            ("exact only", &["/healthz"], "get", "/healthz/ready", Some(NonResourceUrl)),
            ("prefix", &["/healthz/*"], "get", "/healthz/ready", None),
            ("prefix keeps its slash", &["/healthz/*"], "get", "/healthz", Some(NonResourceUrl)),
            ("star", &["*"], "get", "/anything", None),
            ("verb", &["*"], "post", "/anything", Some(Verb)),
            ("resources do not grant urls", &[], "get", "/healthz", Some(NonResourceUrl)),
        ];
        for (name, urls, verb, path, want) in cases {
            let rule = rule(&["get"], &["*"], &["*"], &[], urls);
            let attributes =
                NonResourceAttributes { path: (*path).to_owned(), verb: (*verb).to_owned() };
            assert_eq!(rule.mismatch(Request::NonResource(&attributes)), *want, "{name}");
        }
    }

    #[test]
    fn converts_back_without_empty_lists() {
        let policy = PolicyRule {
            verbs: vec!["get".to_owned()],
            api_groups: Some(vec![String::new()]),
            resources: Some(vec!["pods".to_owned()]),
            resource_names: Some(Vec::new()),
            non_resource_urls: None,
        };
        let back = Rule::from(&policy).to_policy_rule();
        assert_eq!(back, PolicyRule { resource_names: None, ..policy });
    }

    #[test]
    fn absent_lists_are_empty() {
        let policy = PolicyRule { verbs: vec!["get".to_owned()], ..PolicyRule::default() };
        assert_eq!(Rule::from(&policy), rule(&["get"], &[], &[], &[], &[]));
    }
}
