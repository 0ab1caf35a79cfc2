//! Compiling one rule: size bound, parse, type-check (result exactly `bool`), compile.

use crate::check::Type;
use crate::environment::environment;
use crate::limits::MAX_RULE_BYTES;
use crate::{CompileError, Program};

/// Compiles `rule`, bypassing any cache.
pub(crate) fn compile(rule: &str) -> Result<Program, CompileError> {
    if rule.len() > MAX_RULE_BYTES {
        return Err(CompileError::new(format!(
            "rule is {} bytes long, more than the {MAX_RULE_BYTES} bytes allowed; \
             split it into several validations",
            rule.len()
        )));
    }
    let policy = environment()?;
    let (program, estimate) = policy.env.compile_estimated(rule, &policy.bounds)?;
    // cel-go, as upstream uses it, requires the output type to be exactly `bool`.
    match program.result_type() {
        Type::Bool => Ok(Program::new(policy, program, estimate)),
        other => Err(CompileError::new(format!("got {other}, wanted bool result type"))),
    }
}
