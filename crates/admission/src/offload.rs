//! CPU-heavy review work, off the async runtime and bounded (issue #16).
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
//! Without a tokio runtime (`certgate check`, tests driving [`crate::review::Admission`]
//! with their own executor) the work runs inline, within the same time budget.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use certgate_approval::{Cancelled, CompileBudget, DEFAULT_COMPILE_TIME};
use tokio::sync::{Semaphore, TryAcquireError};

use crate::review::Rejection;

/// How much heavy review work may run and wait at once, and for how long each may
/// compile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeavyReviewOptions {
    /// Reviews compiling at once (default: the number of CPUs).
    pub running: usize,
    /// Reviews waiting for a turn; one more is refused with 429 (default: 4 per running).
    pub waiting: usize,
    /// Time allowed for compiling one policy's rules (default
    /// [`DEFAULT_COMPILE_TIME`]); past it the policy is denied, saying so.
    pub compile_time: Duration,
}

impl Default for HeavyReviewOptions {
    fn default() -> Self {
        let cpus = std::thread::available_parallelism().map_or(1, usize::from);
        HeavyReviewOptions { running: cpus, waiting: 4 * cpus, compile_time: DEFAULT_COMPILE_TIME }
    }
}

/// Counters of heavy reviews since start (for tests and diagnostics).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HeavyReviewStats {
    /// Running now.
    pub running: usize,
    /// Waiting for a turn now.
    pub waiting: usize,
    /// Finished with an answer.
    pub completed: u64,
    /// Stopped early because nobody waited for the answer any more.
    pub cancelled: u64,
    /// Refused with 429 because too many were waiting.
    pub refused: u64,
}

/// The bounded pool heavy reviews run on.
pub(crate) struct HeavyReviews {
    options: HeavyReviewOptions,
    permits: Arc<Semaphore>,
    counters: Arc<Counters>,
}

#[derive(Default)]
struct Counters {
    running: AtomicUsize,
    waiting: AtomicUsize,
    completed: AtomicU64,
    cancelled: AtomicU64,
    refused: AtomicU64,
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

/// Counts one review in `counter` while it lives.
struct Gauge<'a>(&'a AtomicUsize);

impl<'a> Gauge<'a> {
    fn new(counter: &'a AtomicUsize) -> Self {
        counter.fetch_add(1, Ordering::AcqRel);
        Gauge(counter)
    }
}

impl Drop for Gauge<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

impl HeavyReviews {
    pub(crate) fn new(options: HeavyReviewOptions) -> Self {
        let options = HeavyReviewOptions { running: options.running.max(1), ..options };
        HeavyReviews {
            permits: Arc::new(Semaphore::new(options.running)),
            options,
            counters: Arc::default(),
        }
    }

    pub(crate) fn stats(&self) -> HeavyReviewStats {
        let c = &self.counters;
        HeavyReviewStats {
            running: c.running.load(Ordering::Acquire),
            waiting: c.waiting.load(Ordering::Acquire),
            completed: c.completed.load(Ordering::Acquire),
            cancelled: c.cancelled.load(Ordering::Acquire),
            refused: c.refused.load(Ordering::Acquire),
        }
    }

    /// Runs `job` within the compile budget: on the blocking pool when there is a tokio
    /// runtime, inline otherwise.
    pub(crate) async fn run<T: Send + 'static>(
        &self,
        job: impl FnOnce(&CompileBudget) -> Result<T, Cancelled> + Send + 'static,
    ) -> Result<T, Rejection> {
        let flag = Arc::new(AtomicBool::new(false));
        let budget = CompileBudget::new(Arc::clone(&flag), self.options.compile_time);
        if tokio::runtime::Handle::try_current().is_err() {
            let _running = Gauge::new(&self.counters.running);
            return answer(self.counters.count(job(&budget)));
        }
        let permit = match Arc::clone(&self.permits).try_acquire_owned() {
            Ok(permit) => permit,
            Err(TryAcquireError::Closed) => return Err(closed()),
            Err(TryAcquireError::NoPermits) => {
                // `waiting` counts this request too.
                let waiting = Gauge::new(&self.counters.waiting);
                if self.counters.waiting.load(Ordering::Acquire) > self.options.waiting {
                    drop(waiting);
                    self.counters.refused.fetch_add(1, Ordering::AcqRel);
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
        let counters = Arc::clone(&self.counters);
        let outcome = tokio::task::spawn_blocking(move || {
            let _permit = permit;
            let _running = Gauge::new(&counters.running);
            // Counted here: the future awaiting the result may be gone already.
            counters.count(job(&budget))
        })
        .await;
        // The review finished: nothing left to cancel.
        cancel_on_drop.disarm();
        match outcome {
            Ok(result) => answer(result),
            Err(_) => Err(Rejection {
                status: 500,
                message: "internal error: the CertificateRequestPolicy review failed; this is \
                          a certgate bug, please report it"
                    .to_owned(),
            }),
        }
    }
}

impl Counters {
    fn count<T>(&self, result: Result<T, Cancelled>) -> Result<T, Cancelled> {
        let counter = if result.is_ok() { &self.completed } else { &self.cancelled };
        counter.fetch_add(1, Ordering::AcqRel);
        result
    }
}

fn answer<T>(result: Result<T, Cancelled>) -> Result<T, Rejection> {
    // Cancelled: nobody reads this answer, the caller went away.
    result.map_err(|cancelled| Rejection { status: 503, message: cancelled.to_string() })
}

fn closed() -> Rejection {
    Rejection { status: 503, message: "the webhook is shutting down; retry the request".to_owned() }
}
