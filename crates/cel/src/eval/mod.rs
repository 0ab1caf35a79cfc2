//! Evaluation: compiled programs, their interpreter with a cost budget, and the
//! implementations of the library functions.

pub(crate) mod call_cost;
mod compiler;
#[cfg(test)]
mod cost_tests;
mod environment;
mod fold;
mod functions;
mod interpreter;
pub mod library;
mod node;
mod program;

pub use environment::Environment;
pub use functions::{FnResult, Functions, Impl};
pub use program::{COST_LIMIT_EXCEEDED, DEFAULT_COST_LIMIT, Evaluated, Program};
