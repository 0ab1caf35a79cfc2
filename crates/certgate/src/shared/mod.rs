//! The pieces several commands share, and the one place for them: a command module never
//! imports another command module, so whatever two commands both need lives here (manifest
//! loading, the offline review and its report, duration and log-format flags, connection and
//! cluster client flags, the unreachable-server message, the condition clock). Nothing here
//! refers to `crate::commands` or `crate::cli`; `tests/module_layering.rs` keeps it so.

pub mod cmctl;
pub mod connections;
pub mod duration;
pub mod kubeconfig;
pub mod logging;
pub mod manifests;
pub mod metrics;
pub mod offline;
pub mod output;
pub mod report;
pub mod revocation;
pub mod unknown_fields;
pub mod unreachable;

#[cfg(test)]
pub mod testing;
