//! What every certgate controller runs on, whatever system it belongs to:
//!
//! - [`registry`]: the controllers a build knows ([`ControllerSpec`]), cert-manager's
//!   `--controllers` selection over them, their `--help` lines, and running the selected
//!   ones with one [`Launch`] (client, [`Settings`], metrics, shutdown);
//! - [`manager`]: the life of a controller process: endpoint, election, controllers,
//!   clean stop on a signal or a lost lease;
//! - [`leader`]: leader election with a `coordination.k8s.io/v1` Lease;
//! - [`metrics`]: the controllers' Prometheus registry (decisions, latency, errors, queue
//!   depth, leadership) and the queue tracker;
//! - [`endpoint`]: the plain-HTTP `/metrics`, `/healthz`, `/readyz` endpoint, built on the
//!   routes every certgate server shares (`certgate_serving::health`);
//! - [`now_rfc3339`]: condition and event times as Kubernetes writes them.
//!
//! The systems (`certgate-approver` today) hold their reconcilers and indexes; the binary
//! lists their specs in one registry and wires arguments to [`Settings`].
#![forbid(unsafe_code)]

pub mod endpoint;
pub mod leader;
pub mod manager;
pub mod metrics;
pub mod registry;
mod time;

pub use leader::LeaseSettings;
pub use manager::{
    ManagerError, ManagerOptions, replica_identity, run_controllers, termination_signal,
};
pub use metrics::{ControllerMetrics, QueueTracker};
pub use registry::{
    AccessMode, ControllerSpec, Launch, Registry, Settings, Shutdown, UnknownController,
    shutdown_on,
};
pub use time::now_rfc3339;
