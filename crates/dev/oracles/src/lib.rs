//! Differential testing of certgate's reimplementations of Go libraries against the real
//! ones.
//!
//! Each *oracle* is a small Go program under `tools/oracles/<name>/`, pinned to the library
//! version upstream pins, built by `tools/oracles/build` into a cache outside the source tree.
//! An oracle reads one JSON case per line on stdin and writes one JSON answer per line on
//! stdout, so one process answers a whole generated corpus.
//!
//! The tests that use this crate live in its `tests/` folder, one file per library. They
//! generate cases with proptest strategies from a fixed seed ([`Settings`]), ask certgate and
//! the oracle, and compare. CI runs a bounded number of cases; the long mode
//! (`CERTGATE_DIFF_MINUTES`) runs for a given time and prints the agreement figures recorded in
//! the docs.
#![forbid(unsafe_code)]

mod corpus;
mod process;
mod settings;
mod tools;

pub use corpus::{Mismatch, Tally, Verdict, run_generated};
pub use process::{Oracle, OracleError, oracle_bin_dir};
pub use settings::Settings;
pub use tools::tool_path;
