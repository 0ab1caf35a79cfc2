//! What a request asks for, as kube-apiserver's `RequestInfoFactory` reads it from the method,
//! path and query: the attributes every authorization decision is made on ([`RequestAttributes`],
//! defined in `certgate-rbac`).

use certgate_gofmt::url::{Mode, unescape};
/// What a request asks to do; defined in `certgate-rbac`, beside the RBAC that answers it.
pub use certgate_rbac::RequestAttributes;
use certgate_rbac::{NonResourceAttributes, ResourceAttributes};

use crate::{field_selector, query};

/// kube-apiserver could not make sense of the URL (`/api/v1/watch` with nothing after it);
/// its filter answers 500 with the plain-text body of
/// [`plain_internal_error`](crate::plain_internal_error) and this error as the reason.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("failed to create RequestInfo: unable to determine kind and namespace from url, {url}")]
pub struct RequestInfoError {
    /// The URL as Go prints it: path, then `?query` when there is one.
    pub url: String,
}

/// Path segments that are verbs rather than resources (`/api/v1/watch/...`).
const SPECIAL_VERBS: [&str; 2] = ["proxy", "watch"];
/// Subresources of a namespace, told apart from resources inside the namespace.
const NAMESPACE_SUBRESOURCES: [&str; 2] = ["status", "finalize"];

/// The attributes of a request. `path` is the request path as received (percent-encoded; it is
/// decoded as Go's `URL.Path`), `query` the raw query string without `?`.
pub fn request_attributes(
    method: &str,
    path: &str,
    query: &str,
) -> Result<RequestAttributes, RequestInfoError> {
    let path = decoded_path(path);
    let non_resource = || {
        RequestAttributes::NonResource(NonResourceAttributes {
            path: path.clone(),
            verb: method.to_lowercase(),
        })
    };
    let segments: Vec<&str> = match path.trim_matches('/') {
        "" => Vec::new(),
        trimmed => trimmed.split('/').collect(),
    };
    // `/api/<version>/<resource>...` or `/apis/<group>/<version>/<resource>...`.
    let (group, rest) = match segments.as_slice() {
        ["api", rest @ ..] if rest.len() >= 2 => ("", rest),
        ["apis", group, rest @ ..] if rest.len() >= 2 => (*group, rest),
        _ => return Ok(non_resource()),
    };
    let (version, mut parts) = match rest {
        [version, parts @ ..] => (*version, parts),
        [] => return Ok(non_resource()),
    };

    let mut attributes = ResourceAttributes {
        group: group.to_owned(),
        version: version.to_owned(),
        ..ResourceAttributes::default()
    };
    let verb_from_path = parts.first().is_some_and(|part| SPECIAL_VERBS.contains(part));
    if verb_from_path {
        let [verb, after @ ..] = parts else { return Ok(non_resource()) };
        if after.is_empty() {
            let url = if query.is_empty() { path } else { format!("{path}?{query}") };
            return Err(RequestInfoError { url });
        }
        attributes.verb = (*verb).to_owned();
        parts = after;
    } else {
        attributes.verb = match method {
            "POST" => "create",
            "GET" | "HEAD" => "get",
            "PUT" => "update",
            "PATCH" => "patch",
            "DELETE" => "delete",
            _ => "",
        }
        .to_owned();
    }

    // `/namespaces/<ns>/<resource>...`; `/namespaces/<ns>` and its subresources are the
    // namespace object itself.
    if let ["namespaces", namespace, after @ ..] = parts {
        attributes.namespace = (*namespace).to_owned();
        if after.first().is_some_and(|next| !NAMESPACE_SUBRESOURCES.contains(next)) {
            parts = after;
        }
    }

    // resource/name/subresource/anything-else; proxy requests have no subresource.
    attributes.resource = parts.first().map(|s| (*s).to_owned()).unwrap_or_default();
    attributes.name = parts.get(1).map(|s| (*s).to_owned()).unwrap_or_default();
    if attributes.verb != "proxy" {
        attributes.subresource = parts.get(2).map(|s| (*s).to_owned()).unwrap_or_default();
    }

    if attributes.name.is_empty() && attributes.verb == "get" {
        let pairs = query::parse(query);
        list_or_watch(&mut attributes, &pairs);
    }
    if attributes.name.is_empty() && attributes.verb == "delete" {
        attributes.verb = "deletecollection".to_owned();
    }
    Ok(RequestAttributes::Resource(attributes))
}

/// A GET without a name lists, or watches when `watch` is anything but `0`/`false`; a
/// `fieldSelector` requiring `metadata.name` names the object, unless any list option fails
/// to decode (then kube-apiserver ignores them all but `watch`).
fn list_or_watch(attributes: &mut ResourceAttributes, pairs: &[(String, String)]) {
    let watch = query::first(pairs, "watch")
        .is_some_and(|value| !matches!(value.to_lowercase().as_str(), "false" | "0"));
    attributes.verb = if watch { "watch" } else { "list" }.to_owned();
    let integers_decode = ["limit", "timeoutSeconds"]
        .iter()
        .all(|key| query::first(pairs, key).is_none_or(|value| value.parse::<i64>().is_ok()));
    if !integers_decode {
        return;
    }
    let Some(selector) = query::first(pairs, "fieldSelector") else { return };
    if let Ok(Some(name)) = field_selector::required_value(selector, "metadata.name")
        && is_valid_path_segment_name(&name)
    {
        attributes.name = name;
    }
}

/// `path.IsValidPathSegmentName`: a name that can stand in a URL path segment.
fn is_valid_path_segment_name(name: &str) -> bool {
    name != "." && name != ".." && !name.contains('/') && !name.contains('%')
}

/// `URL.Path`: percent-escapes decoded. A path Go would refuse to parse is kept as written.
fn decoded_path(raw: &str) -> String {
    match unescape(raw, Mode::Path) {
        Ok(bytes) => String::from_utf8(bytes)
            .unwrap_or_else(|err| String::from_utf8_lossy(err.as_bytes()).into_owned()),
        Err(_) => raw.to_owned(),
    }
}

/// Whether the request only reads (`get`, `list`, `watch`), as `Attributes.IsReadOnly`.
pub fn is_read_only(attributes: &RequestAttributes) -> bool {
    matches!(attributes.verb(), "get" | "list" | "watch")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resource(
        verb: &str,
        group: &str,
        version: &str,
        namespace: &str,
        resource: &str,
        name: &str,
        subresource: &str,
    ) -> RequestAttributes {
        RequestAttributes::Resource(ResourceAttributes {
            namespace: namespace.into(),
            verb: verb.into(),
            group: group.into(),
            version: version.into(),
            resource: resource.into(),
            subresource: subresource.into(),
            name: name.into(),
        })
    }

    fn path(verb: &str, path: &str) -> RequestAttributes {
        RequestAttributes::NonResource(NonResourceAttributes {
            path: path.into(),
            verb: verb.into(),
        })
    }

    #[test]
    fn resource_requests() {
        #[rustfmt::skip]
        let cases: &[(&str, &str, &str, RequestAttributes)] = &[
            ("GET", "/api/v1/namespaces", "", resource("list", "", "v1", "", "namespaces", "", "")),
            ("GET", "/api/v1/namespaces/default", "", resource("get", "", "v1", "default", "namespaces", "default", "")),
            ("PUT", "/api/v1/namespaces/default/status", "", resource("update", "", "v1", "default", "namespaces", "default", "status")),
            ("PUT", "/api/v1/namespaces/default/finalize", "", resource("update", "", "v1", "default", "namespaces", "default", "finalize")),
            ("DELETE", "/api/v1/namespaces/default", "", resource("delete", "", "v1", "default", "namespaces", "default", "")),
            ("GET", "/api/v1/namespaces/default/configmaps", "", resource("list", "", "v1", "default", "configmaps", "", "")),
            ("GET", "/api/v1/namespaces/default/configmaps", "watch=true", resource("watch", "", "v1", "default", "configmaps", "", "")),
            ("GET", "/api/v1/namespaces/default/configmaps", "watch=1", resource("watch", "", "v1", "default", "configmaps", "", "")),
            ("GET", "/api/v1/namespaces/default/configmaps", "watch=yes", resource("watch", "", "v1", "default", "configmaps", "", "")),
            ("GET", "/api/v1/namespaces/default/configmaps", "watch=False", resource("list", "", "v1", "default", "configmaps", "", "")),
            ("GET", "/api/v1/namespaces/default/configmaps", "watch=0", resource("list", "", "v1", "default", "configmaps", "", "")),
            ("GET", "/api/v1/namespaces/default/configmaps/cm", "", resource("get", "", "v1", "default", "configmaps", "cm", "")),
            ("HEAD", "/api/v1/namespaces/default/configmaps/cm", "", resource("get", "", "v1", "default", "configmaps", "cm", "")),
            ("POST", "/api/v1/namespaces/default/configmaps", "", resource("create", "", "v1", "default", "configmaps", "", "")),
            ("PUT", "/api/v1/namespaces/default/configmaps/cm", "", resource("update", "", "v1", "default", "configmaps", "cm", "")),
            ("PATCH", "/api/v1/namespaces/default/configmaps/cm", "", resource("patch", "", "v1", "default", "configmaps", "cm", "")),
            ("DELETE", "/api/v1/namespaces/default/configmaps/cm", "", resource("delete", "", "v1", "default", "configmaps", "cm", "")),
            ("DELETE", "/api/v1/namespaces/default/configmaps", "", resource("deletecollection", "", "v1", "default", "configmaps", "", "")),
            ("OPTIONS", "/api/v1/namespaces/default/configmaps", "", resource("", "", "v1", "default", "configmaps", "", "")),
            ("POST", "/api/v1/namespaces/ns/serviceaccounts/sa/token", "", resource("create", "", "v1", "ns", "serviceaccounts", "sa", "token")),
            ("GET", "/api/v1/configmaps", "", resource("list", "", "v1", "", "configmaps", "", "")),
            ("GET", "/apis/coordination.k8s.io/v1/namespaces/ns/leases/l/extra/parts", "", resource("get", "coordination.k8s.io", "v1", "ns", "leases", "l", "extra")),
            ("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", "", resource("create", "authorization.k8s.io", "v1", "", "selfsubjectaccessreviews", "", "")),
            ("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/x.example.com", "", resource("get", "apiextensions.k8s.io", "v1", "", "customresourcedefinitions", "x.example.com", "")),
            ("GET", "/api/v1/watch/namespaces/ns/configmaps", "", resource("watch", "", "v1", "ns", "configmaps", "", "")),
            ("GET", "/api/v1/watch/namespaces/ns/configmaps/cm", "", resource("watch", "", "v1", "ns", "configmaps", "cm", "")),
            ("GET", "/api/v1/watch/namespaces", "", resource("watch", "", "v1", "", "namespaces", "", "")),
            ("GET", "/api/v1/proxy/namespaces/ns/services/svc/some/path", "", resource("proxy", "", "v1", "ns", "services", "svc", "")),
            ("GET", "/api/v1/namespaces/ns/configmaps", "fieldSelector=metadata.name%3Dcm", resource("list", "", "v1", "ns", "configmaps", "cm", "")),
            ("GET", "/api/v1/namespaces/ns/configmaps", "watch=1&fieldSelector=metadata.name%3D%3Dcm", resource("watch", "", "v1", "ns", "configmaps", "cm", "")),
            ("GET", "/api/v1/namespaces/ns/configmaps", "fieldSelector=metadata.name!%3Dcm", resource("list", "", "v1", "ns", "configmaps", "", "")),
            ("GET", "/api/v1/namespaces/ns/configmaps", "fieldSelector=metadata.name%3D..", resource("list", "", "v1", "ns", "configmaps", "", "")),
            ("GET", "/api/v1/namespaces/ns/configmaps", "fieldSelector=metadata.name%3Dcm&limit=x", resource("list", "", "v1", "ns", "configmaps", "", "")),
            ("GET", "/api/v1/namespaces/ns/configmaps", "fieldSelector=metadata.name%3Dcm&limit=500", resource("list", "", "v1", "ns", "configmaps", "cm", "")),
            ("DELETE", "/api/v1/namespaces/ns/configmaps", "fieldSelector=metadata.name%3Dcm", resource("deletecollection", "", "v1", "ns", "configmaps", "", "")),
            ("GET", "/api/v1/namespaces/my%2Dns/configmaps", "", resource("list", "", "v1", "my-ns", "configmaps", "", "")),
            ("GET", "//api//v1/configmaps/", "", resource("get", "", "", "", "v1", "configmaps", "")),
        ];
        for (method, p, q, want) in cases {
            assert_eq!(request_attributes(method, p, q).as_ref(), Ok(want), "{method} {p}?{q}");
        }
    }

    #[test]
    fn non_resource_requests() {
        #[rustfmt::skip]
        let cases: &[(&str, &str, RequestAttributes)] = &[
            ("GET", "/version", path("get", "/version")),
            ("GET", "/openapi/v3", path("get", "/openapi/v3")),
            ("GET", "/api", path("get", "/api")),
            ("GET", "/api/v1", path("get", "/api/v1")),
            ("GET", "/apis", path("get", "/apis")),
            ("GET", "/apis/rbac.authorization.k8s.io", path("get", "/apis/rbac.authorization.k8s.io")),
            ("GET", "/apis/rbac.authorization.k8s.io/v1", path("get", "/apis/rbac.authorization.k8s.io/v1")),
            ("GET", "/healthz", path("get", "/healthz")),
            ("HEAD", "/healthz", path("head", "/healthz")),
            ("POST", "/x/y/z", path("post", "/x/y/z")),
            ("PUT", "/", path("put", "/")),
            ("PATCH", "/a", path("patch", "/a")),
            ("DELETE", "/a", path("delete", "/a")),
            ("GET", "/version%3F", path("get", "/version?")),
        ];
        for (method, p, want) in cases {
            assert_eq!(request_attributes(method, p, "").as_ref(), Ok(want), "{method} {p}");
        }
    }

    #[test]
    fn verb_without_resource_is_an_error() {
        let error = request_attributes("GET", "/api/v1/watch", "a=b").unwrap_err();
        assert_eq!(
            error.to_string(),
            "failed to create RequestInfo: unable to determine kind and namespace from url, /api/v1/watch?a=b"
        );
        assert!(request_attributes("GET", "/apis/g/v1/proxy", "").is_err());
    }

    #[test]
    fn read_only_verbs() {
        let read = |verb: &str| is_read_only(&path(verb, "/x"));
        assert!(read("get") && read("list") && read("watch"));
        assert!(!read("head") && !read("create") && !read("post") && !read(""));
    }
}
