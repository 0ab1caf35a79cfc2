//! What cert-manager's webhook decides about CertificateRequests, as pure functions over
//! the objects and the requester. The webhook server and `certgate check` share it.
//!
//! - [`certificate_request`]: CREATE validation of a CertificateRequest.
//! - [`conditions`]: the `Approved` / `Denied` condition rules, shared with UPDATE.
//! - [`certificate`], [`issuer`]: what cert-manager's webhook checks of Certificates,
//!   Issuers and ClusterIssuers (routed by `resource_review`).
//! - [`ocm_policy`]: what OCM governance-policy-propagator's webhooks check of Policies and
//!   PolicySets.
//! - [`review`]: the webhook entry point, [`review::Admission`], from AdmissionReview bytes
//!   to AdmissionReview bytes; its modules: `wire` (the JSON shapes), `route` (dispatch),
//!   `objects` (decoding), `identity`, `signer`, `update`, `cr_review`, `policy_review`
//!   (the rules) and `verdict` (the answer).
//! - Policy reviews (which compile CEL) run through the [`review::ReviewPool`] seam;
//!   this crate holds the inline pool, [`review::InlineReviewPool`], the default.
//!
//! A pure domain crate: no tokio, no network. The bounded pool that keeps policy reviews
//! off the async workers (tokio's blocking pool, 429 when too many wait, cancelled when
//! the client goes away) is the webhook server's: `certgate_webhook::BoundedReviewPool`.
#![forbid(unsafe_code)]

pub mod certificate;
pub mod certificate_request;
pub mod conditions;
pub mod issuer;
pub mod ocm_policy;
pub mod review;

mod cr_review;
mod cron;
mod csr_match;
mod email;
mod error;
mod handler;
mod identity;
mod inline_pool;
mod issuer_ref;
mod lenient;
mod meta;
mod objects;
mod patch;
mod policy_review;
mod request;
mod resource_review;
mod review_pool;
mod route;
mod signer;
mod stamp;
mod update;
mod usages;
mod verdict;
mod wire;
