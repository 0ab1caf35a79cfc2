//! What a resource URL names: `/api/v1/...` or `/apis/<group>/<version>/...`, then an
//! optional `namespaces/<ns>/`, the resource plural, an optional name and subresource.

use crate::registry::Registry;
use crate::resources::ResourceType;
use crate::status::ApiError;

/// The object or collection a request addresses.
#[derive(Clone, Debug, PartialEq)]
pub struct Target {
    pub resource: ResourceType,
    /// The namespace in the path (`None` for cluster-scoped resources or all namespaces).
    pub namespace: Option<String>,
    pub name: Option<String>,
    pub subresource: Option<String>,
}

/// Namespace subresources, which follow `namespaces/<name>/` without being resources.
const NAMESPACE_SUBRESOURCES: [&str; 2] = ["status", "finalize"];

/// Resolves `path` (without query) against the served resources.
pub fn resolve(registry: &Registry, path: &str) -> Result<Target, ApiError> {
    let parts: Vec<&str> = path.trim_matches('/').split('/').collect();
    let (group, version, rest) = match parts.as_slice() {
        ["api", version, rest @ ..] => ("", *version, rest),
        ["apis", group, version, rest @ ..] => (*group, *version, rest),
        _ => return Err(ApiError::no_route()),
    };
    let mut rest = rest;
    let mut namespace = None;
    if let ["namespaces", ns, tail @ ..] = rest
        && let Some(first) = tail.first()
        && !NAMESPACE_SUBRESOURCES.contains(first)
    {
        namespace = Some((*ns).to_owned());
        rest = tail;
    }
    let (plural, name, subresource) = match rest {
        [plural] => (*plural, None, None),
        [plural, name] => (*plural, Some(*name), None),
        [plural, name, sub] => (*plural, Some(*name), Some(*sub)),
        _ => return Err(ApiError::no_route()),
    };
    let resource = registry.get(group, version, plural).ok_or_else(ApiError::no_route)?;
    if namespace.is_some() && !resource.namespaced {
        return Err(ApiError::no_route());
    }
    if let Some(sub) = subresource {
        let known = sub == "status" && resource.status_subresource
            || sub == "token" && resource.has_token_subresource()
            || resource.plural == "namespaces" && NAMESPACE_SUBRESOURCES.contains(&sub);
        if !known {
            return Err(ApiError::no_route());
        }
    }
    if resource.create_only && name.is_some() {
        return Err(ApiError::no_route());
    }
    if [Some(""), Some(".."), Some(".")].contains(&name) {
        return Err(ApiError::no_route());
    }
    Ok(Target {
        resource,
        namespace,
        name: name.map(str::to_owned),
        subresource: subresource.map(str::to_owned),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    type Parts = (String, Option<String>, Option<String>, Option<String>);

    fn target(path: &str) -> Option<Parts> {
        resolve(&Registry::default(), path)
            .ok()
            .map(|t| (t.resource.plural, t.namespace, t.name, t.subresource))
    }

    fn some(s: &str) -> Option<String> {
        Some(s.to_owned())
    }

    #[test]
    fn paths_resolve_like_the_api_servers_request_info() {
        assert_eq!(target("/api/v1/namespaces"), Some(("namespaces".into(), None, None, None)));
        assert_eq!(
            target("/api/v1/namespaces/a"),
            Some(("namespaces".into(), None, some("a"), None))
        );
        assert_eq!(
            target("/api/v1/namespaces/a/status"),
            Some(("namespaces".into(), None, some("a"), some("status")))
        );
        assert_eq!(
            target("/api/v1/namespaces/a/configmaps/b"),
            Some(("configmaps".into(), some("a"), some("b"), None))
        );
        assert_eq!(target("/api/v1/configmaps"), Some(("configmaps".into(), None, None, None)));
        assert_eq!(
            target("/apis/rbac.authorization.k8s.io/v1/clusterroles/x"),
            Some(("clusterroles".into(), None, some("x"), None))
        );
        assert_eq!(
            target("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/x/status"),
            Some(("customresourcedefinitions".into(), None, some("x"), some("status")))
        );
    }

    #[test]
    fn unknown_or_malformed_paths_are_not_found() {
        for path in [
            "/api/v2/configmaps",
            "/api/v1/namespaces/a/clusterroles",
            "/api/v1/namespaces/a/configmaps/b/status",
            "/api/v1/namespaces/a/configmaps/b/c/d",
            "/apis/nope/v1/things",
            "/version/x",
        ] {
            assert_eq!(target(path), None, "{path}");
        }
    }
}
