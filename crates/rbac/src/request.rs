//! [`RequestAttributes`]: what one API request asks to do, resource or non-resource: the
//! attributes kube-apiserver authorizes (`authorizer.Attributes`). Here, beside the RBAC that
//! answers them, so that production code (templates' ServiceAccount reads) and the sandbox's
//! request parsing (`certgate-access`) share one type.

use std::fmt;

use crate::{NonResourceAttributes, ResourceAttributes};

/// A resource request (`/api/...`, `/apis/...` with at least a version and a resource) or a
/// request for any other path.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum RequestAttributes {
    Resource(ResourceAttributes),
    NonResource(NonResourceAttributes),
}

impl RequestAttributes {
    /// The Kubernetes verb (`list`, `create`, ...) or, for non-resource requests, the
    /// lower-cased HTTP method.
    pub fn verb(&self) -> &str {
        match self {
            RequestAttributes::Resource(attributes) => &attributes.verb,
            RequestAttributes::NonResource(attributes) => &attributes.verb,
        }
    }
}

impl fmt::Display for RequestAttributes {
    /// A short description for logs: `list configmaps in "default"`, `get /version`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestAttributes::NonResource(a) => write!(f, "{} {}", a.verb, a.path),
            RequestAttributes::Resource(a) => {
                write!(f, "{} {}", a.verb, a.resource)?;
                if !a.subresource.is_empty() {
                    write!(f, "/{}", a.subresource)?;
                }
                if !a.group.is_empty() {
                    write!(f, ".{}", a.group)?;
                }
                if !a.name.is_empty() {
                    write!(f, " {:?}", a.name)?;
                }
                if !a.namespace.is_empty() {
                    write!(f, " in {:?}", a.namespace)?;
                }
                Ok(())
            }
        }
    }
}
