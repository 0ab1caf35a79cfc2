//! State derived from stored objects (the RBAC authorizer, the registered webhooks), built
//! on first use and rebuilt after a write to the objects it comes from.
//!
//! A reader takes the generation *before* reading the store, so a build that raced with a
//! write is cached under the old generation and rebuilt at the next use: it can be one
//! request late, never stale for longer.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

pub struct Derived<T> {
    generation: AtomicU64,
    cached: Mutex<Option<(u64, Arc<T>)>>,
}

impl<T> Default for Derived<T> {
    fn default() -> Self {
        Derived { generation: AtomicU64::new(0), cached: Mutex::new(None) }
    }
}

impl<T> Derived<T> {
    /// The current value, built with `build` when a source object changed since the last build.
    pub fn get(&self, build: impl FnOnce() -> T) -> Arc<T> {
        let generation = self.generation.load(Ordering::Acquire);
        if let Some((built, value)) = &*self.cached.lock().unwrap_or_else(PoisonError::into_inner)
            && *built == generation
        {
            return Arc::clone(value);
        }
        let value = Arc::new(build());
        *self.cached.lock().unwrap_or_else(PoisonError::into_inner) =
            Some((generation, Arc::clone(&value)));
        value
    }

    /// Called after a source object was written or deleted.
    pub fn invalidate(&self) {
        self.generation.fetch_add(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_once_until_invalidated() {
        let derived = Derived::default();
        let mut builds = 0;
        assert_eq!(
            *derived.get(|| {
                builds += 1;
                1
            }),
            1
        );
        assert_eq!(
            *derived.get(|| {
                builds += 1;
                2
            }),
            1
        );
        derived.invalidate();
        assert_eq!(
            *derived.get(|| {
                builds += 1;
                3
            }),
            3
        );
        assert_eq!(builds, 2);
    }
}
