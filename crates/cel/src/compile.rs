//! Compiling one rule: bounds, parse, static checks.

use crate::environment::environment;
use crate::result_type::{not_bool, static_type};
use crate::{CompileError, Program, analysis, limits, parse_errors};
use cel::Env;
use std::sync::Arc;
use std::thread;

/// Stack of the thread that parses. The parser's frames take up to ~200 KiB per
/// nesting level in debug builds (a few KiB in release), so within
/// [`limits::MAX_NESTING_DEPTH`] parsing needs several MiB: more than the 2 MiB an
/// async runtime's worker threads have. The memory is reserved, not committed,
/// until used.
const PARSE_STACK_BYTES: usize = 32 * 1024 * 1024;

/// Why a rule has no program.
#[derive(Debug)]
pub(crate) enum Failure {
    /// The rule itself is wrong: the same text always fails the same way.
    Rule(CompileError),
    /// The rule could not be compiled now (no thread could be started); retrying
    /// may succeed, so this is not cached.
    Transient(CompileError),
}

impl Failure {
    pub(crate) fn into_error(self) -> CompileError {
        match self {
            Failure::Rule(err) | Failure::Transient(err) => err,
        }
    }
}

/// Compiles `rule`, bypassing any cache.
pub(crate) fn compile(rule: &str) -> Result<Program, Failure> {
    limits::check_source(rule).map_err(Failure::Rule)?;
    let env = environment().map_err(Failure::Rule)?;
    // Parsing, and dropping a rejected tree, recurse: both happen on a thread with a
    // stack sized for the depth the source check lets through.
    let parsed = thread::scope(|scope| {
        let parser = thread::Builder::new()
            .name("certgate-cel-parse".to_owned())
            .stack_size(PARSE_STACK_BYTES)
            .spawn_scoped(scope, || parse_and_check(rule, &env));
        match parser {
            Ok(parser) => Ok(parser.join()),
            Err(err) => Err(err),
        }
    });
    match parsed {
        Ok(Ok(result)) => result.map(|program| Program::new(env, program)).map_err(Failure::Rule),
        // The parser panicked: propagate it, do not hide it behind an error.
        Ok(Err(panic)) => std::panic::resume_unwind(panic),
        Err(err) => Err(Failure::Transient(CompileError::new(format!(
            "could not start a thread to parse the rule ({err}); \
             the process is out of threads or memory, retry later"
        )))),
    }
}

fn parse_and_check(rule: &str, env: &Arc<Env>) -> Result<cel::Program, CompileError> {
    let program =
        env.compile(rule).map_err(|errors| parse_errors::from_parse_errors(rule, &errors))?;
    analysis::check(rule, &program, env)?;
    // `static_type` recurses over the tree: only once its depth is known to be bounded.
    if let Some(got) = static_type(program.expression()).filter(|t| t != "bool") {
        return Err(CompileError::new(not_bool(&got)));
    }
    Ok(program)
}
