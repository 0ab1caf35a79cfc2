//! The seam CPU-heavy review work runs through (issue #16, layered in issue #17).
//!
//! Reviewing a CertificateRequestPolicy compiles its CEL rules: milliseconds for real
//! policies, up to a few hundred for one at the limits. Where that work runs is a runtime
//! question, so this domain crate only names it: [`Admission`](crate::review::Admission)
//! hands each review to a [`ReviewPool`] as one job. This crate holds the inline pool
//! ([`InlineReviewPool`](crate::review::InlineReviewPool), no async runtime needed); the
//! webhook server installs the bounded tokio pool of `certgate-webhook`
//! (`certgate_webhook::BoundedReviewPool`), which keeps the reviews off the async workers.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use certgate_approval::{Cancelled, CompileBudget, DEFAULT_COMPILE_TIME};

use crate::review::Rejection;
use crate::verdict::Verdict;

/// The answer of one policy review. Opaque: a pool only carries it back to
/// [`Admission`](crate::review::Admission).
#[derive(Debug)]
pub struct PolicyVerdict(pub(crate) Verdict);

/// One policy review: decodes and checks the policy, compiling its rules within the budget
/// the pool gives it; [`Cancelled`] when the budget's flag was set before the end.
pub type PolicyReviewJob =
    Box<dyn FnOnce(&CompileBudget) -> Result<PolicyVerdict, Cancelled> + Send>;

/// The pool's answer to one job: the verdict, or why the review could not run or finish.
pub type PolicyReviewFuture<'a> =
    Pin<Box<dyn Future<Output = Result<PolicyVerdict, Rejection>> + Send + 'a>>;

/// Where policy reviews run. Dyn-compatible, so that a server picks its pool at start
/// without changing the type of [`Admission`](crate::review::Admission).
pub trait ReviewPool: Send + Sync {
    /// Runs `job` within a compile budget of the pool's choosing. A cancelled job is
    /// answered with 503 (nobody reads that answer); a pool may refuse to run a job at
    /// all (e.g. 429 when too many wait).
    fn run(&self, job: PolicyReviewJob) -> PolicyReviewFuture<'_>;

    /// Counters of the reviews run so far; `None` for a pool that keeps none.
    fn stats(&self) -> Option<HeavyReviewStats>;
}

/// How much heavy review work may run and wait at once, and for how long each may
/// compile. Plain data: the bounded pool of `certgate-webhook` enforces `running` and
/// `waiting`; every pool honours `compile_time`.
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
    /// Waiting for a turn now (always 0 for a pool without a queue).
    pub waiting: usize,
    /// Finished with an answer.
    pub completed: u64,
    /// Stopped early because nobody waited for the answer any more.
    pub cancelled: u64,
    /// Refused with 429 because too many were waiting (always 0 for a pool without a
    /// queue).
    pub refused: u64,
}
