//! Following the changes under a prefix.

use std::pin::pin;
use std::sync::Arc;

use crate::api::{Change, Event, Prefix, StoreError};
use crate::history::Next;
use crate::store::Shared;

/// A watch on one prefix. It reads the shared history at its own pace: writers never wait
/// for it, and if it falls further behind than the history keeps, it gets
/// [`StoreError::Expired`].
pub struct Watch {
    shared: Arc<Shared>,
    prefix: Prefix,
    /// Every matching change up to this revision has been delivered.
    cursor: u64,
}

impl Watch {
    pub(crate) fn new(shared: Arc<Shared>, prefix: Prefix, cursor: u64) -> Watch {
        Watch { shared, prefix, cursor }
    }

    /// The revision this watch has caught up to: every matching change up to it has been
    /// delivered (a bookmark's `resourceVersion`).
    pub fn revision(&self) -> u64 {
        self.cursor
    }

    /// The next matching change, waiting for one if needed. Cancel-safe: dropping the future
    /// loses nothing, the next call continues where this one would have.
    pub async fn next(&mut self) -> Result<Change, StoreError> {
        self.next_event().await.map(|event| event.change)
    }

    /// [`Watch::next`] with the object a modification replaced, for a watcher that filters
    /// objects and must see one leave or enter its selection. Cancel-safe as `next`.
    pub async fn next_event(&mut self) -> Result<Event, StoreError> {
        loop {
            // Registered before looking, so a change applied after the look still wakes us.
            let mut changed = pin!(self.shared.changed.notified());
            changed.as_mut().enable();
            let next = self.shared.read().history.next_after(self.cursor, &self.prefix);
            match next {
                Next::Found(event) => {
                    self.cursor = event.change.revision();
                    return Ok(event);
                }
                Next::Pending { seen } => self.cursor = seen,
                Next::Expired { oldest } => {
                    return Err(StoreError::Expired { requested: self.cursor, oldest });
                }
            }
            changed.await;
        }
    }
}
