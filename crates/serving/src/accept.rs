//! Puts each accepted connection (after TLS, if any) under the policy: its stream behind
//! the I/O guard, its service behind the request tracker, sharing one activity record.

use std::future::Future;
use std::io;
use std::pin::Pin;

use axum_server::accept::Accept;
use tokio::io::{AsyncRead, AsyncWrite};

use crate::activity::Activity;
use crate::guard::Guarded;
use crate::policy::ConnectionPolicy;
use crate::track::Tracked;

/// An axum-server acceptor applying `policy` around `inner` (plain or TLS).
#[derive(Clone, Debug)]
pub struct PolicyAcceptor<A> {
    inner: A,
    policy: ConnectionPolicy,
}

impl<A> PolicyAcceptor<A> {
    pub fn new(inner: A, policy: ConnectionPolicy) -> PolicyAcceptor<A> {
        PolicyAcceptor { inner, policy }
    }
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

impl<A, I, S> Accept<I, S> for PolicyAcceptor<A>
where
    A: Accept<I, S>,
    A::Future: Send + 'static,
    A::Stream: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    A::Service: Send + 'static,
{
    type Stream = Guarded<A::Stream>;
    type Service = Tracked<A::Service>;
    type Future = BoxFuture<io::Result<(Self::Stream, Self::Service)>>;

    fn accept(&self, stream: I, service: S) -> Self::Future {
        let accepted = self.inner.accept(stream, service);
        let policy = self.policy.clone();
        Box::pin(async move {
            let (stream, service) = accepted.await?;
            // The clock for the first request starts once the connection can carry one.
            let activity = Activity::new(policy);
            Ok((Guarded::new(stream, activity.clone()), Tracked::new(service, activity)))
        })
    }
}
