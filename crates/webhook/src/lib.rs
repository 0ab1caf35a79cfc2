//! certgate's admission webhook server.
//!
//! [`router`] maps `POST /mutate` and `POST /validate` (and OCM governance-policy-propagator's
//! two validating paths, as aliases of `/validate`) to an [`AdmissionHandler`] (in
//! production `certgate_admission::review::Admission`), and serves `/healthz`, `/readyz`
//! and `/metrics`. [`start`] runs it over HTTPS (rustls with ring, TLS 1.2 and 1.3) and
//! reloads the serving certificate when its files change, or serves the certificates a
//! [`dynamic_serving`] provider publishes. [`DevCertificates`] makes a throw-away CA and
//! serving certificate for local use; it and [`server_config`] live in `certgate-serving`
//! (shared with the sandbox) and are re-exported here.
//!
//! The Kubernetes side: [`cluster_admission`] wires the admission core to an API server
//! (SubjectAccessReviews, discovery), and [`cluster_serving`] keeps the dynamic serving CA
//! Secret and the webhook configurations' `caBundle` (the decisions stay in
//! [`dynamic_serving`]).
//!
//! [`BoundedReviewPool`] is the one tokio pool CPU-heavy policy reviews run on (blocking
//! threads, bounded queue, cancelled with their client); `certgate_admission` only names
//! the seam and runs reviews inline by default.
#![forbid(unsafe_code)]

pub mod cluster_admission;
pub mod cluster_serving;
pub mod dynamic_serving;
mod error;
mod handler;
pub mod logging;
mod metrics;
pub mod registration;
mod reload;
mod review_pool;
mod router;
mod server;

pub use certgate_serving::DevCertificates;
pub use certgate_serving::{PemPair, server_config};
pub use error::{DevCertError, ServeError, TlsError};
pub use handler::AdmissionHandler;
pub use metrics::{Metrics, Outcome};
pub use review_pool::BoundedReviewPool;
pub use router::{Readiness, router};
pub use server::{RunningServer, ServerOptions, TlsSource, start};
