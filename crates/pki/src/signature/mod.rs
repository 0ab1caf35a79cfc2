//! The workspace's one signature verification implementation: `ring` for RSA (PKCS#1 v1.5
//! and PSS), ECDSA on P-256 and P-384 and Ed25519, and the RustCrypto `p521` crate for ECDSA
//! on P-521, which cert-manager uses for `size: 521` keys and `ring` lacks.
//!
//! Callers differ in what they must accept, not in how a signature is checked, so the
//! difference is a [`Policy`]: CSR self-signatures follow Go's `crypto/x509` ([`Policy::Go`]:
//! RSA from 1024 bits, P-521), while CRL signatures and the webhook's own CA follow what the
//! rustls/webpki side of certgate verifies ([`Policy::Ring`]: ring's standard verifiers, RSA
//! from 2048 bits). Each caller keeps its own wording for the outcome ([`VerifyError`]).

mod certificate;
mod pss;
mod request;
mod scheme;
mod verify;

pub use crate::key::{Curve, PublicKey, parse_spki};
pub use certificate::{SignatureError, verify_certificate};
pub(crate) use request::verify_request;
pub(crate) use scheme::{Algorithm, algorithm_identifier};
pub use scheme::{Hash, Scheme};
pub use verify::{Policy, VerifyError, verify};
