//! [`InlineReviewPool`]: policy reviews run at once, on the caller's thread.
//!
//! The default pool of [`Admission`](crate::review::Admission): `certgate check`, tests
//! and benchmarks driving it with their own executor, the fuzz target. It is also the one
//! place a job's outcome is counted and turned into an answer; the bounded tokio pool of
//! `certgate-webhook` runs its jobs through [`InlineReviewPool::run_within`] on a blocking
//! thread.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use certgate_approval::{Cancelled, CompileBudget, DEFAULT_COMPILE_TIME};

use crate::review::Rejection;
use crate::review_pool::{
    HeavyReviewStats, PolicyReviewFuture, PolicyReviewJob, PolicyVerdict, ReviewPool,
};

/// Runs each policy review when its future is first polled, within `compile_time`. No
/// queue and no bound: the caller's own concurrency is the bound.
#[derive(Debug)]
pub struct InlineReviewPool {
    compile_time: Duration,
    running: AtomicUsize,
    completed: AtomicU64,
    cancelled: AtomicU64,
}

impl Default for InlineReviewPool {
    /// Reviews compile within [`DEFAULT_COMPILE_TIME`].
    fn default() -> Self {
        InlineReviewPool::new(DEFAULT_COMPILE_TIME)
    }
}

impl InlineReviewPool {
    /// A pool whose reviews may compile for `compile_time` each.
    pub fn new(compile_time: Duration) -> Self {
        InlineReviewPool {
            compile_time,
            running: AtomicUsize::new(0),
            completed: AtomicU64::new(0),
            cancelled: AtomicU64::new(0),
        }
    }

    /// The budget a job of this pool compiles within, stopped early once `cancelled` is
    /// set.
    pub fn budget(&self, cancelled: Arc<AtomicBool>) -> CompileBudget {
        CompileBudget::new(cancelled, self.compile_time)
    }

    /// Runs `job` now, on this thread, within `budget`: counted as running while it runs,
    /// then as completed or cancelled. A cancelled job is answered with 503: nobody reads
    /// that answer, the caller went away.
    pub fn run_within(
        &self,
        budget: &CompileBudget,
        job: PolicyReviewJob,
    ) -> Result<PolicyVerdict, Rejection> {
        let result = {
            let _running = Gauge::new(&self.running);
            job(budget)
        };
        // Counted here: the future awaiting the result may be gone already.
        let counter = if result.is_ok() { &self.completed } else { &self.cancelled };
        counter.fetch_add(1, Ordering::AcqRel);
        result.map_err(|cancelled: Cancelled| Rejection {
            status: 503,
            message: cancelled.to_string(),
        })
    }

    /// Running, completed and cancelled reviews (this pool neither queues nor refuses).
    pub fn counters(&self) -> HeavyReviewStats {
        HeavyReviewStats {
            running: self.running.load(Ordering::Acquire),
            completed: self.completed.load(Ordering::Acquire),
            cancelled: self.cancelled.load(Ordering::Acquire),
            ..HeavyReviewStats::default()
        }
    }
}

impl ReviewPool for InlineReviewPool {
    fn run(&self, job: PolicyReviewJob) -> PolicyReviewFuture<'_> {
        Box::pin(async move {
            // Nothing can set the flag: the job runs to its end within this one poll.
            let budget = self.budget(Arc::new(AtomicBool::new(false)));
            self.run_within(&budget, job)
        })
    }

    fn stats(&self) -> Option<HeavyReviewStats> {
        Some(self.counters())
    }
}

/// Counts one review in `counter` while it lives (a panicking job included): the running
/// and waiting gauges of every pool.
pub struct Gauge<'a>(&'a AtomicUsize);

impl<'a> Gauge<'a> {
    pub fn new(counter: &'a AtomicUsize) -> Self {
        counter.fetch_add(1, Ordering::AcqRel);
        Gauge(counter)
    }
}

impl Drop for Gauge<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}
