//! Who a binding is for: subject matching as kube-apiserver's `appliesToUser`, the subject
//! text of its allow reasons, and an index from users and groups to bindings so that a
//! request only looks at the bindings that can apply to it.

use std::collections::HashMap;

use k8s_openapi::api::rbac::v1::Subject;

use crate::UserInfo;
use certgate_gofmt::quote;

pub(crate) const SERVICE_ACCOUNT_USERNAME_PREFIX: &str = "system:serviceaccount:";

const USER: &str = "User";
const GROUP: &str = "Group";
pub(crate) const SERVICE_ACCOUNT: &str = "ServiceAccount";

/// Whether `subject` names the user. A ServiceAccount subject without a namespace takes
/// `binding_namespace` (empty for ClusterRoleBindings, where it then matches nobody).
/// Unknown kinds match nobody; kinds are case-sensitive.
pub(crate) fn applies_to_user(user: &UserInfo, subject: &Subject, binding_namespace: &str) -> bool {
    match subject.kind.as_str() {
        USER => user.username == subject.name,
        GROUP => user.groups.contains(&subject.name),
        SERVICE_ACCOUNT => service_account_username(subject, binding_namespace)
            .is_some_and(|username| username == user.username),
        _ => false,
    }
}

/// Index of the first subject that applies to the user, as the allow reason names it.
pub(crate) fn first_applying(
    user: &UserInfo,
    subjects: &[Subject],
    binding_namespace: &str,
) -> Option<usize> {
    subjects.iter().position(|subject| applies_to_user(user, subject, binding_namespace))
}

/// `User "alice"`, `Group "devs"`, `ServiceAccount "name/namespace"`.
pub(crate) fn describe(subject: &Subject, binding_namespace: &str) -> String {
    match subject.kind.as_str() {
        SERVICE_ACCOUNT => {
            let namespace = subject_namespace(subject, binding_namespace);
            format!("{} {}", subject.kind, quote(&format!("{}/{namespace}", subject.name)))
        }
        _ => format!("{} {}", subject.kind, quote(&subject.name)),
    }
}

fn subject_namespace<'a>(subject: &'a Subject, binding_namespace: &'a str) -> &'a str {
    subject.namespace.as_deref().filter(|ns| !ns.is_empty()).unwrap_or(binding_namespace)
}

/// The username a ServiceAccount subject stands for, if it has a namespace.
fn service_account_username(subject: &Subject, binding_namespace: &str) -> Option<String> {
    let namespace = subject_namespace(subject, binding_namespace);
    (!namespace.is_empty())
        .then(|| format!("{SERVICE_ACCOUNT_USERNAME_PREFIX}{namespace}:{}", subject.name))
}

/// Bindings by the users, groups and ServiceAccount usernames of their subjects. A lookup
/// returns a superset of the bindings that apply: callers still run [`first_applying`].
#[derive(Debug, Default)]
pub(crate) struct SubjectIndex {
    by_username: HashMap<String, Vec<usize>>,
    by_group: HashMap<String, Vec<usize>>,
}

impl SubjectIndex {
    pub(crate) fn insert(&mut self, binding: usize, subjects: &[Subject], binding_namespace: &str) {
        for subject in subjects {
            let (map, key) = match subject.kind.as_str() {
                USER => (&mut self.by_username, subject.name.clone()),
                GROUP => (&mut self.by_group, subject.name.clone()),
                SERVICE_ACCOUNT => match service_account_username(subject, binding_namespace) {
                    Some(username) => (&mut self.by_username, username),
                    None => continue,
                },
                _ => continue,
            };
            let entries = map.entry(key).or_default();
            // Several subjects of one binding may name the same key.
            if entries.last() != Some(&binding) {
                entries.push(binding);
            }
        }
    }

    /// Adds the bindings that may apply to `user` to `out` (unsorted, possibly repeated).
    pub(crate) fn candidates(&self, user: &UserInfo, out: &mut Vec<usize>) {
        out.extend(self.by_username.get(&user.username).into_iter().flatten());
        for group in &user.groups {
            out.extend(self.by_group.get(group).into_iter().flatten());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn subject(kind: &str, name: &str, namespace: Option<&str>) -> Subject {
        Subject {
            kind: kind.to_owned(),
            name: name.to_owned(),
            namespace: namespace.map(str::to_owned),
            api_group: None,
        }
    }

    fn user(name: &str, groups: &[&str]) -> UserInfo {
        UserInfo {
            username: name.to_owned(),
            groups: groups.iter().map(|g| (*g).to_owned()).collect(),
            ..UserInfo::default()
        }
    }

    #[test]
    fn applies() {
        let sa = user("system:serviceaccount:ns:builder", &[]);
        let alice = user("alice", &[]);
        let account =
            |name: &str, namespace: Option<&str>| subject("ServiceAccount", name, namespace);
        #[rustfmt::skip]
        let cases: &[(&str, Subject, &str, &UserInfo, bool)] = &[
            ("user", subject("User", "alice", None), "", &alice, true),
            ("other user", subject("User", "alice", None), "", &user("bob", &[]), false),
            ("kind is case-sensitive", subject("user", "alice", None), "", &alice, false),
            ("group", subject("Group", "devs", None), "", &user("bob", &["x", "devs"]), true),
            ("group is not a user", subject("Group", "bob", None), "", &user("bob", &[]), false),
            ("sa with namespace", account("builder", Some("ns")), "", &sa, true),
            ("sa other namespace", account("builder", Some("other")), "ns", &sa, false),
            ("sa defaults to binding namespace", account("builder", None), "ns", &sa, true),
            ("sa empty namespace defaults too", account("builder", Some("")), "ns", &sa, true),
            ("sa without any namespace", account("builder", None), "", &sa, false),
            ("sa other name", account("build", Some("ns")), "", &sa, false),
            ("unknown kind", subject("Robot", "alice", None), "", &alice, false),
        ];
        for (name, subject, namespace, user, want) in cases {
            assert_eq!(applies_to_user(user, subject, namespace), *want, "{name}");
        }
    }

    #[test]
    fn describes_like_kube_apiserver() {
        assert_eq!(describe(&subject("User", "alice", None), "ns"), r#"User "alice""#);
        assert_eq!(describe(&subject("Group", "devs", None), ""), r#"Group "devs""#);
        assert_eq!(
            describe(&subject("ServiceAccount", "sa", Some("a")), "b"),
            r#"ServiceAccount "sa/a""#
        );
        assert_eq!(
            describe(&subject("ServiceAccount", "sa", None), "b"),
            r#"ServiceAccount "sa/b""#
        );
    }

    #[test]
    fn index_finds_every_applying_binding() {
        let mut index = SubjectIndex::default();
        index.insert(0, &[subject("User", "alice", None), subject("User", "alice", None)], "");
        index.insert(1, &[subject("Group", "devs", None)], "");
        index.insert(2, &[subject("ServiceAccount", "builder", None)], "ns");
        index.insert(3, &[subject("ServiceAccount", "builder", None)], "");
        index.insert(4, &[subject("Robot", "alice", None)], "");
        let mut found = Vec::new();
        index.candidates(&user("alice", &["devs"]), &mut found);
        assert_eq!(found, [0, 1]);
        found.clear();
        index.candidates(&user("system:serviceaccount:ns:builder", &[]), &mut found);
        assert_eq!(found, [2]);
    }
}
