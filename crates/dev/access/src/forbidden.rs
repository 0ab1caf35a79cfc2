//! The 403 answers kube-apiserver gives when authorization does not allow a request
//! (`responsewriters.Forbidden`): users and scripts match on these texts.

use certgate_gofmt::quote;

use crate::RequestAttributes;
use crate::status::{self, StatusError};

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
    forbidden_status(username, attributes, reason).message
}

/// The whole 403 answer (`apierrors.NewForbidden`), `details` naming the group, resource and
/// object.
pub fn forbidden_status(
    username: &str,
    attributes: &RequestAttributes,
    reason: &str,
) -> StatusError {
    let mut why = status::sanitize(&forbidden_message(username, attributes));
    if !reason.is_empty() {
        why = format!("{why}: {reason}");
    }
    let (group, resource, name) = match attributes {
        RequestAttributes::Resource(a) => (a.group.as_str(), a.resource.as_str(), a.name.as_str()),
        RequestAttributes::NonResource(_) => ("", "", ""),
    };
    let message = if group.is_empty() && resource.is_empty() {
        format!("forbidden: {why}")
    } else if name.is_empty() {
        format!("{} is forbidden: {why}", status::qualified(resource, group))
    } else {
        format!("{} {} is forbidden: {why}", status::qualified(resource, group), quote(name))
    };
    StatusError {
        code: 403,
        reason: "Forbidden",
        message,
        details: Some(status::details(name, group, resource)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use certgate_rbac::{NonResourceAttributes, ResourceAttributes};
    use serde_json::json;

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
    fn anonymous_non_resource_status() {
        let attributes = RequestAttributes::NonResource(NonResourceAttributes {
            path: "/x".into(),
            verb: "get".into(),
        });
        let status = forbidden_status("system:anonymous", &attributes, "");
        assert_eq!(status.message, r#"forbidden: User "system:anonymous" cannot get path "/x""#);
        assert_eq!((status.code, status.reason), (403, "Forbidden"));
        assert_eq!(status.details, Some(json!({})));
    }

    #[test]
    fn reason_is_appended_and_markup_escaped() {
        let attributes = resource("get", "", "ns", "secrets", "", "s");
        let status = forbidden_status(
            "<b>&",
            &attributes,
            r#"RBAC: clusterrole.rbac.authorization.k8s.io "x" not found"#,
        );
        assert_eq!(
            status.message,
            r#"secrets "s" is forbidden: User "&lt;b&gt;&amp;" cannot get resource "secrets" in API group "" in the namespace "ns": RBAC: clusterrole.rbac.authorization.k8s.io "x" not found"#
        );
        assert_eq!(status.details, Some(json!({"name": "s", "kind": "secrets"})));
    }
}
