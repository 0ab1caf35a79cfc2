//! What the router calls for `/mutate` and `/validate`.

use std::future::Future;

use certgate_admission::review::{Admission, Endpoint, Handled, HeavyReviewStats, Rejection};
use certgate_rbac::{AccessChecker, KindResolver};

/// Answers one AdmissionReview body. Production uses [`Admission`]; tests plug in fakes.
pub trait AdmissionHandler: Send + Sync + 'static {
    fn handle(
        &self,
        endpoint: Endpoint,
        body: &[u8],
    ) -> impl Future<Output = Result<Handled, Rejection>> + Send;

    /// Counters of the CPU-heavy policy reviews, exported on `/metrics`; `None` for
    /// handlers that have none.
    fn policy_review_stats(&self) -> Option<HeavyReviewStats> {
        None
    }
}

impl<A, K> AdmissionHandler for Admission<A, K>
where
    A: AccessChecker + 'static,
    K: KindResolver + 'static,
{
    fn handle(
        &self,
        endpoint: Endpoint,
        body: &[u8],
    ) -> impl Future<Output = Result<Handled, Rejection>> + Send {
        Admission::handle(self, endpoint, body)
    }

    fn policy_review_stats(&self) -> Option<HeavyReviewStats> {
        Some(self.heavy_review_stats())
    }
}
