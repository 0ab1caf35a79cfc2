//! A compiled rule and its evaluation.

use std::fmt;

use crate::cost::CostEstimate;
use crate::environment::{BoundRequest, PolicyEnvironment};
use crate::value::Value;
use crate::{CrVariable, EvalError, eval};

/// A compiled rule of the approver-policy environment (`self: string`, `cr`).
pub struct Program {
    env: &'static PolicyEnvironment,
    program: eval::Program,
    estimate: CostEstimate,
}

impl Program {
    pub(crate) fn new(
        env: &'static PolicyEnvironment,
        program: eval::Program,
        estimate: CostEstimate,
    ) -> Self {
        Self { env, program, estimate }
    }

    /// The static cost estimate of one evaluation, with the policy variables bounded as
    /// Kubernetes bounds them (see `docs/cel.md`). A `max` above
    /// [`eval::DEFAULT_COST_LIMIT`] means some request could make the rule fail with
    /// `cost limit exceeded`.
    pub fn cost_estimate(&self) -> CostEstimate {
        self.estimate
    }

    /// Evaluates the rule for one attribute value, with the default cost limit.
    ///
    /// Converts `cr` on every call; when evaluating several rules or values for one
    /// request, bind it once with [`BoundRequest::new`] and use [`Program::eval_bound`].
    pub fn eval(&self, self_value: &str, cr: &CrVariable) -> Result<bool, EvalError> {
        self.eval_bound(self_value, &BoundRequest::new(cr))
    }

    /// Evaluates the rule for one attribute value of an already bound request.
    pub fn eval_bound(&self, self_value: &str, cr: &BoundRequest) -> Result<bool, EvalError> {
        let values = self.env.bind(self_value, cr);
        match self.program.eval(&values)? {
            Value::Bool(result) => Ok(result),
            // The checker proved the type `bool`; kept as an error, never a panic.
            other => {
                Err(EvalError::new(format!("got {}, wanted bool result type", other.type_of())))
            }
        }
    }

    /// The rule's source text.
    pub fn rule(&self) -> &str {
        self.program.source()
    }
}

impl fmt::Debug for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Program").field("rule", &self.rule()).finish_non_exhaustive()
    }
}
