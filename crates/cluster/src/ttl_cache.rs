//! A size-bounded cache whose entries expire after a per-entry time to live.

use std::hash::Hash;
use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use lru::LruCache;

use certgate_clock::Clock;

/// Least-recently-used eviction keeps memory bounded however many distinct keys callers
/// send; expiry is checked on read, so stale entries cost nothing until they are evicted.
///
/// [`TtlCache::clear`] empties the cache and starts a new generation: a value computed from
/// what was read before the clear is refused by [`TtlCache::insert_if_current`].
pub(crate) struct TtlCache<K: Hash + Eq, V: Clone> {
    entries: Mutex<LruCache<K, (V, Instant)>>,
    clock: Arc<dyn Clock>,
    generation: AtomicU64,
}

impl<K: Hash + Eq, V: Clone> TtlCache<K, V> {
    pub(crate) fn new(capacity: NonZeroUsize, clock: Arc<dyn Clock>) -> Self {
        TtlCache {
            entries: Mutex::new(LruCache::new(capacity)),
            clock,
            generation: AtomicU64::new(0),
        }
    }

    /// The current generation, to pass to [`TtlCache::insert_if_current`] later.
    pub(crate) fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// Drops every entry and starts a new generation.
    pub(crate) fn clear(&self) {
        let mut entries = self.lock();
        self.generation.fetch_add(1, Ordering::AcqRel);
        entries.clear();
    }

    /// [`TtlCache::insert`], unless the cache was cleared since `generation` was read.
    pub(crate) fn insert_if_current(&self, generation: u64, key: K, value: V, ttl: Duration) {
        if ttl.is_zero() {
            return;
        }
        // An expiry the clock cannot represent comes only from an absurd TTL: not caching
        // is the safe reading of it.
        let Some(expires) = self.clock.monotonic().checked_add(ttl) else { return };
        let mut entries = self.lock();
        if self.generation.load(Ordering::Acquire) == generation {
            entries.put(key, (value, expires));
        }
    }

    /// The cached value, unless it has expired (an expired entry is dropped).
    pub(crate) fn get(&self, key: &K) -> Option<V> {
        let now = self.clock.monotonic();
        let mut entries = self.lock();
        match entries.get(key) {
            Some((value, expires)) if now < *expires => Some(value.clone()),
            Some(_) => {
                entries.pop(key);
                None
            }
            None => None,
        }
    }

    /// Stores `value` for `ttl`; a zero TTL stores nothing, which disables caching.
    pub(crate) fn insert(&self, key: K, value: V, ttl: Duration) {
        self.insert_if_current(self.generation(), key, value, ttl);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, LruCache<K, (V, Instant)>> {
        // Every critical section leaves the map consistent, so a panic elsewhere while
        // holding the lock cannot corrupt it: keep using the data.
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use certgate_clock::ManualClock;

    fn cache(capacity: usize) -> (TtlCache<&'static str, u32>, Arc<ManualClock>) {
        let clock = Arc::new(ManualClock::default());
        let capacity = NonZeroUsize::new(capacity).unwrap_or(NonZeroUsize::MIN);
        (TtlCache::new(capacity, clock.clone()), clock)
    }

    #[test]
    fn entry_is_served_until_its_ttl_elapses() {
        let (cache, clock) = cache(4);
        cache.insert("a", 1, Duration::from_secs(2));
        clock.advance(Duration::from_millis(1999));
        assert_eq!(cache.get(&"a"), Some(1));
        clock.advance(Duration::from_millis(1));
        assert_eq!(cache.get(&"a"), None);
    }

    #[test]
    fn clearing_drops_entries_and_refuses_values_read_before_it() {
        let (cache, _clock) = cache(4);
        cache.insert("a", 1, Duration::from_secs(10));
        let before = cache.generation();
        cache.clear();
        assert_eq!(cache.get(&"a"), None);
        cache.insert_if_current(before, "b", 2, Duration::from_secs(10));
        assert_eq!(cache.get(&"b"), None);
        cache.insert_if_current(cache.generation(), "b", 3, Duration::from_secs(10));
        assert_eq!(cache.get(&"b"), Some(3));
    }

    #[test]
    fn zero_ttl_stores_nothing() {
        let (cache, _clock) = cache(4);
        cache.insert("a", 1, Duration::ZERO);
        assert_eq!(cache.get(&"a"), None);
    }

    #[test]
    fn unrepresentable_ttl_stores_nothing() {
        let (cache, _clock) = cache(4);
        cache.insert("a", 1, Duration::MAX);
        assert_eq!(cache.get(&"a"), None);
    }

    #[test]
    fn least_recently_used_entry_is_evicted_at_capacity() {
        let (cache, _clock) = cache(2);
        let ttl = Duration::from_secs(60);
        cache.insert("a", 1, ttl);
        cache.insert("b", 2, ttl);
        // Reading "a" makes "b" the least recently used.
        assert_eq!(cache.get(&"a"), Some(1));
        cache.insert("c", 3, ttl);
        assert_eq!(cache.get(&"b"), None);
        assert_eq!(cache.get(&"a"), Some(1));
        assert_eq!(cache.get(&"c"), Some(3));
    }
}
