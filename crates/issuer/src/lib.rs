//! cert-manager's CA and SelfSigned issuers, live: the controllers that keep issuers
//! `Ready` and sign approved CertificateRequests, named as cert-manager names them and off
//! by default (a cluster running cert-manager must not get two signers):
//!
//! - [`issuers`]: `issuers` and `clusterissuers`, the `Ready` condition of CA issuers (their
//!   Secret checked) and SelfSigned issuers;
//! - [`requests`]: `certificaterequests-issuer-ca` and `certificaterequests-issuer-selfsigned`,
//!   the signing controllers;
//! - [`certificates`]: `certificates`, cert-manager's Certificate controllers as one: the
//!   private key, the CertificateRequest, the Secret, renewal and the retry backoff;
//! - [`crl`]: `issuers-crl`, certgate's own (not upstream's): CRLs published for annotated
//!   CA issuers from the revocations `certgate revoke` records.
//!
//! The decisions are pure and tested without I/O: [`setup`] (an issuer's readiness from its
//! Secret) and [`sign`] (a request's pass: `certgate_issuance`'s gates, then
//! `certgate_pki::issue`'s signing); every text is upstream's. The controllers observe,
//! call them and write back through one `Effects` seam (Secret reads, status writes,
//! events), faked by a recording implementation in the tests. Serial numbers come from
//! `ring`'s system random source, at that edge.
#![forbid(unsafe_code)]

use std::sync::OnceLock;

pub mod certificates;
pub mod crl;
pub mod generic;
pub mod issuers;
pub mod requests;
pub mod setup;
pub mod sign;

mod effects;

#[cfg(test)]
mod fixtures;
#[cfg(test)]
mod recorded;

/// cert-manager's default `--cluster-resource-namespace`.
pub const DEFAULT_CLUSTER_RESOURCE_NAMESPACE: &str = "cert-manager";

static CLUSTER_RESOURCE_NAMESPACE: OnceLock<String> = OnceLock::new();

/// Sets the namespace ClusterIssuers' Secrets are read from (cert-manager's
/// `--cluster-resource-namespace`), once per process, before the controllers start; `false`
/// when it was already set. Unset, it is [`DEFAULT_CLUSTER_RESOURCE_NAMESPACE`].
///
/// A process-wide setting because the runtime's `Settings` are shared by every system and
/// this one is the issuers' own.
pub fn set_cluster_resource_namespace(namespace: String) -> bool {
    CLUSTER_RESOURCE_NAMESPACE.set(namespace).is_ok()
}

/// The namespace ClusterIssuers' Secrets are read from.
pub fn cluster_resource_namespace() -> &'static str {
    CLUSTER_RESOURCE_NAMESPACE.get().map_or(DEFAULT_CLUSTER_RESOURCE_NAMESPACE, String::as_str)
}

/// Every controller of this crate, in start order.
pub const SPECS: [certgate_runtime::ControllerSpec; 6] = [
    certificates::CERTIFICATES,
    issuers::ISSUERS,
    issuers::CLUSTER_ISSUERS,
    requests::CA,
    requests::SELF_SIGNED,
    crl::SPEC,
];
