//! The implementations of declared overloads, keyed by overload id.
//!
//! Declarations ([`crate::check::Declarations`]) say what a function accepts and
//! returns; a [`Functions`] table says what it does. The compiler looks up every
//! overload a checked call may dispatch to once, so evaluation calls a plain function
//! pointer without any name lookup.

use std::collections::HashMap;

use crate::value::{Value, ValueError};

/// What a function implementation returns.
pub type FnResult = Result<Value, ValueError>;

/// An overload's implementation. Arguments come in declaration order; for a
/// receiver-style overload (`x.f(y)`) the receiver is the first argument.
///
/// Fixed arities avoid building an argument vector on the hot path.
#[derive(Clone, Copy)]
pub enum Impl {
    Nullary(fn() -> FnResult),
    Unary(fn(&Value) -> FnResult),
    Binary(fn(&Value, &Value) -> FnResult),
    Ternary(fn(&Value, &Value, &Value) -> FnResult),
    Variadic(fn(&[Value]) -> FnResult),
}

impl Impl {
    /// How many arguments the implementation takes; `None` for any number.
    pub fn arity(&self) -> Option<usize> {
        match self {
            Impl::Nullary(_) => Some(0),
            Impl::Unary(_) => Some(1),
            Impl::Binary(_) => Some(2),
            Impl::Ternary(_) => Some(3),
            Impl::Variadic(_) => None,
        }
    }

    /// Calls the implementation with borrowed arguments (the interpreter's path: it
    /// passes variables and constants without cloning them).
    pub fn call_refs(&self, args: &[&Value]) -> FnResult {
        match (self, args) {
            (Impl::Nullary(f), []) => f(),
            (Impl::Unary(f), [a]) => f(a),
            (Impl::Binary(f), [a, b]) => f(a, b),
            (Impl::Ternary(f), [a, b, c]) => f(a, b, c),
            (Impl::Variadic(f), args) => f(&args.iter().map(|a| (*a).clone()).collect::<Vec<_>>()),
            _ => Err(arity_error(args.len())),
        }
    }

    /// Calls the implementation with `args` (whose length the compiler checked).
    pub fn call(&self, args: &[Value]) -> FnResult {
        match (self, args) {
            (Impl::Nullary(f), []) => f(),
            (Impl::Unary(f), [a]) => f(a),
            (Impl::Binary(f), [a, b]) => f(a, b),
            (Impl::Ternary(f), [a, b, c]) => f(a, b, c),
            (Impl::Variadic(f), args) => f(args),
            _ => Err(arity_error(args.len())),
        }
    }
}

fn arity_error(n: usize) -> ValueError {
    ValueError::Message(format!("internal error: implementation called with {n} arguments"))
}

impl std::fmt::Debug for Impl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.arity() {
            Some(n) => write!(f, "Impl(arity {n})"),
            None => write!(f, "Impl(variadic)"),
        }
    }
}

/// Overload id → implementation.
#[derive(Clone, Debug, Default)]
pub struct Functions {
    by_overload: HashMap<String, Impl>,
}

impl Functions {
    pub fn new() -> Self {
        Self::default()
    }

    /// Every implementation certgate's libraries provide: the counterpart of
    /// [`crate::check::full_library`].
    pub fn full_library() -> Self {
        let mut functions = Self::new();
        super::library::register_all(&mut functions);
        functions
    }

    /// Adds (or replaces) the implementation of `overload_id`.
    pub fn add(&mut self, overload_id: impl Into<String>, implementation: Impl) {
        self.by_overload.insert(overload_id.into(), implementation);
    }

    pub fn get(&self, overload_id: &str) -> Option<Impl> {
        self.by_overload.get(overload_id).copied()
    }

    /// Ids of every implemented overload.
    pub fn overload_ids(&self) -> impl Iterator<Item = &str> {
        self.by_overload.keys().map(String::as_str)
    }
}
