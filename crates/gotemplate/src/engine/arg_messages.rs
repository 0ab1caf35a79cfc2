//! Go's texts for a constant written in the template that does not fit its parameter.
//!
//! Go converts a literal argument (`1`, `"ab"`, `true`, `nil`) by the parameter's kind before
//! the call and words the failure after the literal (`expected string; found 1`), where a
//! value computed at run time gets `wrong type for value; expected string; got int`.
//! Functions see values only, so the engine rewords their type errors here when the argument
//! Go points at is a literal.

use crate::{FuncError, Value};

/// What an argument's node is, as far as Go's conversion of it goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Constant {
    /// Computed at run time (variables, pipelines, functions, dot).
    No,
    /// Read from a map through a field chain (`.a.b`, `$.a`): Go holds it as an
    /// `interface {}`, which builtins that do not unwrap it (`slice`) refuse by that type.
    Field,
    /// The `nil` literal.
    Nil,
    /// A number, string, character or boolean literal.
    Literal,
}

/// Go's message for the literal `text` failing a parameter, given the function's `message`
/// for the value (`wrong type for value; expected T; got U` or `invalid value; expected T`);
/// other messages are kept.
pub(crate) fn reword(constant: Constant, text: &str, message: String) -> String {
    let expected = message
        .strip_prefix("wrong type for value; expected ")
        .and_then(|rest| rest.rsplit_once("; got ").map(|(expected, _)| expected))
        .or_else(|| message.strip_prefix("invalid value; expected "));
    let Some(expected) = expected else {
        return message;
    };
    match constant {
        Constant::No | Constant::Field => message,
        Constant::Nil => format!("cannot assign nil to {expected}"),
        Constant::Literal => match expected {
            "bool" => format!("expected bool; found {text}"),
            "string" => format!("expected string; found {text}"),
            "int" | "int8" | "int16" | "int32" | "int64" => {
                format!("expected integer; found {text}")
            }
            "uint" | "uint8" | "uint16" | "uint32" | "uint64" => {
                format!("expected unsigned integer; found {text}")
            }
            "float32" | "float64" => format!("expected float; found {text}"),
            other => format!("can't handle {text} for arg of type {other}"),
        },
    }
}

/// Go converts an integral number literal (`1e3`, `2.0`) to an integer parameter; functions
/// see a float64. When a function refused such an argument as not an integer, these are the
/// arguments to call it with again, the literal made the integer Go would have passed.
pub(crate) fn untyped_integer(
    error: &FuncError,
    args: &[Value],
    constants: &[Constant],
) -> Option<Vec<Value>> {
    let index = error.argument()?;
    if constants.get(index) != Some(&Constant::Literal) {
        return None;
    }
    let Some(Value::Float(f)) = args.get(index) else {
        return None;
    };
    let expected = error.message().strip_prefix("wrong type for value; expected ")?;
    let integral = f.fract() == 0.0 && f.abs() < 9.2e18;
    let converted = if expected.starts_with("int") && integral {
        Value::Int(*f as i64)
    } else if expected.starts_with("uint") && integral && *f >= 0.0 {
        Value::Uint(*f as u64)
    } else {
        return None;
    };
    let mut retried = args.to_vec();
    retried[index] = converted;
    Some(retried)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_are_named_as_written() {
        let wrong = |e: &str, g: &str| format!("wrong type for value; expected {e}; got {g}");
        assert_eq!(
            reword(Constant::Literal, "1", wrong("string", "int")),
            "expected string; found 1"
        );
        assert_eq!(
            reword(Constant::Literal, "\"ab\"", wrong("int", "string")),
            "expected integer; found \"ab\""
        );
        assert_eq!(
            reword(Constant::Literal, "'a'", wrong("bool", "int")),
            "expected bool; found 'a'"
        );
        assert_eq!(
            reword(Constant::Literal, "-3", wrong("map[string]interface {}", "int")),
            "can't handle -3 for arg of type map[string]interface {}"
        );
        assert_eq!(
            reword(Constant::Nil, "nil", "invalid value; expected string".to_owned()),
            "cannot assign nil to string"
        );
        assert_eq!(reword(Constant::No, ".f", wrong("string", "int")), wrong("string", "int"));
        assert_eq!(reword(Constant::Literal, "1", "boom".to_owned()), "boom");
    }

    #[test]
    fn integral_float_literals_retry_as_integers() {
        let refused = FuncError::arg_type("int", &Value::Float(1e3)).at_argument(0);
        let args = [Value::Float(1e3), Value::Int(1)];
        let retried = untyped_integer(&refused, &args, &[Constant::Literal, Constant::Literal]);
        assert!(matches!(retried.as_deref(), Some([Value::Int(1000), Value::Int(1)])));
        // Data is not a constant; 2.5 is no integer.
        assert!(untyped_integer(&refused, &args, &[Constant::Field]).is_none());
        let half = [Value::Float(2.5)];
        assert!(untyped_integer(&refused, &half, &[Constant::Literal]).is_none());
    }
}
