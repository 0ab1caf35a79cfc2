//! Template functions: how certgate code plugs functions into the engine.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use crate::{Value, type_name};

/// A function callable from templates. Arguments arrive in template order (a piped value
/// last, as in Go).
pub type Func = Arc<dyn Fn(&[Value]) -> Result<Value, FuncError> + Send + Sync>;

/// Why a function call failed.
///
/// Go's `text/template` reports a function's own error as `error calling <name>: <message>`
/// and its argument checks (count, types) without that prefix; the constructors keep that
/// distinction so the engine can render either exactly. Functions do not know the name they
/// were registered under, so texts that contain it ([`FuncError::arg_count`]) are completed
/// by the engine through [`FuncError::render`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FuncError {
    kind: Kind,
    /// The text without the function's name; what [`FuncError::message`] returns.
    message: String,
    /// The argument (0-based, in call order with a piped value last) the error is about, so
    /// the engine can point at it as Go does for type errors.
    argument: Option<usize>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Kind {
    Call,
    Arguments,
    ArgCount { want: usize, got: usize, variadic: bool },
}

impl FuncError {
    /// The function ran and returned an error (`error calling <name>: <message>`).
    pub fn call(message: impl Into<String>) -> Self {
        let message = message.into();
        Self { kind: Kind::Call, message, argument: None }
    }

    /// The call itself was wrong, in the caller's own words (rendered without a prefix).
    pub fn arguments(message: impl Into<String>) -> Self {
        let message = message.into();
        Self { kind: Kind::Arguments, message, argument: None }
    }

    /// Go's `wrong number of args for <name>: want <want> got <got>`; with `variadic`,
    /// `want at least <want> got <got>` (`want` then counts the fixed parameters).
    pub fn arg_count(want: usize, got: usize, variadic: bool) -> Self {
        let kind = Kind::ArgCount { want, got, variadic };
        let message = count_text(&kind, None);
        Self { kind, message, argument: None }
    }

    /// Go's `wrong type for value; expected <expected>; got <type of got>`, with Go's type
    /// names (see [`crate::type_name`]).
    pub fn arg_type(expected: &str, got: &Value) -> Self {
        let message = format!("wrong type for value; expected {expected}; got {}", type_name(got));
        Self { kind: Kind::Arguments, message, argument: None }
    }

    /// Names the argument (0-based, a piped value counting last) the error is about; the
    /// engine then reports the position and text of that argument, as Go does.
    #[must_use]
    pub fn at_argument(mut self, index: usize) -> Self {
        self.argument = Some(index);
        self
    }

    /// The argument named by [`FuncError::at_argument`].
    pub fn argument(&self) -> Option<usize> {
        self.argument
    }

    /// The message without the function's name (for [`FuncError::arg_count`]:
    /// `wrong number of args: want 3 got 1`). Use [`FuncError::render`] for Go's text.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Whether Go would prefix the message with `error calling <name>: `.
    pub fn is_call_error(&self) -> bool {
        matches!(self.kind, Kind::Call)
    }

    /// Whether this is an argument-count error (Go reports those at the function's name
    /// rather than at the whole command).
    pub fn is_arg_count(&self) -> bool {
        matches!(self.kind, Kind::ArgCount { .. })
    }

    /// Go's complete text for a failed call of the function registered as `function`.
    pub fn render(&self, function: &str) -> String {
        match &self.kind {
            Kind::Call => format!("error calling {function}: {}", self.message),
            Kind::Arguments => self.message.clone(),
            Kind::ArgCount { .. } => count_text(&self.kind, Some(function)),
        }
    }
}

fn count_text(kind: &Kind, function: Option<&str>) -> String {
    let Kind::ArgCount { want, got, variadic } = kind else {
        return String::new();
    };
    let name = function.map(|f| format!(" for {f}")).unwrap_or_default();
    let at_least = if *variadic { "at least " } else { "" };
    format!("wrong number of args{name}: want {at_least}{want} got {got}")
}

impl fmt::Display for FuncError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for FuncError {}

/// Functions by name. Later inserts replace earlier ones, as Go's `Funcs` does.
#[derive(Clone, Default)]
pub struct FuncMap {
    funcs: BTreeMap<String, Func>,
}

impl FuncMap {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn insert(
        &mut self,
        name: impl Into<String>,
        func: impl Fn(&[Value]) -> Result<Value, FuncError> + Send + Sync + 'static,
    ) {
        self.funcs.insert(name.into(), Arc::new(func));
    }

    pub fn insert_shared(&mut self, name: impl Into<String>, func: Func) {
        self.funcs.insert(name.into(), func);
    }

    /// Adds every function of `other` whose name is not defined here yet.
    pub fn extend_missing(&mut self, other: &FuncMap) {
        for (name, func) in &other.funcs {
            self.funcs.entry(name.clone()).or_insert_with(|| func.clone());
        }
    }

    pub fn remove(&mut self, name: &str) -> Option<Func> {
        self.funcs.remove(name)
    }

    pub fn get(&self, name: &str) -> Option<&Func> {
        self.funcs.get(name)
    }

    pub fn contains(&self, name: &str) -> bool {
        self.funcs.contains_key(name)
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.funcs.keys().map(String::as_str)
    }

    pub fn len(&self) -> usize {
        self.funcs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.funcs.is_empty()
    }
}

impl fmt::Debug for FuncMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.funcs.keys()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_gos_argument_texts() {
        assert_eq!(
            FuncError::arg_count(3, 1, false).render("fromSecret"),
            "wrong number of args for fromSecret: want 3 got 1"
        );
        assert_eq!(
            FuncError::arg_count(1, 0, true).render("printf"),
            "wrong number of args for printf: want at least 1 got 0"
        );
        assert_eq!(
            FuncError::arg_type("string", &Value::Int(1)).render("f"),
            "wrong type for value; expected string; got int"
        );
        assert_eq!(FuncError::call("boom").render("f"), "error calling f: boom");
        assert_eq!(FuncError::arguments("bad").render("f"), "bad");
        assert_eq!(
            FuncError::arg_count(2, 0, false).message(),
            "wrong number of args: want 2 got 0"
        );
        assert_eq!(FuncError::call("x").at_argument(1).argument(), Some(1));
    }
}
