//! A compiled expression and its entry points for evaluation.

use std::fmt;
use std::sync::Arc;

use super::interpreter::{Budget, Interpreter, Unmetered};
use super::node::Node;
use crate::EvalError;
use crate::check::Type;
use crate::value::Value;

/// Kubernetes' per-evaluation cost limit, which approver-policy applies too.
pub const DEFAULT_COST_LIMIT: u64 = 1_000_000;

/// The text of the error an evaluation over its cost budget fails with (cel-go's).
pub const COST_LIMIT_EXCEEDED: &str = "operation cancelled: actual cost limit exceeded";

/// A compiled expression, immutable and shareable between threads.
pub struct Program {
    root: Node,
    locals: usize,
    source: Arc<str>,
    result_type: Type,
}

/// A value and what computing it cost.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluated {
    pub value: Value,
    pub cost: u64,
}

impl Program {
    pub(super) fn new(root: Node, locals: usize, source: Arc<str>, result_type: Type) -> Self {
        Self { root, locals, source, result_type }
    }

    /// Evaluates with the variables bound by slot (see [`super::Environment::slot`])
    /// and the [`DEFAULT_COST_LIMIT`].
    pub fn eval(&self, variables: &[Value]) -> Result<Value, EvalError> {
        let mut interpreter =
            Interpreter::new(variables, self.locals, Budget::new(DEFAULT_COST_LIMIT));
        interpreter.run(&self.root)
    }

    /// Evaluates with a cost budget of `limit`; going over it fails the evaluation
    /// with [`COST_LIMIT_EXCEEDED`] (see the interpreter for when the budget is
    /// compared), and reports the cost.
    pub fn eval_with_limit(&self, variables: &[Value], limit: u64) -> Result<Evaluated, EvalError> {
        let mut interpreter = Interpreter::new(variables, self.locals, Budget::new(limit));
        let value = interpreter.run(&self.root)?;
        Ok(Evaluated { value, cost: interpreter.cost() })
    }

    /// Evaluates without counting cost at all: only for measuring what counting costs,
    /// and for trusted expressions.
    pub fn eval_unmetered(&self, variables: &[Value]) -> Result<Value, EvalError> {
        Interpreter::new(variables, self.locals, Unmetered).run(&self.root)
    }

    /// The checked type of the result (`dyn` when compiled unchecked).
    pub fn result_type(&self) -> &Type {
        &self.result_type
    }

    /// The source text.
    pub fn source(&self) -> &str {
        &self.source
    }
}

impl fmt::Debug for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Program").field("source", &self.source).finish_non_exhaustive()
    }
}
