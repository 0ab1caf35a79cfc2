//! A compiled rule and its evaluation.

use crate::request::Bindings;
use crate::result_type::{not_bool, runtime_type};
use crate::service_account::CONVERT_FUNCTION;
use crate::{CrVariable, EvalError};
use cel::common::types::CelBool;
use cel::{Context, Env, ExecutionError, Value};
use std::fmt;
use std::sync::Arc;

/// A compiled rule of the approver-policy environment (`self: string`, `cr`).
pub struct Program {
    env: Arc<Env>,
    program: cel::Program,
}

impl Program {
    /// Wraps a program that passed every compile-time check.
    pub(crate) fn new(env: Arc<Env>, program: cel::Program) -> Self {
        Self { env, program }
    }

    /// Evaluates the rule for one attribute value.
    ///
    /// `self_value` and `cr` are borrowed, not copied: binding them allocates
    /// nothing. A result that is not a `bool` is an error
    /// (`got <type>, wanted bool result type`), as are the rule's runtime errors.
    pub fn eval(&self, self_value: &str, cr: &CrVariable) -> Result<bool, EvalError> {
        let bindings = Bindings::new(self_value, cr);
        let mut context = Context::with_env(Arc::clone(&self.env));
        context.set_variable_resolver(&bindings);
        let value =
            Value::resolve_val(self.program.expression(), &context).map_err(runtime_error)?;
        match value.downcast_ref::<CelBool>() {
            Some(result) => Ok(*result.inner()),
            None => Err(EvalError::new(not_bool(&runtime_type(&*value)))),
        }
    }

    /// The rule's source text.
    pub fn rule(&self) -> &str {
        &self.program.source_info().source
    }
}

/// The interpreter's wording, except for the service-account conversion, whose
/// message is upstream's own text.
fn runtime_error(err: ExecutionError) -> EvalError {
    match err {
        ExecutionError::FunctionError { function, message } if function == CONVERT_FUNCTION => {
            EvalError::new(message)
        }
        err => EvalError::new(err.to_string()),
    }
}

impl fmt::Debug for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Program").field("rule", &self.rule()).finish_non_exhaustive()
    }
}
