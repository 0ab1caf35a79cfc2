//! What cert-manager's webhook decides about CertificateRequests, as pure functions over
//! the objects and the requester. The webhook server (later) and `certgate check` share it.
//!
//! - [`certificate_request`]: CREATE validation of a CertificateRequest.
//! - [`conditions`]: the `Approved` / `Denied` condition rules, shared with UPDATE.
#![forbid(unsafe_code)]

pub mod certificate_request;
pub mod conditions;
pub mod review;

mod csr_match;
mod error;
mod issuer_ref;
mod request;
mod usages;
