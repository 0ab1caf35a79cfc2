//! Dynamic serving certificates, as cert-manager's webhook provisions its own: a CA kept in a
//! Secret, and a short-lived serving (leaf) certificate each replica signs with it in memory.
//!
//! This module holds the pure parts; the Kubernetes calls and the loop live in
//! [`crate::cluster_serving`]. Every decision takes the current time as an argument (or
//! through `certgate_clock::Clock`), so the tests need no sleeps.
//!
//! - [`names`]: the serving certificate's names (`--dynamic-serving-dns-names`).
//! - [`validity`]: validity windows and the 2/3 renewal point.
//! - [`certs`]: defensive PEM and X.509 parsing of what a Secret holds.
//! - [`secret`]: the CA Secret's contents, read ([`CaSecretData`]) and written
//!   ([`CaSecretContents`]), and the [`Authority`] they describe.
//! - [`bundle`]: the CA bundle (`ca.crt`): the current CA and the previous ones until they expire.
//! - [`generate`]: new CAs and leaves (ECDSA P-256).
//! - [`plan`]: what to do with the Secret as found: use it, create it, replace it, tidy it.
//! - [`leaf`]: when a replica signs a new leaf.
//! - [`inject`]: writing the bundle into webhook configurations' `clientConfig.caBundle`.
//! - [`schedule`]: when the loop runs next (resync, due times, backoff).
//! - [`feed`]: handing new serving certificates to the running server.

pub mod bundle;
pub mod certs;
pub mod error;
pub mod feed;
pub mod generate;
pub mod inject;
pub mod leaf;
pub mod names;
pub mod plan;
pub mod schedule;
pub mod secret;
pub mod validity;

pub use error::{GenerateError, InjectError, InvalidCa, NamesError};
pub use feed::{CertificateFeed, CertificatePublisher, certificate_feed};
pub use leaf::{Leaf, LeafReason, leaf_due, sign_leaf};
pub use names::ServingNames;
pub use plan::{CaPlan, WriteReason, plan_ca};
pub use schedule::next_pass;
pub use secret::{Authority, CaSecretContents, CaSecretData};
pub use validity::Validity;

/// The Secret key holding the current CA certificate (PEM).
pub const TLS_CRT: &str = "tls.crt";
/// The Secret key holding the current CA's private key (PKCS#8 PEM).
pub const TLS_KEY: &str = "tls.key";
/// The Secret key holding the CA bundle clients trust (PEM, current CA first).
pub const CA_CRT: &str = "ca.crt";
/// The Secret type certgate gives a CA Secret it creates.
pub const SECRET_TYPE: &str = "kubernetes.io/tls";
