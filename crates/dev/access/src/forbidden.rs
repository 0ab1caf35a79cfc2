//! The 403 answers kube-apiserver gives when authorization does not allow a request
//! (`responsewriters.Forbidden`): users and scripts match on these texts. The texts
//! themselves are `certgate-rbac`'s ([`forbidden_message`], [`forbidden_status_message`]),
//! shared with production code; this module wraps them in the sandbox's `Status` answer.

pub use certgate_rbac::{forbidden_message, forbidden_status_message};

use crate::RequestAttributes;
use crate::status::{self, StatusError};

/// The whole 403 answer (`apierrors.NewForbidden`), `details` naming the group, resource and
/// object.
pub fn forbidden_status(
    username: &str,
    attributes: &RequestAttributes,
    reason: &str,
) -> StatusError {
    let (group, resource, name) = match attributes {
        RequestAttributes::Resource(a) => (a.group.as_str(), a.resource.as_str(), a.name.as_str()),
        RequestAttributes::NonResource(_) => ("", "", ""),
    };
    StatusError {
        code: 403,
        reason: "Forbidden",
        message: forbidden_status_message(username, attributes, reason),
        details: Some(status::details(name, group, resource)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use certgate_rbac::{NonResourceAttributes, ResourceAttributes};
    use serde_json::json;

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
        let attributes = RequestAttributes::Resource(ResourceAttributes {
            namespace: "ns".into(),
            verb: "get".into(),
            version: "v1".into(),
            resource: "secrets".into(),
            name: "s".into(),
            ..ResourceAttributes::default()
        });
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
