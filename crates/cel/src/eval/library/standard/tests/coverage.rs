//! Every standard-library overload the checker declares has an implementation of the
//! declared arity, and nothing is registered under an id nobody declares.

use std::collections::BTreeSet;

use crate::check::{Declarations, add_standard_library};
use crate::eval::Functions;

/// Overloads the interpreter evaluates itself (short-circuiting, error absorption).
const INTERPRETER_HANDLED: [&str; 4] =
    ["logical_and", "logical_or", "conditional", "not_strictly_false"];

fn declarations() -> Declarations {
    let mut decls = Declarations::new();
    if let Err(e) = add_standard_library(&mut decls) {
        panic!("standard library declarations rejected: {e}");
    }
    decls
}

fn registered() -> Functions {
    let mut functions = Functions::new();
    super::super::register(&mut functions);
    functions
}

#[test]
fn every_declared_overload_is_implemented_with_its_arity() {
    let checked = crate::eval::library::coverage::implemented_overloads(
        add_standard_library,
        &INTERPRETER_HANDLED,
    );
    // The declaration list is long; make sure the walk actually saw it.
    assert!(checked > 150, "only {checked} overloads declared");
}

#[test]
fn every_registered_id_is_declared() {
    let decls = declarations();
    let functions = registered();
    let undeclared: BTreeSet<&str> =
        functions.overload_ids().filter(|id| decls.overload(id).is_none()).collect();
    assert!(undeclared.is_empty(), "registered but not declared: {undeclared:?}");
}

#[test]
fn interpreter_handled_overloads_are_left_to_the_interpreter() {
    let functions = registered();
    for id in INTERPRETER_HANDLED {
        assert!(functions.get(id).is_none(), "{id} must not be implemented here");
    }
}
