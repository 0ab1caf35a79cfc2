//! CEL for approver-policy `validations`.
//!
//! This crate is certgate's one seam to a CEL engine: callers see [`PolicyCel`],
//! [`Program`] and the error types, never the engine underneath, so the engine can be
//! replaced (issue: production-grade CEL) without touching evaluators.
#![forbid(unsafe_code)]

use std::sync::Arc;

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

/// A compiled rule of the approver-policy environment (`self: string`, `cr`).
pub struct Program {
    // Filled in by the cel crate owner.
}

impl Program {
    /// Evaluates the rule for one attribute value.
    pub fn eval(&self, self_value: &str, cr: &CrVariable) -> Result<bool, EvalError> {
        let _ = (self_value, cr);
        todo!("cel crate owner")
    }
}

/// The approver-policy CEL environment with a shared, bounded LRU cache of compiled rules
/// (compile errors cached too), keyed by rule text. Shared by admission and evaluation.
pub struct PolicyCel {
    // Filled in by the cel crate owner.
}

/// Default number of cached rules, as upstream.
pub const DEFAULT_CACHE_SIZE: usize = 1024;

impl PolicyCel {
    pub fn new(cache_size: usize) -> Self {
        let _ = cache_size;
        todo!("cel crate owner")
    }

    /// Compiles (or fetches from cache) a rule.
    pub fn compile(&self, rule: &str) -> Result<Arc<Program>, CompileError> {
        let _ = rule;
        todo!("cel crate owner")
    }
}

impl Default for PolicyCel {
    fn default() -> Self {
        Self::new(DEFAULT_CACHE_SIZE)
    }
}
