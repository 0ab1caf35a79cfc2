//! The other question the signer permission check asks the cluster: what API discovery
//! calls an issuer kind, so the RBAC question can name its `signers` resource. Like
//! [`crate::AccessChecker`], dyn-compatible so a server holds `Arc<dyn KindResolver>`.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

/// How API discovery names an issuer kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResolvedKind {
    /// The resource plural, e.g. `issuers`.
    pub plural: String,
    pub namespaced: bool,
}

/// Why discovery could not answer (any such error denies the request).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct DiscoveryError {
    pub message: String,
}

/// The future a [`KindResolver`] answers with; it may borrow the resolver and its arguments.
pub type ResolveFuture<'a> =
    Pin<Box<dyn Future<Output = Result<Option<ResolvedKind>, DiscoveryError>> + Send + 'a>>;

/// Resolves an issuer `group`/`kind` to its resource through API discovery.
pub trait KindResolver: Send + Sync {
    /// `Ok(None)` when the group or kind does not exist.
    fn resolve<'a>(&'a self, group: &'a str, kind: &'a str) -> ResolveFuture<'a>;
}

/// A shared resolver resolves as the resolver does, so `Arc<dyn KindResolver>` is one.
impl<T: KindResolver + ?Sized> KindResolver for Arc<T> {
    fn resolve<'a>(&'a self, group: &'a str, kind: &'a str) -> ResolveFuture<'a> {
        (**self).resolve(group, kind)
    }
}
