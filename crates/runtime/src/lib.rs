//! What every certgate controller runs on, whatever system it belongs to:
//!
//! - [`registry`]: the controllers a build knows ([`ControllerSpec`]), cert-manager's
//!   `--controllers` selection over them, their `--help` lines, and running the selected
//!   ones with one [`Launch`] (client, [`Settings`], metrics, the `certgate_clock::Clock`, shutdown);
//! - [`manager`]: the life of a controller process: endpoint, election, controllers,
//!   clean stop on a signal or a lost lease;
//! - [`leader`]: leader election with a `coordination.k8s.io/v1` Lease;
//! - [`metrics`]: the controllers' Prometheus registry (decisions, latency, errors, queue
//!   depth, leadership) and the queue tracker;
//! - [`events`]: [`EventSink`], how every controller's effects publish events;
//! - [`workqueue`]: a keyed queue with client-go's guarantees (one pass per key at a time,
//!   deduplicated, per-key back-off) for controllers whose keys are not cached objects;
//! - [`endpoint`]: the plain-HTTP `/metrics`, `/healthz`, `/readyz` endpoint, built on the
//!   routes every certgate server shares (`certgate_serving::health`);
//!
//! The systems (`certgate-approver` today) hold their reconcilers and indexes; the binary
//! lists their specs in one registry and wires arguments to [`Settings`].
#![forbid(unsafe_code)]

pub mod endpoint;
pub mod events;
pub mod leader;
pub mod manager;
pub mod metrics;
pub mod registry;
pub mod workqueue;

pub use events::EventSink;
pub use leader::LeaseSettings;
pub use manager::{
    ManagerError, ManagerOptions, replica_identity, run_controllers, termination_signal,
};
pub use metrics::{ControllerMetrics, CrlSeries, QueueTracker};
pub use registry::{
    AccessMode, ControllerSpec, Launch, Registry, Settings, Shutdown, UnknownController,
    shutdown_on,
};
