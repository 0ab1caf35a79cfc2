//! One module per subcommand.

pub mod check;
pub mod controller;
pub mod crds;
pub mod decide;
pub mod dev;
pub mod explain;
pub mod live_review;
pub mod webhook;
pub mod webhook_serving;
