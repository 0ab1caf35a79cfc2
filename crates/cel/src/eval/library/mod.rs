//! Implementations of the libraries declared in [`crate::check`]: one module per
//! library, each registering its overloads by the ids its declarations use.

mod kubernetes;
mod optionals;
mod standard;
mod strings;

pub mod regex;

use super::Functions;

/// Registers every library's implementations.
pub(crate) fn register_all(functions: &mut Functions) {
    standard::register(functions);
    strings::register(functions);
    optionals::register(functions);
    kubernetes::register(functions);
}
