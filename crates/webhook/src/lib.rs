//! certgate's admission webhook server.
//!
//! [`router`] maps `POST /mutate` and `POST /validate` to an [`AdmissionHandler`] (in
//! production `certgate_admission::review::Admission`), and serves `/healthz`, `/readyz`
//! and `/metrics`. [`start`] runs it over HTTPS (rustls with ring, TLS 1.2 and 1.3) and
//! reloads the serving certificate when its files change, or serves the certificates a
//! [`dynamic_serving`] provider publishes. [`DevCertificates`] makes a throw-away CA and
//! serving certificate for local use.
#![forbid(unsafe_code)]

mod dev_cert;
pub mod dynamic_serving;
mod error;
mod handler;
pub mod logging;
mod metrics;
pub mod registration;
mod reload;
mod router;
mod server;
mod tls;

pub use dev_cert::DevCertificates;
pub use error::{DevCertError, ServeError, TlsError};
pub use handler::AdmissionHandler;
pub use metrics::{Metrics, Outcome};
pub use router::{Readiness, router};
pub use server::{RunningServer, ServerOptions, TlsSource, start};
pub use tls::{PemPair, server_config};
