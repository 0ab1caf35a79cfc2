//! Compiling one rule: parse (which bounds size and nesting as cel-go does), type-check
//! (result exactly `bool`), compile.

use crate::check::Type;
use crate::environment::environment;
use crate::{CompileError, Program};

/// Compiles `rule`, bypassing any cache.
pub(crate) fn compile(rule: &str) -> Result<Program, CompileError> {
    let policy = environment()?;
    let (program, estimate) = policy.env.compile_estimated(rule, &policy.bounds)?;
    // cel-go, as upstream uses it, requires the output type to be exactly `bool`.
    match program.result_type() {
        Type::Bool => Ok(Program::new(policy, program, estimate)),
        other => Err(CompileError::new(format!("got {other}, wanted bool result type"))),
    }
}
