//! One module per subcommand: its arguments (clap types and long help) and its wiring. A
//! command module never imports another one nor `crate::cli`; what two commands share lives in
//! [`crate::shared`] (`tests/module_layering.rs` checks it, with the few exceptions listed
//! there until the controllers move to runtime crates).

pub mod check;
pub mod completion;
pub mod controller;
pub mod crds;
pub mod crl;
pub mod decide;
pub mod dev;
pub mod edge;
pub mod explain;
pub mod man;
pub mod renew;
pub mod revoke;
pub mod status;
pub mod template;
pub mod version;
pub mod webhook;
