//! certgate's CEL engine, and the approver-policy `validations` environment on it.
//!
//! The engine (issue #3, `docs/decisions/0003-cel-engine.md`, `docs/cel.md`):
//!
//! - [`syntax`]: a parser with cel-go's grammar, macros and error rendering, bounded in
//!   source size and nesting depth;
//! - [`check`]: declarations and a type checker, so undeclared names, wrong argument
//!   types and non-`bool` rules are compile errors with line, column and caret;
//! - [`cost`]: static cost estimates from declared size bounds;
//! - [`eval`]: compilation to resolved nodes (constant regexes compiled once) and an
//!   interpreter with a runtime cost budget, plus the library implementations;
//! - [`value`] and [`k8s`]: the runtime values and the Kubernetes libraries' semantics.
//!
//! Callers of the approver-policy environment see [`PolicyCel`] (compiled rules behind
//! a bounded LRU cache, errors cached too), [`Program`] and the error types.
#![forbid(unsafe_code)]

mod cache;
pub mod check;
mod compile;
pub mod cost;
mod environment;
pub mod eval;
pub mod k8s;
mod limits;
mod program;
mod service_account;
mod stack;
pub mod syntax;
pub mod value;

pub use cache::{DEFAULT_CACHE_SIZE, PolicyCel};
pub use environment::BoundRequest;
pub use limits::{
    MAX_NESTING_DEPTH, MAX_POLICY_NESTING_DEPTH, MAX_POLICY_RULE_CODE_POINTS, MAX_RULE_BYTES,
};
pub use program::Program;

/// The `cr` variable of the approver-policy environment.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CrVariable {
    pub name: String,
    pub namespace: String,
    pub username: String,
    pub groups: Vec<String>,
}

/// A rule that does not compile (or whose result is not `bool`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct CompileError {
    pub message: String,
}

/// A rule that failed while evaluating (runtime error, cost limit exceeded, ...).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct EvalError {
    pub message: String,
}

impl CompileError {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        Self { message: message.into() }
    }
}

impl EvalError {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        Self { message: message.into() }
    }
}
