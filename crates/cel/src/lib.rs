//! CEL for approver-policy `validations`.
//!
//! This crate is certgate's one seam to a CEL engine: callers see [`PolicyCel`],
//! [`Program`] and the error types, never the engine underneath, so the engine can be
//! replaced (issue: production-grade CEL) without touching evaluators.
//!
//! The engine today is the interim one of `docs/decisions/0002-interim-cel-engine.md`:
//! the `cel` crate's interpreter, behind checks this crate adds because that crate has
//! no type checker and no cost limit:
//!
//! - rules longer than [`MAX_RULE_BYTES`] or nested deeper than [`MAX_NESTING_DEPTH`]
//!   are rejected before and after parsing, so neither the parser nor the interpreter,
//!   both recursive, can exhaust a thread's stack;
//! - undeclared identifiers, unknown `cr` fields and results that are certainly not
//!   `bool` are compile errors, as with cel-go; a non-`bool` result the static check
//!   cannot see is an evaluation error instead.
#![forbid(unsafe_code)]

mod analysis;
mod cache;
pub mod check;
mod compile;
mod environment;
pub mod k8s;
mod limits;
mod parse_errors;
mod program;
mod request;
mod result_type;
mod service_account;
pub mod syntax;
pub mod value;

pub use cache::{DEFAULT_CACHE_SIZE, PolicyCel};
pub use limits::{MAX_NESTING_DEPTH, MAX_RULE_BYTES};
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
