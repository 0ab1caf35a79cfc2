//! The string tests of the standard library: `contains`, `startsWith`, `endsWith`
//! and `matches`.

use crate::eval::library::regex;
use crate::eval::{FnResult, Functions, Impl};
use crate::value::{Value, ValueError};

pub(super) fn register(functions: &mut Functions) {
    functions
        .add("contains_string", Impl::Binary(|s, t| test("contains", s, t, |s, t| s.contains(t))));
    functions.add(
        "starts_with_string",
        Impl::Binary(|s, t| test("startsWith", s, t, |s, t| s.starts_with(t))),
    );
    functions.add(
        "ends_with_string",
        Impl::Binary(|s, t| test("endsWith", s, t, |s, t| s.ends_with(t))),
    );
    // `matches(text, pattern)` and `text.matches(pattern)` take the same arguments.
    functions.add("matches", Impl::Binary(matches));
    functions.add("matches_string", Impl::Binary(matches));
}

fn test(function: &str, s: &Value, t: &Value, holds: fn(&str, &str) -> bool) -> FnResult {
    match (s, t) {
        (Value::String(s), Value::String(t)) => Ok(Value::Bool(holds(s, t))),
        _ => Err(ValueError::no_overload(function, &[s, t])),
    }
}

fn matches(text: &Value, pattern: &Value) -> FnResult {
    match (text, pattern) {
        (Value::String(text), Value::String(pattern)) => {
            regex_matches(text, pattern).map(Value::Bool)
        }
        _ => Err(ValueError::no_overload("matches", &[text, pattern])),
    }
}

/// Whether `pattern` (RE2 syntax) matches anywhere in `text`, compiling the pattern
/// for this one call with the regex library's bounds and Go-worded errors. Calls with
/// a constant pattern are compiled once instead, by the compiler; this is the path of
/// patterns computed at evaluation time.
pub(crate) fn regex_matches(text: &str, pattern: &str) -> Result<bool, ValueError> {
    Ok(regex::compile(pattern)?.is_match(text))
}
