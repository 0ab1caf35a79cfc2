//! certgate's xDS server for the Contour edge (issue #21): what the edge controller publishes
//! and how Envoy is served it.
//!
//! - [`snapshot`]: an immutable set of Envoy resources per type URL (listeners, route
//!   configurations, clusters, cluster load assignments, secrets), each type versioned by a
//!   hash of its content;
//! - [`cache`]: the current snapshot, replaced atomically by the controller, watched by streams;
//! - [`state`]: the state-of-the-world protocol of one ADS stream as a pure state machine
//!   (subscriptions, versions, nonces, ACK/NACK, stale requests, resume, bounds);
//! - [`delta`]: the incremental (delta) protocol of one ADS stream, the same way;
//! - [`ads`]: envoy-types' generated `AggregatedDiscoveryService`, driving those state machines;
//! - [`singleton`]: the per-type services (`StreamListeners`, `StreamClusters`, …) Contour's
//!   bootstrap points Envoy at, the same state machine restricted to one type per stream;
//! - [`bootstrap`]: the Envoy bootstrap `certgate edge bootstrap` writes (Contour's shape);
//! - [`tls`]: mutual TLS with Envoy, its files reloaded when they change;
//! - [`server`]: the gRPC server on a given listener, with graceful shutdown;
//! - [`metrics`]: open streams, responses, ACKs and NACKs per type.
//!
//! The protocol decisions are in this crate's `README.md` and in
//! `docs/decisions/0012-xds-server.md`.
#![forbid(unsafe_code)]

pub mod ads;
pub mod bootstrap;
pub mod cache;
pub mod controller;
pub mod delta;
pub mod metrics;
pub mod server;
pub mod singleton;
pub mod snapshot;
pub mod state;
pub mod tls;

pub use ads::AdsService;
pub use cache::SnapshotCache;
pub use metrics::EdgeMetrics;
pub use server::{ServeError, serve, serve_tls, serve_with_limits};
pub use snapshot::{Snapshot, SnapshotBuilder, SnapshotError, TypeUrl};
pub use state::{Limits, RequestError};
