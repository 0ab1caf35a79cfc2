//! [`NoCluster`]: the checker and resolver for running without an API server.

use std::future::ready;

use crate::checker::{AccessChecker, CheckFuture};
use crate::kinds::{DiscoveryError, KindResolver, ResolveFuture};
use crate::{AccessReview, AuthorizerError};

/// Answers every cluster question with an error, so a request that needs one (the signer
/// permission check) is denied: for running without an API server, and for benchmarks.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoCluster;

/// The error [`NoCluster`] answers with.
pub const NO_CLUSTER: &str = "no cluster connection configured: certgate cannot ask the API server";

impl AccessChecker for NoCluster {
    fn check<'a>(&'a self, _review: &'a AccessReview) -> CheckFuture<'a> {
        Box::pin(ready(Err(AuthorizerError(NO_CLUSTER.to_owned()))))
    }
}

impl KindResolver for NoCluster {
    fn resolve<'a>(&'a self, _group: &'a str, _kind: &'a str) -> ResolveFuture<'a> {
        Box::pin(ready(Err(DiscoveryError { message: NO_CLUSTER.to_owned() })))
    }
}
