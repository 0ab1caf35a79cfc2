//! Object storage for the sandbox API server (development and tests only, not production):
//! what etcd is to a Kubernetes API server. A key-value store of JSON objects where every
//! write gets the next value of one global, monotonically increasing revision (the objects'
//! `resourceVersion`), with compare-and-swap on that revision, listing by prefix, and a
//! watch that replays the changes after a revision and then follows new ones.
//!
//! The store knows nothing of Kubernetes semantics (uids, generation, finalizers,
//! selectors): the API layer above it applies those and stores the result.

mod api;
mod checksum;
mod disk;
pub mod files;
mod history;
mod object;
mod prefix;
mod state;
mod store;
mod watch;

pub use api::*;
pub use store::Store;
pub use watch::Watch;
