//! A local, single-process Kubernetes-compatible API server for development, demos and
//! end-to-end tests on one machine. **Not a production API server**: it listens on
//! loopback only, keeps one process's state, and simplifies what certgate does not need.

mod admission;
mod api;
mod bootstrap;
mod builtin_columns;
mod builtin_validation;
mod crd_rules;
mod derived;
pub mod discovery;
mod event_validation;
mod event_versions;
mod field_selectors;
mod gate;
mod jsonpath;
pub mod kubeconfig;
mod lifecycle;
mod limits;
mod names;
mod object_meta;
mod objects;
pub mod openapi;
mod options;
mod patching;
mod rbac;
pub mod registry;
mod requester;
pub mod resources;
mod reviews;
mod secrets;
mod selection_edge;
mod selectors;
pub mod server;
pub mod status;
mod storage_version;
mod table;
mod target;
mod tokens;
mod typed_fields;
mod unknown_fields;
mod validation;
pub mod version;
mod watch;
mod writes;

pub use server::{RunningSandbox, SERVICE_ACCOUNT_KEY_FILE, SandboxOptions, StartError, start};
