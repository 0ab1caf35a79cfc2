//! The one routine every Kubernetes read of a template goes through, with go-template-utils'
//! check order (`getOrList`): the order decides which error a user sees when several apply.

use std::sync::Arc;

use super::identifier::{ObjectIdentifier, ReadSet};
use super::mode::Access;
use super::reader::{ObjectReader, ReadError};
use super::selector::{LabelSelector, SelectorError};

/// Lists larger than this fail instead of being rendered: a template that lists every
/// object of a big cluster would otherwise build an unbounded value.
pub const DEFAULT_MAX_LIST_ITEMS: usize = 10_000;

/// One read as a template function asked for it.
#[derive(Clone, Copy, Debug)]
pub struct Query<'a> {
    pub api_version: &'a str,
    pub kind: &'a str,
    /// As written; empty means the lookup namespace when one is set.
    pub namespace: &'a str,
    /// Empty for a list.
    pub name: &'a str,
    /// Selector arguments; used only when the first is non-empty, joined with `,`.
    pub selector: &'a [&'a str],
}

/// What a read found.
#[derive(Clone, Debug)]
pub enum Found {
    Object(Arc<serde_json::Value>),
    List(Vec<Arc<serde_json::Value>>),
}

/// How the propagator treats a failed resolution (§4): retry with backoff, retry on the
/// update path only (RBAC may change without an event), or record it and move on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorClass {
    Retryable,
    AccessDenied,
    Other,
}

/// A failed read, rendered with upstream's texts.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LookupError {
    #[error("the apiVersion and kind are required")]
    MissingApiVersionOrKind,
    #[error("the namespace argument is restricted to {0}")]
    RestrictedNamespace(String),
    #[error("unexpected GroupVersion string: {0}")]
    InvalidApiVersion(String),
    #[error(transparent)]
    Selector(#[from] SelectorError),
    #[error("one or more API resources are not installed on the API server")]
    MissingApiResource,
    #[error(
        "{group}/{version}, Kind={kind} cannot be watched: watch not supported on this resource"
    )]
    Unwatchable { group: String, version: String, kind: String },
    #[error("lookup of cluster-scoped resource '{kind}/{name}' is not allowed")]
    ClusterScopedNotAllowed { kind: String, name: String },
    /// `apierrors.NewNotFound`: `secrets "x" not found`.
    #[error("{group_resource} {} not found", certgate_gofmt::quote(.name))]
    NotFound { group_resource: String, name: String },
    #[error(
        "{error}: ensure the client has the list and watch permissions for the query: {identifier}"
    )]
    AccessDenied { error: ReadError, identifier: Box<ObjectIdentifier> },
    #[error("{0}")]
    Read(ReadError),
    #[error(
        "the query for {identifier} returned more than {limit} objects; narrow it with a namespace or a label selector"
    )]
    TooManyObjects { identifier: Box<ObjectIdentifier>, limit: usize },
}

impl LookupError {
    pub fn is_not_found(&self) -> bool {
        matches!(self, LookupError::NotFound { .. })
    }

    pub fn class(&self) -> ErrorClass {
        match self {
            LookupError::MissingApiResource => ErrorClass::Retryable,
            LookupError::Read(e) if e.is_retryable() => ErrorClass::Retryable,
            LookupError::AccessDenied { .. } => ErrorClass::AccessDenied,
            _ => ErrorClass::Other,
        }
    }
}

/// `schema.ParseGroupVersion`.
fn parse_group_version(api_version: &str) -> Result<(&str, &str), LookupError> {
    if api_version.is_empty() || api_version == "/" {
        return Ok(("", ""));
    }
    match api_version.matches('/').count() {
        0 => Ok(("", api_version)),
        1 => Ok(api_version.split_once('/').unwrap_or(("", api_version))),
        _ => Err(LookupError::InvalidApiVersion(api_version.to_owned())),
    }
}

/// Runs the checks in upstream order, records the read in `reads` (also when the object is
/// missing or the read is denied, so it can be watched) and reads.
pub fn lookup(
    reader: &dyn ObjectReader,
    access: &Access,
    reads: &mut ReadSet,
    query: &Query<'_>,
    max_list_items: usize,
) -> Result<Found, LookupError> {
    if query.api_version.is_empty() || query.kind.is_empty() {
        return Err(LookupError::MissingApiVersionOrKind);
    }
    let lookup_namespace = access.lookup_namespace();
    let mut namespace = query.namespace;
    if !lookup_namespace.is_empty() {
        if namespace.is_empty() {
            namespace = lookup_namespace;
        } else if namespace != lookup_namespace {
            return Err(LookupError::RestrictedNamespace(lookup_namespace.to_owned()));
        }
    }
    let (group, version) = parse_group_version(query.api_version)?;
    let selector = match query.selector.first() {
        Some(first) if !first.is_empty() => LabelSelector::parse(&query.selector.join(","))?,
        _ => LabelSelector::everything(),
    };
    let api_version =
        if group.is_empty() { version.to_owned() } else { format!("{group}/{version}") };
    let resource =
        reader.resource(&api_version, query.kind).ok_or(LookupError::MissingApiResource)?;
    if !resource.supports("watch") {
        return Err(LookupError::Unwatchable {
            group: group.to_owned(),
            version: version.to_owned(),
            kind: query.kind.to_owned(),
        });
    }
    if !resource.namespaced {
        if !lookup_namespace.is_empty()
            && !access.allows_cluster_scoped(&resource.group, query.kind, query.name)
        {
            return Err(LookupError::ClusterScopedNotAllowed {
                kind: query.kind.to_owned(),
                name: query.name.to_owned(),
            });
        }
        // Cluster-scoped objects have no namespace, whatever the template passed.
        namespace = "";
    }
    let identifier = ObjectIdentifier {
        group: group.to_owned(),
        version: version.to_owned(),
        kind: query.kind.to_owned(),
        namespace: namespace.to_owned(),
        name: query.name.to_owned(),
        selector: if query.name.is_empty() { selector.to_string() } else { String::new() },
    };
    reads.insert(identifier.clone());
    let denied = |error: ReadError, identifier: ObjectIdentifier| {
        if error.is_access_denied() {
            LookupError::AccessDenied { error, identifier: Box::new(identifier) }
        } else {
            LookupError::Read(error)
        }
    };
    if let Err(error) = access.authorize(&resource, namespace, query.name) {
        return Err(denied(error, identifier));
    }
    if query.name.is_empty() {
        let items = match reader.list(&resource, namespace, &selector) {
            Ok(items) => items,
            Err(error) => return Err(denied(error, identifier)),
        };
        if items.len() > max_list_items {
            return Err(LookupError::TooManyObjects {
                identifier: Box::new(identifier),
                limit: max_list_items,
            });
        }
        return Ok(Found::List(items));
    }
    match reader.get(&resource, namespace, query.name) {
        Ok(Some(object)) => Ok(Found::Object(object)),
        Ok(None) => Err(LookupError::NotFound {
            group_resource: resource.group_resource(),
            name: query.name.to_owned(),
        }),
        Err(error) => Err(denied(error, identifier)),
    }
}
