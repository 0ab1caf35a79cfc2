//! The texts of the 403 kube-apiserver answers when authorization does not allow a request
//! (`responsewriters.Forbidden`): users and scripts match on them, so every place that
//! refuses on RBAC's behalf (the sandbox API server, templates' ServiceAccount reads) words
//! it through these.

use certgate_gofmt::quote;

use crate::RequestAttributes;

/// `User "alice" cannot list resource "configmaps" in API group "" in the namespace
/// "default"`, `... at the cluster scope`, or `User "alice" cannot get path "/version"`.
pub fn forbidden_message(username: &str, attributes: &RequestAttributes) -> String {
    match attributes {
        RequestAttributes::NonResource(a) => {
            format!("User {} cannot {} path {}", quote(username), a.verb, quote(&a.path))
        }
        RequestAttributes::Resource(a) => {
            let resource = if a.subresource.is_empty() {
                a.resource.clone()
            } else {
                format!("{}/{}", a.resource, a.subresource)
            };
            let scope = if a.namespace.is_empty() {
                "at the cluster scope".to_owned()
            } else {
                format!("in the namespace {}", quote(&a.namespace))
            };
            format!(
                "User {} cannot {} resource {} in API group {} {scope}",
                quote(username),
                a.verb,
                quote(&resource),
                quote(&a.group)
            )
        }
    }
}

/// The `message` of the 403 `Status`: `<resource>[.<group>] ["<name>"] is forbidden: <forbidden
/// message>[: <reason>]`, or `forbidden: <forbidden message>` for non-resource requests. The
/// forbidden message is HTML-escaped (`&`, `<`, `>`) as kube-apiserver does; `reason` is the
/// authorizer's (RBAC's is empty unless a binding names a missing role) and is not escaped.
pub fn forbidden_status_message(
    username: &str,
    attributes: &RequestAttributes,
    reason: &str,
) -> String {
    let mut why = sanitize(&forbidden_message(username, attributes));
    if !reason.is_empty() {
        why = format!("{why}: {reason}");
    }
    let (group, resource, name) = match attributes {
        RequestAttributes::Resource(a) => (a.group.as_str(), a.resource.as_str(), a.name.as_str()),
        RequestAttributes::NonResource(_) => ("", "", ""),
    };
    if group.is_empty() && resource.is_empty() {
        format!("forbidden: {why}")
    } else if name.is_empty() {
        format!("{} is forbidden: {why}", qualified(resource, group))
    } else {
        format!("{} {} is forbidden: {why}", qualified(resource, group), quote(name))
    }
}

/// kube-apiserver's `sanitizer`: error texts must not look like HTML.
fn sanitize(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// `schema.GroupResource.String()`: `resource.group`, or just `resource` in the core group.
fn qualified(resource: &str, group: &str) -> String {
    if group.is_empty() { resource.to_owned() } else { format!("{resource}.{group}") }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{NonResourceAttributes, ResourceAttributes};

    fn resource(
        verb: &str,
        group: &str,
        ns: &str,
        res: &str,
        sub: &str,
        name: &str,
    ) -> RequestAttributes {
        RequestAttributes::Resource(ResourceAttributes {
            namespace: ns.into(),
            verb: verb.into(),
            group: group.into(),
            version: "v1".into(),
            resource: res.into(),
            subresource: sub.into(),
            name: name.into(),
        })
    }

    #[test]
    fn messages_match_kube_apiserver() {
        #[rustfmt::skip]
        let cases: &[(RequestAttributes, &str, &str)] = &[
            (
                resource("list", "", "default", "configmaps", "", ""),
                r#"User "alice" cannot list resource "configmaps" in API group "" in the namespace "default""#,
                r#"configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "default""#,
            ),
            (
                resource("get", "", "", "namespaces", "", "kube-system"),
                r#"User "alice" cannot get resource "namespaces" in API group "" at the cluster scope"#,
                r#"namespaces "kube-system" is forbidden: User "alice" cannot get resource "namespaces" in API group "" at the cluster scope"#,
            ),
            (
                resource("create", "", "ns", "serviceaccounts", "token", "sa"),
                r#"User "alice" cannot create resource "serviceaccounts/token" in API group "" in the namespace "ns""#,
                r#"serviceaccounts "sa" is forbidden: User "alice" cannot create resource "serviceaccounts/token" in API group "" in the namespace "ns""#,
            ),
            (
                resource("watch", "coordination.k8s.io", "ns", "leases", "", ""),
                r#"User "alice" cannot watch resource "leases" in API group "coordination.k8s.io" in the namespace "ns""#,
                r#"leases.coordination.k8s.io is forbidden: User "alice" cannot watch resource "leases" in API group "coordination.k8s.io" in the namespace "ns""#,
            ),
            (
                RequestAttributes::NonResource(NonResourceAttributes { path: "/version".into(), verb: "get".into() }),
                r#"User "alice" cannot get path "/version""#,
                r#"forbidden: User "alice" cannot get path "/version""#,
            ),
        ];
        for (attributes, message, status) in cases {
            assert_eq!(forbidden_message("alice", attributes), *message);
            assert_eq!(forbidden_status_message("alice", attributes, ""), *status);
        }
    }

    #[test]
    fn reason_is_appended_and_markup_escaped() {
        let attributes = resource("get", "", "ns", "secrets", "", "s");
        assert_eq!(
            forbidden_status_message(
                "<b>&",
                &attributes,
                r#"RBAC: clusterrole.rbac.authorization.k8s.io "x" not found"#,
            ),
            r#"secrets "s" is forbidden: User "&lt;b&gt;&amp;" cannot get resource "secrets" in API group "" in the namespace "ns": RBAC: clusterrole.rbac.authorization.k8s.io "x" not found"#
        );
    }
}
