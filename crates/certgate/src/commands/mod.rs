//! One module per subcommand.

pub mod check;
pub mod controller;
pub mod crds;
pub mod decide;
pub mod dev;
pub mod webhook;
