//! Argument checks with Go `text/template`'s texts. Go checks argument counts and types
//! before calling a function; our functions receive untyped values, so they check here.

use certgate_gotemplate::{FuncError, Value, type_name};

/// `wrong number of args for <name>: want <n> got <m>`.
pub(crate) fn expect_count(name: &str, args: &[Value], want: usize) -> Result<(), FuncError> {
    if args.len() == want {
        return Ok(());
    }
    Err(FuncError::arguments(format!(
        "wrong number of args for {name}: want {want} got {}",
        args.len()
    )))
}

/// Variadic functions: `wrong number of args for <name>: want at least <n> got <m>`.
pub(crate) fn expect_at_least(name: &str, args: &[Value], want: usize) -> Result<(), FuncError> {
    if args.len() >= want {
        return Ok(());
    }
    Err(FuncError::arguments(format!(
        "wrong number of args for {name}: want at least {want} got {}",
        args.len()
    )))
}

/// A `string` parameter. A missing value (`nil`, e.g. a field of an empty lookup result) is
/// `invalid value; expected string`, as Go reports an invalid reflect value.
pub(crate) fn string_arg(value: &Value) -> Result<&str, FuncError> {
    match value {
        Value::String(s) => Ok(s),
        Value::Nil => Err(FuncError::arguments("invalid value; expected string")),
        other => Err(FuncError::arguments(format!(
            "wrong type for value; expected string; got {}",
            type_name(other)
        ))),
    }
}

/// An `int` parameter.
pub(crate) fn int_arg(value: &Value) -> Result<i64, FuncError> {
    match value {
        Value::Int(i) => Ok(*i),
        Value::Nil => Err(FuncError::arguments("invalid value; expected int")),
        other => Err(FuncError::arguments(format!(
            "wrong type for value; expected int; got {}",
            type_name(other)
        ))),
    }
}

/// Every argument of a `...string` parameter.
pub(crate) fn string_args(values: &[Value]) -> Result<Vec<&str>, FuncError> {
    values.iter().map(string_arg).collect()
}
