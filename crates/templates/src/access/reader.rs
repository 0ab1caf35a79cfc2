//! The read seam: templates read Kubernetes objects only through [`ObjectReader`], so the
//! same functions run against a cluster cache, the offline CLI's files or a benchmark.

use std::sync::Arc;

use super::selector::LabelSelector;

/// What discovery says about a kind (`APIResource`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResourceInfo {
    pub group: String,
    pub version: String,
    pub kind: String,
    /// The resource name in URLs and RBAC rules (`secrets`).
    pub plural: String,
    pub namespaced: bool,
    pub verbs: Vec<String>,
}

/// The verbs discovery lists for an ordinary resource.
pub const STANDARD_VERBS: [&str; 8] =
    ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];

impl ResourceInfo {
    /// A resource with the standard verbs.
    pub fn new(group: &str, version: &str, kind: &str, plural: &str, namespaced: bool) -> Self {
        ResourceInfo {
            group: group.to_owned(),
            version: version.to_owned(),
            kind: kind.to_owned(),
            plural: plural.to_owned(),
            namespaced,
            verbs: STANDARD_VERBS.iter().map(|v| (*v).to_owned()).collect(),
        }
    }

    pub fn with_verbs(mut self, verbs: &[&str]) -> Self {
        self.verbs = verbs.iter().map(|v| (*v).to_owned()).collect();
        self
    }

    pub fn supports(&self, verb: &str) -> bool {
        self.verbs.iter().any(|v| v == verb)
    }

    /// `GroupResource.String()`: `secrets`, `clusterclaims.cluster.open-cluster-management.io`.
    pub fn group_resource(&self) -> String {
        if self.group.is_empty() {
            self.plural.clone()
        } else {
            format!("{}.{}", self.plural, self.group)
        }
    }
}

/// Why a transient failure happened; all of these are retried with backoff.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RetryReason {
    Internal,
    ServiceUnavailable,
    Timeout,
    TooManyRequests,
    /// The shared watch of the object is being stopped (`the watched object has a watch
    /// being stopped`).
    WatchStopping,
}

/// A read that did not produce an answer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReadError {
    /// 403; the message is the API server's Status message.
    #[error("{0}")]
    Forbidden(String),
    /// 401; the message is the API server's Status message.
    #[error("{0}")]
    Unauthorized(String),
    /// A failure worth retrying (5xx, 429, timeouts).
    #[error("{message}")]
    Transient { reason: RetryReason, message: String },
    /// The kind disappeared between discovery and the read.
    #[error("one or more API resources are not installed on the API server")]
    MissingApiResource,
    /// Anything else (bad request, unwatchable list, ...).
    #[error("{0}")]
    Other(String),
}

impl ReadError {
    /// Whether the propagator requeues with backoff instead of writing the error (§4).
    pub fn is_retryable(&self) -> bool {
        matches!(self, ReadError::Transient { .. } | ReadError::MissingApiResource)
    }

    /// Forbidden and Unauthorized are returned as reconcile errors on the update path.
    pub fn is_access_denied(&self) -> bool {
        matches!(self, ReadError::Forbidden(_) | ReadError::Unauthorized(_))
    }
}

/// Reads objects as JSON. Implementations must be cheap to call concurrently; templates of
/// many replicas resolve in parallel.
pub trait ObjectReader: Send + Sync {
    /// Discovery: the resource serving `kind` in `api_version` (`v1`, `group/version`), or
    /// `None` when the API server does not serve it.
    fn resource(&self, api_version: &str, kind: &str) -> Option<ResourceInfo>;

    /// One object; `Ok(None)` when it does not exist. `namespace` is empty for
    /// cluster-scoped resources.
    fn get(
        &self,
        resource: &ResourceInfo,
        namespace: &str,
        name: &str,
    ) -> Result<Option<Arc<serde_json::Value>>, ReadError>;

    /// The objects of `namespace` (every namespace when empty) that `selector` selects, in
    /// a stable order.
    fn list(
        &self,
        resource: &ResourceInfo,
        namespace: &str,
        selector: &LabelSelector,
    ) -> Result<Vec<Arc<serde_json::Value>>, ReadError>;
}
