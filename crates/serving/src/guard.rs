//! The I/O side of the policy: a connection's stream that fails its reads once the
//! connection is overdue, so hyper closes it.
//!
//! hyper 1's own `header_read_timeout` cannot do this job: it is HTTP/1 only, it restarts on
//! every idle keep-alive wait (making the idle timeout equal to it), and the HTTP/1-or-2
//! detection of `hyper_util`'s auto builder reads the first bytes with no timeout at all.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::{Instant, Sleep};

use crate::activity::Activity;

/// A connection's stream under the policy.
pub struct Guarded<S> {
    inner: S,
    activity: Arc<Activity>,
    timer: Pin<Box<Sleep>>,
    armed: Option<Instant>,
}

impl<S> Guarded<S> {
    pub(crate) fn new(inner: S, activity: Arc<Activity>) -> Guarded<S> {
        Guarded {
            inner,
            activity,
            timer: Box::pin(tokio::time::sleep_until(Instant::now())),
            armed: None,
        }
    }

    /// The stream under the guard (e.g. to ask TLS for the negotiated protocol).
    pub fn get_ref(&self) -> &S {
        &self.inner
    }

    /// `Ready(error)` once the connection is overdue; otherwise arms the timer to wake the
    /// reader at the deadline.
    fn poll_overdue(&mut self, cx: &mut Context<'_>) -> Poll<io::Error> {
        let Some((deadline, why)) = self.activity.deadline(cx.waker()) else {
            self.armed = None;
            return Poll::Pending;
        };
        if self.armed != Some(deadline) {
            self.timer.as_mut().reset(deadline);
            self.armed = Some(deadline);
        }
        match self.timer.as_mut().poll(cx) {
            Poll::Ready(()) => {
                tracing::debug!(reason = why.message(), "closing a slow or idle connection");
                Poll::Ready(io::Error::new(io::ErrorKind::TimedOut, why.message()))
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Guarded<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        // Checked before reading too: a client trickling a byte whenever asked would
        // otherwise never let the read come back empty.
        if let Poll::Ready(error) = this.poll_overdue(cx) {
            return Poll::Ready(Err(error));
        }
        let before = buf.filled().len();
        match Pin::new(&mut this.inner).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {
                let received = &buf.filled()[before..];
                if !received.is_empty() {
                    this.activity.received(received);
                }
                Poll::Ready(Ok(()))
            }
            other => other,
        }
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Guarded<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}
