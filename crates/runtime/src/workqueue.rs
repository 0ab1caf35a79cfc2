//! A keyed work queue with client-go's guarantees, for controllers whose keys need not be
//! objects in a cache (a replica to create does not exist yet, so kube's `Controller`, which
//! reconciles only cached objects, cannot drive it):
//!
//! - a key waits in the queue at most once, however often it is added;
//! - a key is never processed by two workers at once; added while processed, it runs again
//!   once the running pass is done;
//! - a failed key is retried after a per-key exponential back-off, reset by a success.

use std::collections::{HashMap, HashSet, VecDeque};
use std::hash::Hash;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::sync::Notify;

use crate::registry::Shutdown;

/// Retry delays of failed keys: `base` doubling up to `max`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Backoff {
    pub base: Duration,
    pub max: Duration,
}

impl Default for Backoff {
    /// controller-runtime's per-item limiter: 5 ms doubling to 1,000 s.
    fn default() -> Self {
        Backoff { base: Duration::from_millis(5), max: Duration::from_secs(1000) }
    }
}

impl Backoff {
    /// The delay before retry number `failures` (1 for the first).
    pub fn delay(&self, failures: u32) -> Duration {
        let factor = 2u32.saturating_pow(failures.saturating_sub(1).min(31));
        self.base.saturating_mul(factor).min(self.max)
    }
}

struct State<K> {
    queue: VecDeque<K>,
    queued: HashSet<K>,
    running: HashSet<K>,
    /// Added while running: queued again when the running pass ends.
    again: HashSet<K>,
    failures: HashMap<K, u32>,
    closed: bool,
}

struct Inner<K> {
    state: Mutex<State<K>>,
    ready: Notify,
    backoff: Backoff,
}

/// The queue; clones share it.
pub struct WorkQueue<K> {
    inner: Arc<Inner<K>>,
}

impl<K> Clone for WorkQueue<K> {
    fn clone(&self) -> Self {
        WorkQueue { inner: self.inner.clone() }
    }
}

impl<K: Clone + Eq + Hash + Send + Sync + 'static> WorkQueue<K> {
    pub fn new(backoff: Backoff) -> Self {
        WorkQueue {
            inner: Arc::new(Inner {
                state: Mutex::new(State {
                    queue: VecDeque::new(),
                    queued: HashSet::new(),
                    running: HashSet::new(),
                    again: HashSet::new(),
                    failures: HashMap::new(),
                    closed: false,
                }),
                ready: Notify::new(),
                backoff,
            }),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State<K>> {
        self.inner.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Queues `key` unless it is already waiting.
    pub fn add(&self, key: K) {
        let mut state = self.state();
        if state.closed || state.queued.contains(&key) {
            return;
        }
        if state.running.contains(&key) {
            state.again.insert(key);
            return;
        }
        state.queued.insert(key.clone());
        state.queue.push_back(key);
        drop(state);
        self.inner.ready.notify_one();
    }

    /// Queues `key` after `delay` (needs a Tokio runtime).
    pub fn add_after(&self, key: K, delay: Duration) {
        if delay.is_zero() {
            self.add(key);
            return;
        }
        let queue = self.clone();
        tokio::spawn(async move {
            tokio::time::sleep(delay).await;
            queue.add(key);
        });
    }

    /// Keys waiting (not those running).
    pub fn len(&self) -> usize {
        self.state().queue.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The next key to process, marked running; `None` once the queue is closed.
    pub async fn next(&self) -> Option<K> {
        loop {
            let notified = self.inner.ready.notified();
            {
                let mut state = self.state();
                if state.closed {
                    return None;
                }
                if let Some(key) = state.queue.pop_front() {
                    state.queued.remove(&key);
                    state.running.insert(key.clone());
                    if !state.queue.is_empty() {
                        self.inner.ready.notify_one();
                    }
                    return Some(key);
                }
            }
            notified.await;
        }
    }

    /// Ends the running pass of `key`: a success forgets its failures, a failure schedules a
    /// retry after its back-off. A key added meanwhile is queued again.
    pub fn done(&self, key: &K, succeeded: bool) {
        let mut state = self.state();
        state.running.remove(key);
        let retry = if succeeded {
            state.failures.remove(key);
            None
        } else {
            let failures = state.failures.entry(key.clone()).or_insert(0);
            *failures = failures.saturating_add(1);
            Some(self.inner.backoff.delay(*failures))
        };
        let again = state.again.remove(key);
        drop(state);
        if again {
            self.add(key.clone());
        } else if let Some(delay) = retry {
            self.add_after(key.clone(), delay);
        }
    }

    /// Stops handing out keys; workers waiting in [`WorkQueue::next`] return `None`.
    pub fn close(&self) {
        self.state().closed = true;
        self.inner.ready.notify_waiters();
    }
}

/// Runs `workers` workers over `queue` until `shutdown` completes; each key is handled by
/// `handle`, whose `Ok(Some(delay))` asks to look at the key again after `delay`. Running
/// passes finish before this returns.
pub async fn run_workers<K, F, Fut>(
    queue: WorkQueue<K>,
    workers: usize,
    handle: F,
    shutdown: Shutdown,
) where
    K: Clone + Eq + Hash + Send + Sync + 'static,
    F: Fn(K) -> Fut + Clone + Send + Sync + 'static,
    Fut: Future<Output = Result<Option<Duration>, ()>> + Send + 'static,
{
    let mut tasks = Vec::new();
    for _ in 0..workers.max(1) {
        let (queue, handle) = (queue.clone(), handle.clone());
        tasks.push(tokio::spawn(async move {
            while let Some(key) = queue.next().await {
                let result = handle(key.clone()).await;
                queue.done(&key, result.is_ok());
                if let Ok(Some(delay)) = result {
                    queue.add_after(key, delay);
                }
            }
        }));
    }
    shutdown.await;
    queue.close();
    for task in tasks {
        let _ = task.await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_the_maximum() {
        let backoff = Backoff { base: Duration::from_secs(1), max: Duration::from_secs(10) };
        let delays: Vec<u64> = (1..=6).map(|n| backoff.delay(n).as_secs()).collect();
        assert_eq!(delays, [1, 2, 4, 8, 10, 10]);
        assert_eq!(backoff.delay(u32::MAX), Duration::from_secs(10));
    }

    #[tokio::test]
    async fn a_key_waits_once_and_runs_again_when_added_while_running() {
        let queue = WorkQueue::new(Backoff::default());
        queue.add("a");
        queue.add("a");
        queue.add("b");
        assert_eq!(queue.len(), 2);
        assert_eq!(queue.next().await, Some("a"));
        // Added while running: not handed to a second worker now...
        queue.add("a");
        assert_eq!(queue.next().await, Some("b"));
        assert!(queue.is_empty());
        // ...but queued again when the running pass ends.
        queue.done(&"a", true);
        assert_eq!(queue.next().await, Some("a"));
        queue.done(&"a", true);
        queue.done(&"b", true);
        assert!(queue.is_empty());
    }

    #[tokio::test(start_paused = true)]
    async fn failures_are_retried_after_their_backoff() {
        let backoff = Backoff { base: Duration::from_secs(1), max: Duration::from_secs(60) };
        let queue = WorkQueue::new(backoff);
        queue.add("a");
        assert_eq!(queue.next().await, Some("a"));
        queue.done(&"a", false);
        assert!(queue.is_empty());
        // The retry arrives once the paused clock passes the back-off.
        assert_eq!(queue.next().await, Some("a"));
        queue.done(&"a", false);
        assert_eq!(queue.next().await, Some("a"));
        assert_eq!(queue.state().failures.get("a"), Some(&2));
        queue.done(&"a", true);
        assert!(queue.state().failures.is_empty());
    }

    #[tokio::test]
    async fn closing_releases_waiting_workers() {
        let queue: WorkQueue<&str> = WorkQueue::new(Backoff::default());
        let waiting = {
            let queue = queue.clone();
            tokio::spawn(async move { queue.next().await })
        };
        tokio::task::yield_now().await;
        queue.close();
        assert_eq!(waiting.await.ok(), Some(None));
        queue.add("late");
        assert!(queue.is_empty());
    }
}
