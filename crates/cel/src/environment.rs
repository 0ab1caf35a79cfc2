//! The approver-policy CEL environment: the standard library and macros, cel-go's
//! strings extension, the service-account functions and the two object types.
//!
//! Built once per process: it is immutable and shared by every program.

use crate::{CompileError, request, service_account};
use cel::{DeclarationError, Env, extensions};
use std::sync::{Arc, LazyLock};

static ENVIRONMENT: LazyLock<Result<Arc<Env>, DeclarationError>> = LazyLock::new(build);

/// The shared environment, or why it could not be built (a certgate bug, since its
/// declarations are fixed; reported as a compile error rather than a panic).
pub(crate) fn environment() -> Result<Arc<Env>, CompileError> {
    match &*ENVIRONMENT {
        Ok(env) => Ok(Arc::clone(env)),
        Err(err) => Err(CompileError::new(format!(
            "the CEL environment could not be built ({err}); this is a certgate bug, \
             please report it"
        ))),
    }
}

fn build() -> Result<Arc<Env>, DeclarationError> {
    // cel-go, as upstream configures it, has no optional syntax (`a.?b`).
    let mut env = Env::stdlib().with_optional_support(false);
    env.add_extension(extensions::strings)?;
    env.add_type(request::REQUEST_TYPE.to_owned())?;
    env.add_extension(service_account::register)?;
    Ok(Arc::new(env))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_environment_builds() {
        assert!(environment().is_ok());
    }
}
