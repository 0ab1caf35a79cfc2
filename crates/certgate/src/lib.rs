//! The `certgate` command line: subcommands over the domain crates. Library-shaped so that
//! integration tests and benchmarks call the same code as the binary.
#![forbid(unsafe_code)]

pub mod cli;
pub mod commands;
