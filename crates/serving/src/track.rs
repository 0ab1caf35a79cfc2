//! The request side of the policy: counts a connection's requests in flight, from complete
//! headers until the response body is finished or dropped, so that a long response (a
//! watch) is never mistaken for an idle connection.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use http::{Request, Response};
use hyper::body::{Body, Frame, SizeHint};
use tower::Service;

use crate::activity::Activity;

/// Marks one request in flight while it lives.
struct InFlight(Arc<Activity>);

impl InFlight {
    fn start(activity: &Arc<Activity>) -> InFlight {
        activity.request_started();
        InFlight(Arc::clone(activity))
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.request_ended();
    }
}

/// A connection's service, counting its requests.
#[derive(Clone)]
pub struct Tracked<S> {
    inner: S,
    activity: Arc<Activity>,
}

impl<S> Tracked<S> {
    pub(crate) fn new(inner: S, activity: Arc<Activity>) -> Tracked<S> {
        Tracked { inner, activity }
    }
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

impl<S, B, R> Service<Request<R>> for Tracked<S>
where
    S: Service<Request<R>, Response = Response<B>>,
    S::Future: Send + 'static,
    B: Body + Unpin,
{
    type Response = Response<TrackedBody<B>>;
    type Error = S::Error;
    type Future = BoxFuture<Result<Self::Response, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<R>) -> Self::Future {
        // Started here, so a handler that is abandoned before answering ends it too.
        let in_flight = InFlight::start(&self.activity);
        let response = self.inner.call(request);
        Box::pin(async move {
            let response = response.await?;
            Ok(response.map(|inner| TrackedBody { inner, _in_flight: in_flight }))
        })
    }
}

/// A response body that keeps its request in flight until it is finished or dropped.
pub struct TrackedBody<B> {
    inner: B,
    _in_flight: InFlight,
}

impl<B: Body + Unpin> Body for TrackedBody<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<B::Data>, B::Error>>> {
        Pin::new(&mut self.get_mut().inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
