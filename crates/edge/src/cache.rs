//! The snapshot cache: the one place the controller publishes into and every ADS stream reads
//! from.
//!
//! It holds the current [`Snapshot`] behind a `tokio::sync::watch` channel: [`SnapshotCache::set`]
//! swaps in the new `Arc<Snapshot>` in one step (a stream sees the old snapshot or the new one,
//! never a mix of types from both) and wakes every stream; a stream that was busy sees only the
//! latest snapshot when it looks, which is all state-of-the-world xDS needs (intermediate
//! snapshots are superseded, not queued).
//!
//! **Nothing is served before the first `set`.** Streams that connect earlier keep their
//! subscriptions and wait: an Envoy reconnecting to a freshly started certgate must not be sent
//! empty listeners and clusters (it would drop its whole configuration) before the controller
//! has built the real ones, as Contour waits for its first DAG build.
//!
//! **Per-node state is not needed here**: like Contour, certgate serves every Envoy node the same
//! resources, so there is one snapshot. The seam for per-node content is
//! [`SnapshotCache::subscribe`]: a per-node cache would take the stream's `Node` there and hand
//! back that node's channel; the streams ([`crate::ads`]) already track everything per stream.

use std::sync::Arc;

use tokio::sync::watch;

use crate::snapshot::{Snapshot, TypeUrl};

/// A cloneable handle to the current snapshot; clones share it.
#[derive(Clone, Debug)]
pub struct SnapshotCache {
    current: Arc<watch::Sender<Option<Arc<Snapshot>>>>,
}

impl Default for SnapshotCache {
    fn default() -> Self {
        SnapshotCache::new()
    }
}

impl SnapshotCache {
    /// A cache with nothing published yet.
    pub fn new() -> SnapshotCache {
        SnapshotCache { current: Arc::new(watch::Sender::new(None)) }
    }

    /// Publishes `snapshot` as the current one and wakes the streams, unless every type's
    /// version equals the current one's: versions are content hashes, so the content is then
    /// the same and waking thousands of streams to find nothing to send is skipped. Returns
    /// whether the snapshot was replaced.
    pub fn set(&self, snapshot: Snapshot) -> bool {
        self.current.send_if_modified(|current| {
            let unchanged = current.as_ref().is_some_and(|current| {
                TypeUrl::ALL.iter().all(|&t| current.version(t) == snapshot.version(t))
            });
            if unchanged {
                return false;
            }
            *current = Some(Arc::new(snapshot));
            true
        })
    }

    /// The current snapshot; `None` until the first [`SnapshotCache::set`].
    pub fn current(&self) -> Option<Arc<Snapshot>> {
        self.current.borrow().clone()
    }

    /// A receiver that sees every later [`SnapshotCache::set`] (the current value counts as
    /// seen). One per stream.
    pub fn subscribe(&self) -> watch::Receiver<Option<Arc<Snapshot>>> {
        self.current.subscribe()
    }
}

#[cfg(test)]
mod tests {
    use envoy_types::pb::envoy::config::cluster::v3::Cluster;

    use super::*;

    fn with_cluster(name: &str) -> Snapshot {
        let mut builder = Snapshot::builder();
        builder.add_message(name, &Cluster { name: name.into(), ..Cluster::default() }).unwrap();
        builder.build()
    }

    #[tokio::test]
    async fn set_replaces_and_wakes_only_on_a_change() {
        let cache = SnapshotCache::new();
        assert!(cache.current().is_none());
        let mut rx = cache.subscribe();
        assert!(!rx.has_changed().unwrap());

        assert!(cache.set(with_cluster("a")));
        assert!(rx.has_changed().unwrap());
        rx.borrow_and_update();
        assert_eq!(cache.current().unwrap().resources(TypeUrl::Cluster).len(), 1);

        assert!(!cache.set(with_cluster("a")), "same content, no wake-up");
        assert!(!rx.has_changed().unwrap());

        assert!(cache.set(with_cluster("b")));
        assert!(rx.has_changed().unwrap());
        let current = rx.borrow_and_update().clone().unwrap();
        assert!(current.resources(TypeUrl::Cluster).contains_key("b"));
    }
}
