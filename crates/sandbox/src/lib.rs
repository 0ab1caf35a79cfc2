//! A local, single-process Kubernetes-compatible API server for development, demos and
//! end-to-end tests on one machine. **Not a production API server**: it listens on
//! loopback only, keeps one process's state, and simplifies what certgate does not need.

mod admission;
mod api;
mod bootstrap;
pub mod discovery;
mod jsonpath;
pub mod kubeconfig;
mod lifecycle;
mod objects;
pub mod openapi;
mod patching;
pub mod registry;
mod requester;
pub mod resources;
mod selectors;
pub mod server;
pub mod status;
mod table;
mod target;
mod validation;
pub mod version;
mod watch;
mod writes;

pub use server::{RunningSandbox, SandboxOptions, StartError, start};
