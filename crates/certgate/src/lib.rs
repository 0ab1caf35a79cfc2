//! The `certgate` command line: subcommands over the domain crates. Library-shaped so that
//! integration tests and benchmarks call the same code as the binary.
//!
//! - [`cli`]: the top of the command line, `Cli` and the `Command` enum, nothing else.
//! - [`commands`]: one module per subcommand, owning its arguments and wiring them to the
//!   domain and runtime crates.
//! - [`controllers`]: the registry of every controller `certgate controller` and
//!   `certgate dev` can run (one entry per controller, nothing else).
//! - [`shared`]: the one home of everything two commands both use (manifest loading, the
//!   offline review and its report, duration, log-format, connection and kubeconfig flags).
//!
//! Dependencies point down that list only: `cli` → `commands` → `controllers`, `shared`
//! (`tests/module_layering.rs`).
#![forbid(unsafe_code)]

pub mod cli;
pub mod commands;
pub mod controllers;
pub mod shared;
