//! Implementations of the CEL standard library declared by
//! [`crate::check::add_standard_library`], registered under cel-go's overload ids.
//!
//! The semantics themselves (equality, ordering, arithmetic, conversions) live in
//! [`crate::value`]; these modules bind them to overload ids and add the functions
//! that only exist as library calls (indexing, `size`, string tests, time accessors).

mod containers;
mod operators;
mod text;
mod time;

#[cfg(test)]
mod tests;

use crate::eval::Functions;

pub(super) fn register(functions: &mut Functions) {
    operators::register(functions);
    containers::register(functions);
    text::register(functions);
    time::register(functions);
}
