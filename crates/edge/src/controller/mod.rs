//! The edge controller (issue #21): HTTPProxies, TLSCertificateDelegations, Secrets, Services
//! and EndpointSlices in, Contour's HTTPProxy status and an xDS snapshot out.
//!
//! - [`stores`]: one kube-rs watcher and reflector store per kind (every Secret, as Contour);
//! - [`objects`]: the watched objects as `certgate-ingress` types;
//! - [`decide`]: the decision, pure: stores' contents (the HTTPProxies of the configured
//!   ingress classes only) → statuses to write, snapshot to serve;
//! - [`status`]: write a status only when it differs (Contour's `isStatusEqual`), with the
//!   load balancer's address (the Envoy Service's or `--ingress-status-address`'s);
//! - [`crl_expiry`]: the earliest `nextUpdate` of each served CRL Secret, for a gauge;
//! - [`warnings`]: certgate-crl's deeper checks of the served CRLs, published as events;
//! - [`debounce`]: Contour's hold-off (100 ms after a change, at most 500 ms);
//! - [`run`]: the loop: wait for every store's first list, rebuild on each settled change,
//!   publish into the [`crate::SnapshotCache`], write statuses when leader;
//! - [`leader`]: leader election for status writes (every replica serves xDS);
//! - [`process`]: `certgate edge serve`: xDS server, controller, election and `/metrics`.
//!
//! docs/edge.md describes the command and its gaps.

pub mod crl_expiry;
pub mod debounce;
pub mod decide;
pub mod leader;
pub mod metrics;
pub mod objects;
pub mod process;
pub mod run;
pub mod status;
pub mod stores;
pub mod warnings;

pub use decide::{Decision, Inputs, ProxyCounts, Scope, decide, decide_in};
pub use metrics::ControllerMetrics;
pub use process::{ProcessError, ProcessOptions, run_process};
pub use run::{Controller, ControllerConfig, LoadBalancerSource};
pub use status::LoadBalancer;
