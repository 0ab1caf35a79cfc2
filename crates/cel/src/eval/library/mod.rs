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

#[cfg(test)]
pub(super) mod coverage {
    //! What every library's coverage test checks: each overload its declarations name
    //! has an implementation of the declared arity.

    use crate::check::{DeclError, Declarations};
    use crate::eval::Functions;

    /// The overloads `declare` adds, less `interpreter_handled`; panics listing every
    /// one without an implementation of its declared arity. Returns how many it checked.
    pub(crate) fn implemented_overloads(
        declare: fn(&mut Declarations) -> Result<(), DeclError>,
        interpreter_handled: &[&str],
    ) -> usize {
        let mut decls = Declarations::new();
        if let Err(e) = declare(&mut decls) {
            panic!("declarations rejected: {e}");
        }
        let functions = Functions::full_library();
        let mut missing = Vec::new();
        let mut checked = 0;
        for overload in decls.functions().flat_map(|f| &f.overloads) {
            if interpreter_handled.contains(&overload.id.as_str()) {
                continue;
            }
            checked += 1;
            match functions.get(&overload.id).map(|i| i.arity()) {
                None => missing.push(format!("{} (no implementation)", overload.id)),
                Some(Some(n)) if n != overload.params.len() => missing.push(format!(
                    "{} (arity {n}, declared {})",
                    overload.id,
                    overload.params.len()
                )),
                Some(_) => {}
            }
        }
        assert!(missing.is_empty(), "unimplemented overloads: {missing:?}");
        checked
    }
}
