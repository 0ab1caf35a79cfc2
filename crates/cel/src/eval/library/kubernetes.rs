//! Implementations of the Kubernetes CEL libraries declared by
//! [`crate::check::add_kubernetes_libraries`]: IP addresses, CIDRs, URLs, lists and
//! sets here, regular expressions in [`super::regex`].
//!
//! The semantics and Kubernetes' error texts live in [`crate::k8s`]; these modules
//! bind them to overload ids and to the engine's values.

mod lists;
mod net;
mod url;

#[cfg(test)]
mod tests;

use crate::eval::Functions;
use crate::value::{Opaque, Value, ValueError};

pub(super) fn register(functions: &mut Functions) {
    // `find` and `findAll` are declared with the Kubernetes libraries.
    super::regex::register(functions);
    net::register(functions);
    url::register(functions);
    lists::register(functions);
}

/// The library value inside `v` when it is an opaque value of type `T`.
fn opaque<T: Opaque + 'static>(v: &Value) -> Option<&T> {
    match v {
        Value::Opaque(o) => o.as_any().downcast_ref::<T>(),
        _ => None,
    }
}

/// A library error, with the library's own text.
fn message(e: impl std::fmt::Display) -> ValueError {
    ValueError::Message(e.to_string())
}
