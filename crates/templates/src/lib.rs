//! OCM hub templates (`{{hub … hub}}`), as the governance-policy-propagator resolves them on
//! the hub for each managed cluster (behaviour: `../shared/spec/ocm-hub-templates.md`).
//!
//! - [`pipeline`]: one policy template's raw JSON → resolved JSON (JSON → YAML, typed-value
//!   and autoindent rewrites, Go template execution with the hub context, YAML → JSON), with
//!   upstream's error texts; parsed templates are cached and executed per cluster.
//! - [`functions`]: the hub function library (lookups, conversions, encoding, `protect`,
//!   sprig, the denylist); [`session`] gives them the current reader and access mode.
//! - [`access`]: every read goes through an [`access::ObjectReader`] with upstream's checks
//!   in upstream's order, in default mode (the policy's namespace and its own ManagedCluster)
//!   or as the policy's ServiceAccount (authorized by an `Authorizer`); each resolution
//!   reports the exact set of objects it read.
//! - [`encryption`]: OCM's AES-256-CBC `$ocm_encrypted:` values; [`key_rotation`]: when a
//!   cluster's key Secret is rotated.
//! - [`replica`]: the replicated policy for one cluster (names, labels, annotations,
//!   dependencies) and the processing of its templates (error annotations, events, retries).
//! - [`propagation`]: which clusters get a replica (placement bindings, PolicySets,
//!   decisions, overrides), the root's status, and what the replicated-policy reconcile
//!   writes;
//! - [`offline`]: all of it over objects held in memory (`certgate template resolve`).
//!
//! Pure: no I/O, no clock, no randomness (keys and IVs come in through traits).

#![forbid(unsafe_code)]

pub mod access;
pub mod cluster_labels;
pub mod encryption;
pub mod functions;
pub mod key_rotation;
pub mod offline;
pub mod pipeline;
pub mod propagation;
pub mod replica;
pub mod session;
