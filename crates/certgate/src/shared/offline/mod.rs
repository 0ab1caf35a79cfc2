//! The offline review: manifests read by [`crate::shared::manifests`] become typed inputs
//! ([`load`]), and every CertificateRequest is decided as the cluster would decide it
//! ([`evaluate`]: webhook admission, policy readiness, the approver-policy review), giving a
//! [`crate::shared::report::Report`]. `certgate check` runs it over files, `certgate dev
//! --demo` over the objects the sandbox stored.

pub mod classify;
pub mod evaluate;
pub mod inputs;
pub mod load;
pub mod namespaces;
pub mod readiness;

pub use evaluate::{EvaluateOptions, evaluate};
pub use load::{Loaded, load, load_text};
