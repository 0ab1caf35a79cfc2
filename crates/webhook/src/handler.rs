//! What the router calls for `/mutate` and `/validate`.

use std::future::Future;

use certgate_admission::review::{
    AccessChecker, Admission, Endpoint, Handled, KindResolver, Rejection,
};

/// Answers one AdmissionReview body. Production uses [`Admission`]; tests plug in fakes.
pub trait AdmissionHandler: Send + Sync + 'static {
    fn handle(
        &self,
        endpoint: Endpoint,
        body: &[u8],
    ) -> impl Future<Output = Result<Handled, Rejection>> + Send;
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
}
