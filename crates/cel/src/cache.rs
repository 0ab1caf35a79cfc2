//! [`PolicyCel`]: compiled rules behind a bounded LRU cache keyed by rule text.

use crate::compile::compile;
use crate::limits::MAX_POLICY_RULE_CODE_POINTS;
use crate::{CompileError, Program};
use lru::LruCache;
use std::fmt;
use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// Default number of cached rules, as upstream.
pub const DEFAULT_CACHE_SIZE: usize = 1024;

type Compiled = Result<Arc<Program>, CompileError>;

/// The approver-policy CEL environment with a shared, bounded LRU cache of compiled rules
/// (compile errors cached too), keyed by rule text. Shared by admission and evaluation.
pub struct PolicyCel {
    cache: Mutex<LruCache<String, Compiled>>,
}

impl PolicyCel {
    /// A cache of `cache_size` rules (at least one).
    pub fn new(cache_size: usize) -> Self {
        let capacity = NonZeroUsize::new(cache_size).unwrap_or(NonZeroUsize::MIN);
        Self { cache: Mutex::new(LruCache::new(capacity)) }
    }

    /// Compiles (or fetches from cache) a rule.
    ///
    /// The same text always yields the same result, and while it stays cached the
    /// same [`Arc`]. The cache lock is not held while compiling.
    pub fn compile(&self, rule: &str) -> Result<Arc<Program>, CompileError> {
        if rule.len() > MAX_POLICY_RULE_CODE_POINTS {
            // Possibly over the limit (cheap test on bytes first): not cached, so that a
            // refused oversized rule never becomes a large key.
            return compile(rule).map(Arc::new);
        }
        if let Some(cached) = self.lock().get(rule) {
            return cached.clone();
        }
        let compiled = compile(rule).map(Arc::new);
        // Another thread may have compiled the same rule meanwhile: keep the first
        // result so that every caller shares one program.
        self.lock().get_or_insert_ref(rule, || compiled).clone()
    }

    /// The number of rules cached.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether no rule is cached.
    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    fn lock(&self) -> MutexGuard<'_, LruCache<String, Compiled>> {
        // The cache is consistent after any panic (entries are inserted whole), so a
        // poisoned lock is still usable.
        self.cache.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Default for PolicyCel {
    fn default() -> Self {
        Self::new(DEFAULT_CACHE_SIZE)
    }
}

impl fmt::Debug for PolicyCel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let cache = self.lock();
        f.debug_struct("PolicyCel")
            .field("cached", &cache.len())
            .field("capacity", &cache.cap())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_compile_returns_the_cached_program() {
        let cel = PolicyCel::new(4);
        let first = cel.compile("self == 'a'").unwrap();
        let second = cel.compile("self == 'a'").unwrap();
        assert!(Arc::ptr_eq(&first, &second));
        assert_eq!(cel.len(), 1);
    }

    #[test]
    fn the_key_is_the_exact_text() {
        let cel = PolicyCel::new(4);
        let first = cel.compile("self == 'a'").unwrap();
        let spaced = cel.compile("self ==  'a'").unwrap();
        assert!(!Arc::ptr_eq(&first, &spaced));
        assert_eq!(cel.len(), 2);
    }

    #[test]
    fn compile_errors_are_cached() {
        let cel = PolicyCel::new(4);
        let first = cel.compile("self ==").unwrap_err();
        assert_eq!(cel.len(), 1);
        assert_eq!(cel.compile("self ==").unwrap_err(), first);
        assert_eq!(cel.len(), 1);
    }

    #[test]
    fn the_least_recently_used_rule_is_evicted_at_capacity() {
        let cel = PolicyCel::new(2);
        let a = cel.compile("self == 'a'").unwrap();
        let b = cel.compile("self == 'b'").unwrap();
        // Touch `a`, so that `b` is the least recently used.
        assert!(Arc::ptr_eq(&a, &cel.compile("self == 'a'").unwrap()));
        cel.compile("self == 'c'").unwrap();
        assert_eq!(cel.len(), 2);
        assert!(Arc::ptr_eq(&a, &cel.compile("self == 'a'").unwrap()));
        assert!(!Arc::ptr_eq(&b, &cel.compile("self == 'b'").unwrap()));
    }

    #[test]
    fn concurrent_compiles_of_one_rule_share_one_program() {
        let cel = PolicyCel::new(4);
        let programs: Vec<Arc<Program>> = std::thread::scope(|scope| {
            let compiles: Vec<_> =
                (0..4).map(|_| scope.spawn(|| cel.compile("self == 'a'"))).collect();
            compiles.into_iter().map(|compile| compile.join().unwrap().unwrap()).collect()
        });
        assert!(programs.iter().all(|p| Arc::ptr_eq(p, &programs[0])));
        assert_eq!(cel.len(), 1);
    }

    #[test]
    fn a_zero_size_cache_still_holds_one_rule() {
        let cel = PolicyCel::new(0);
        let a = cel.compile("self == 'a'").unwrap();
        assert!(Arc::ptr_eq(&a, &cel.compile("self == 'a'").unwrap()));
        assert_eq!(cel.len(), 1);
    }

    #[test]
    fn over_long_rules_are_rejected_without_being_cached() {
        let cel = PolicyCel::new(4);
        let long = format!("self == '{}'", "a".repeat(MAX_POLICY_RULE_CODE_POINTS));
        assert!(cel.compile(&long).is_err());
        assert!(cel.is_empty());
    }

    #[test]
    fn policy_cel_and_programs_are_shareable_across_threads() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<PolicyCel>();
        assert_send_sync::<Program>();
    }
}
