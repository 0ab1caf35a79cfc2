//! [`BoundedReviewPool`]: CPU-heavy policy reviews off the async runtime and bounded
//! (issue #16); the one tokio implementation of `certgate_admission`'s [`ReviewPool`]
//! seam (issue #17).
//!
//! Reviewing a CertificateRequestPolicy compiles its CEL rules: milliseconds for real
//! policies, up to a few hundred for one at the limits. Run on an async worker thread,
//! a few such reviews would hold up every other request (health checks, CertificateRequest
//! reviews) on that worker. So each one runs on tokio's blocking pool, at most
//! [`HeavyReviewOptions::running`] at a time (the CPU count: an attacker cannot take
//! every blocking thread), with at most [`HeavyReviewOptions::waiting`] more queued;
//! beyond that the request is refused with 429. When the caller's future is dropped
//! (the API server gave up or the client disconnected), a flag tells the review to stop
//! before its next rule.
//!
//! Without a tokio runtime the work runs inline, within the same time budget. Running a
//! job within its budget, counting it and answering a cancelled one is
//! [`InlineReviewPool::run_within`]'s job; this pool adds the queue and the thread.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

use certgate_admission::review::{
    Gauge, HeavyReviewOptions, HeavyReviewStats, InlineReviewPool, PolicyReviewFuture,
    PolicyReviewJob, PolicyVerdict, Rejection, ReviewPool,
};
use tokio::sync::{Semaphore, TryAcquireError};

/// The bounded pool policy reviews run on in the webhook server.
pub struct BoundedReviewPool {
    options: HeavyReviewOptions,
    permits: Arc<Semaphore>,
    /// Runs and counts each job (running, completed, cancelled), on a blocking thread.
    inline: Arc<InlineReviewPool>,
    waiting: AtomicUsize,
    refused: AtomicU64,
}

impl BoundedReviewPool {
    /// At most `options.running` reviews at once (at least one), `options.waiting` more
    /// queued, each compiling for at most `options.compile_time`.
    pub fn new(options: HeavyReviewOptions) -> Self {
        let options = HeavyReviewOptions { running: options.running.max(1), ..options };
        BoundedReviewPool {
            permits: Arc::new(Semaphore::new(options.running)),
            inline: Arc::new(InlineReviewPool::new(options.compile_time)),
            options,
            waiting: AtomicUsize::new(0),
            refused: AtomicU64::new(0),
        }
    }

    /// Runs `job` within the compile budget: on the blocking pool when there is a tokio
    /// runtime, inline otherwise.
    async fn run_job(&self, job: PolicyReviewJob) -> Result<PolicyVerdict, Rejection> {
        let flag = Arc::new(AtomicBool::new(false));
        let budget = self.inline.budget(Arc::clone(&flag));
        if tokio::runtime::Handle::try_current().is_err() {
            return self.inline.run_within(&budget, job);
        }
        let permit = match Arc::clone(&self.permits).try_acquire_owned() {
            Ok(permit) => permit,
            Err(TryAcquireError::Closed) => return Err(closed()),
            Err(TryAcquireError::NoPermits) => {
                // `waiting` counts this request too.
                let waiting = Gauge::new(&self.waiting);
                if self.waiting.load(Ordering::Acquire) > self.options.waiting {
                    drop(waiting);
                    self.refused.fetch_add(1, Ordering::AcqRel);
                    return Err(Rejection {
                        status: 429,
                        message: format!(
                            "too many CertificateRequestPolicy reviews in progress ({} \
                             compiling, {} waiting); retry later",
                            self.options.running, self.options.waiting
                        ),
                    });
                }
                // Dropping this future while it waits gives up the place in the queue.
                Arc::clone(&self.permits).acquire_owned().await.map_err(|_| closed())?
            }
        };
        let mut cancel_on_drop = CancelOnDrop(Some(flag));
        let inline = Arc::clone(&self.inline);
        let outcome = tokio::task::spawn_blocking(move || {
            let _permit = permit;
            inline.run_within(&budget, job)
        })
        .await;
        // The review finished: nothing left to cancel.
        cancel_on_drop.disarm();
        match outcome {
            Ok(answer) => answer,
            Err(_) => Err(Rejection {
                status: 500,
                message: "internal error: the CertificateRequestPolicy review failed; this is \
                          a certgate bug, please report it"
                    .to_owned(),
            }),
        }
    }
}

impl ReviewPool for BoundedReviewPool {
    fn run(&self, job: PolicyReviewJob) -> PolicyReviewFuture<'_> {
        Box::pin(self.run_job(job))
    }

    fn stats(&self) -> Option<HeavyReviewStats> {
        Some(HeavyReviewStats {
            waiting: self.waiting.load(Ordering::Acquire),
            refused: self.refused.load(Ordering::Acquire),
            ..self.inline.counters()
        })
    }
}

/// Sets the flag when dropped before being disarmed: the future awaiting the review
/// went away.
struct CancelOnDrop(Option<Arc<AtomicBool>>);

impl CancelOnDrop {
    fn disarm(&mut self) {
        self.0 = None;
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(flag) = &self.0 {
            flag.store(true, Ordering::Release);
        }
    }
}

fn closed() -> Rejection {
    Rejection { status: 503, message: "the webhook is shutting down; retry the request".to_owned() }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use certgate_admission::review::Cancelled;

    use super::*;

    fn options(running: usize, waiting: usize) -> HeavyReviewOptions {
        HeavyReviewOptions { running, waiting, compile_time: Duration::from_millis(1500) }
    }

    #[tokio::test]
    async fn a_panicking_review_is_answered_with_500_and_frees_its_place() {
        let pool = BoundedReviewPool::new(options(1, 0));
        let answer = pool.run(Box::new(|_| panic!("a certgate bug"))).await;
        assert_eq!(
            answer.unwrap_err(),
            Rejection {
                status: 500,
                message: "internal error: the CertificateRequestPolicy review failed; this is \
                          a certgate bug, please report it"
                    .to_owned()
            }
        );
        assert_eq!(pool.stats(), Some(HeavyReviewStats::default()));
        // The permit came back: the next review runs (and is cancelled, counted as such).
        let answer = pool.run(Box::new(|_| Err(Cancelled { left: 1 }))).await;
        assert_eq!(answer.unwrap_err().status, 503);
        assert_eq!(pool.stats(), Some(HeavyReviewStats { cancelled: 1, ..Default::default() }));
    }

    #[test]
    fn without_a_runtime_the_review_runs_inline_within_the_budget() {
        let pool = BoundedReviewPool::new(options(1, 0));
        let thread = std::thread::current().id();
        let answer = poll_once(pool.run(Box::new(move |budget| {
            assert_eq!(std::thread::current().id(), thread);
            assert_eq!(budget.time, Some(Duration::from_millis(1500)));
            Err(Cancelled { left: 2 })
        })));
        assert_eq!(
            answer.unwrap_err().message,
            "the policy review was cancelled with 2 validation rules not compiled"
        );
        assert_eq!(pool.stats(), Some(HeavyReviewStats { cancelled: 1, ..Default::default() }));
    }

    /// Polls once: the inline path never waits.
    fn poll_once<F: std::future::Future>(future: F) -> F::Output {
        let mut future = std::pin::pin!(future);
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        match future.as_mut().poll(&mut cx) {
            std::task::Poll::Ready(output) => output,
            std::task::Poll::Pending => unreachable!("the inline path never waits"),
        }
    }
}
