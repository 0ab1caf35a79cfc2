//! Go's own failures of the builtins `eq`, `ne`, `lt`, `le`, `gt`, `ge`, `len`, `index` and
//! `slice`, decided before gotmpl runs them.
//!
//! gotmpl words these failures its own way (`cannot index type int`, `len: cannot take length
//! of 1000`) and without Go's `error calling <builtin>:` prefix. Each check below returns Go's
//! message only where Go certainly fails on these values; everything else (success, and the
//! few failures whose Go text prints reflect internals) is left to gotmpl unchanged.

use super::arg_messages::Constant;
use crate::{Value, print, type_name};

/// Go's message for a builtin call that fails on `args`, if this module knows it; `kinds`
/// tells which explicit arguments are literals or read through field chains.
pub(crate) fn check(name: &str, args: &[Value], kinds: &[Constant]) -> Option<String> {
    match (name, args) {
        ("eq", [first, rest @ ..]) if !rest.is_empty() => eq(first, rest).err(),
        ("ne", [a, b]) => eq(a, std::slice::from_ref(b)).err(),
        // `le`, `gt` and `ge` are built on `lt` (and `eq`, which cannot fail where `lt`
        // succeeded), so they fail exactly where `lt` does.
        ("lt" | "le" | "gt" | "ge", [a, b]) => lt(a, b),
        ("len", [item]) => len(item),
        ("index", [item, indexes @ ..]) => index(item, indexes),
        ("slice", [item, indexes @ ..]) => slice(item, indexes, kinds.get(1..).unwrap_or(&[])),
        _ => None,
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Invalid,
    Bool,
    Int,
    Uint,
    Float,
    String,
}

fn kind(v: &Value) -> Kind {
    match v {
        Value::Bool(_) => Kind::Bool,
        Value::Int(_) => Kind::Int,
        Value::Uint(_) => Kind::Uint,
        Value::Float(_) => Kind::Float,
        Value::String(_) => Kind::String,
        _ => Kind::Invalid,
    }
}

const BAD_TYPE: &str = "invalid type for comparison";

fn incompatible(a: &Value, b: &Value) -> String {
    format!("incompatible types for comparison: {} and {}", type_name(a), type_name(b))
}

/// Go's `eq`: stops at the first equal argument, so a later bad one is never looked at.
/// `Ok(())` also stands for the failures left to gotmpl (non-comparable lists and maps).
fn eq(first: &Value, rest: &[Value]) -> Result<(), String> {
    for other in rest {
        let truth = match (first, other) {
            (Value::Int(a), Value::Uint(b)) | (Value::Uint(b), Value::Int(a)) => {
                u64::try_from(*a).is_ok_and(|a| a == *b)
            }
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::Uint(a), Value::Uint(b)) => a == b,
            (Value::Float(a), Value::Float(b)) => a == b,
            (Value::String(a), Value::String(b)) => a == b,
            // A nil on either side compares unequal without complaint.
            (Value::Nil, _) | (_, Value::Nil) => matches!((first, other), (Value::Nil, Value::Nil)),
            _ if kind(first) != kind(other) => return Err(incompatible(first, other)),
            // A list and a map.
            _ if std::mem::discriminant(first) != std::mem::discriminant(other) => {
                return Err(print::sprintf(
                    "non-comparable types %s: %v, %s: %v",
                    &[first.clone(), text(type_name(first)), text(type_name(other)), other.clone()],
                ));
            }
            // Two lists or two maps: Go's `interface{}` equality refuses both types.
            (Value::List(_) | Value::Map(_), _) => {
                return Err(print::sprintf(
                    "non-comparable type %s: %v",
                    &[other.clone(), text(type_name(other))],
                ));
            }
            _ => return Ok(()),
        };
        if truth {
            return Ok(());
        }
    }
    Ok(())
}

fn text(t: &str) -> Value {
    Value::String(std::sync::Arc::from(t))
}

fn lt(a: &Value, b: &Value) -> Option<String> {
    let (ka, kb) = (kind(a), kind(b));
    if ka == Kind::Invalid || kb == Kind::Invalid {
        return Some(BAD_TYPE.to_owned());
    }
    match (ka, kb) {
        (Kind::Int, Kind::Uint) | (Kind::Uint, Kind::Int) => None,
        _ if ka != kb => Some(incompatible(a, b)),
        (Kind::Bool, _) => Some(BAD_TYPE.to_owned()),
        _ => None,
    }
}

fn len(item: &Value) -> Option<String> {
    match item {
        // A missing key or a `nil` reaches Go's `len` as no value at all (a null stored in
        // the data would be a nil interface, `len of nil pointer`; certgate cannot tell).
        Value::Nil => Some("reflect: call of reflect.Value.Type on zero Value".to_owned()),
        Value::String(_) | Value::List(_) | Value::Map(_) | Value::Function(_) => None,
        other => Some(format!("len of type {}", type_name(other))),
    }
}

/// Go's `indexArg`: an integer index within `0..=limit`.
fn index_arg(index: &Value, limit: usize) -> Result<usize, String> {
    let x: i128 = match index {
        Value::Int(i) => i128::from(*i),
        Value::Uint(u) => i128::from(*u),
        Value::Nil => return Err("cannot index slice/array with nil".to_owned()),
        other => return Err(format!("cannot index slice/array with type {}", type_name(other))),
    };
    match usize::try_from(x) {
        Ok(x) if x <= limit => Ok(x),
        _ => Err(format!("index out of range: {x}")),
    }
}

/// Stands for the byte a string index yields (a `uint8`, see `crate::type_name`).
static BYTE: Value = Value::Uint(0);

fn index(item: &Value, indexes: &[Value]) -> Option<String> {
    if matches!(item, Value::Nil) {
        return Some("index of untyped nil".to_owned());
    }
    let mut item = item;
    for index in indexes {
        match item {
            Value::Nil => return Some("index of nil pointer".to_owned()),
            Value::List(items) => match index_arg(index, items.len()) {
                Err(message) => return Some(message),
                Ok(x) => match items.get(x) {
                    Some(next) => item = next,
                    None => return Some("reflect: slice index out of range".to_owned()),
                },
            },
            Value::String(text) => match index_arg(index, text.len()) {
                Err(message) => return Some(message),
                Ok(x) if x == text.len() => {
                    return Some("reflect: string index out of range".to_owned());
                }
                // A byte, which cannot be indexed further.
                Ok(_) => item = &BYTE,
            },
            Value::Map(map) => match index {
                Value::String(key) => match map.get(key) {
                    Some(next) => item = next,
                    None => item = &Value::Nil,
                },
                Value::Nil => return Some("value is nil; should be of type string".to_owned()),
                other => {
                    return Some(format!("value has type {}; should be string", type_name(other)));
                }
            },
            other => return Some(format!("can't index item of type {}", type_name(other))),
        }
    }
    None
}

/// An index beyond a list's length that may still be within its capacity: lists are built
/// by appending (JSON decoding, sprig), which never makes the capacity twice the length.
fn maybe_within_capacity(index: &Value, length: usize) -> bool {
    let bound = u64::try_from(length).unwrap_or(u64::MAX).saturating_mul(2);
    match index {
        Value::Int(x) => u64::try_from(*x).is_ok_and(|x| x <= bound),
        Value::Uint(x) => *x <= bound,
        _ => false,
    }
}

fn slice(item: &Value, indexes: &[Value], kinds: &[Constant]) -> Option<String> {
    let length = match item {
        Value::Nil => return Some("slice of untyped nil".to_owned()),
        _ if indexes.len() > 3 => {
            return Some(format!("too many slice indexes: {}", indexes.len()));
        }
        Value::String(_) if indexes.len() == 3 => {
            return Some("cannot 3-index slice a string".to_owned());
        }
        Value::String(text) => text.len(),
        Value::List(items) => items.len(),
        other => return Some(format!("can't slice item of type {}", type_name(other))),
    };
    let mut bounds = [0, length, length];
    for (i, index) in indexes.iter().enumerate() {
        // `slice` takes its indices as they are: one read from the data is an
        // `interface {}` to Go, whatever it holds (a missing key is no value: `nil`).
        if kinds.get(i) == Some(&Constant::Field) && !matches!(index, Value::Nil) {
            return Some("cannot index slice/array with type interface {}".to_owned());
        }
        match index_arg(index, length) {
            Ok(x) => bounds[i] = x,
            // Go bounds a list's indices by its capacity, which certgate does not know.
            Err(_) if matches!(item, Value::List(_)) && maybe_within_capacity(index, length) => {
                return None;
            }
            Err(message) => return Some(message),
        }
    }
    if bounds[0] > bounds[1] {
        return Some(format!("invalid slice index: {} > {}", bounds[0], bounds[1]));
    }
    if indexes.len() == 3 && bounds[1] > bounds[2] {
        return Some(format!("invalid slice index: {} > {}", bounds[1], bounds[2]));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn s(t: &str) -> Value {
        Value::String(Arc::from(t))
    }

    #[test]
    fn comparisons_fail_with_gos_texts() {
        let check = |name: &str, args: &[Value]| check(name, args, &[]);
        assert_eq!(
            check("lt", &[Value::Float(1.0), Value::Bool(false)]).as_deref(),
            Some("incompatible types for comparison: float64 and bool")
        );
        assert_eq!(
            check("ge", &[Value::List(Arc::from(vec![])), Value::Int(1)]).as_deref(),
            Some(BAD_TYPE)
        );
        assert_eq!(
            check("le", &[Value::Bool(true), Value::Bool(false)]).as_deref(),
            Some(BAD_TYPE)
        );
        assert_eq!(check("gt", &[Value::Int(-1), Value::Uint(3)]), None);
        assert_eq!(
            check("ne", &[Value::Bool(true), s("ab")]).as_deref(),
            Some("incompatible types for comparison: bool and string")
        );
        // `eq` stops at the first match; a nil compares unequal without an error.
        assert_eq!(check("eq", &[Value::Int(1), Value::Int(1), s("a")]), None);
        assert_eq!(check("eq", &[Value::Int(1), Value::Nil]), None);
        assert!(check("eq", &[Value::Int(1), Value::Int(2), s("a")]).is_some());
        let list = Value::List(Arc::from(vec![Value::Int(1)]));
        let map = Value::Map(Arc::default());
        assert_eq!(
            check("ne", &[list.clone(), map.clone()]).as_deref(),
            Some(
                "non-comparable types [%!s(int=1)]: []interface {}, map[string]interface {}: map[]"
            )
        );
        assert_eq!(
            check("eq", &[map.clone(), map]).as_deref(),
            Some("non-comparable type map[]: map[string]interface {}")
        );
    }

    #[test]
    fn len_index_and_slice_fail_with_gos_texts() {
        let check = |name: &str, args: &[Value]| check(name, args, &[]);
        let list = Value::List(Arc::from(vec![Value::Int(1), Value::Nil]));
        assert_eq!(check("len", &[Value::Float(1e3)]).as_deref(), Some("len of type float64"));
        assert_eq!(
            check("len", &[Value::Nil]).as_deref(),
            Some("reflect: call of reflect.Value.Type on zero Value")
        );
        assert_eq!(
            check("index", &[s("ab"), Value::Int(0), Value::Int(1)]).as_deref(),
            Some("can't index item of type uint8")
        );
        let field = [Constant::No, Constant::Field];
        assert_eq!(
            super::check("slice", &[s("abc"), Value::Int(1)], &field).as_deref(),
            Some("cannot index slice/array with type interface {}")
        );
        assert_eq!(
            check("index", &[Value::Int(-3), Value::Nil]).as_deref(),
            Some("can't index item of type int")
        );
        assert_eq!(check("index", &[Value::Nil]).as_deref(), Some("index of untyped nil"));
        assert_eq!(
            check("index", &[list.clone(), Value::Int(1), Value::Int(0)]).as_deref(),
            Some("index of nil pointer")
        );
        assert_eq!(
            check("index", &[list.clone(), Value::Int(2)]).as_deref(),
            Some("reflect: slice index out of range")
        );
        assert_eq!(
            check("index", &[list.clone(), Value::Int(3)]).as_deref(),
            Some("index out of range: 3")
        );
        assert_eq!(
            check("index", &[s("ab"), s("x")]).as_deref(),
            Some("cannot index slice/array with type string")
        );
        assert_eq!(
            check("index", &[Value::Map(Arc::default()), Value::Int(1)]).as_deref(),
            Some("value has type int; should be string")
        );
        assert_eq!(
            check("slice", &[Value::Int(1)]).as_deref(),
            Some("can't slice item of type int")
        );
        assert_eq!(
            check("slice", &[Value::Nil, Value::Int(1)]).as_deref(),
            Some("slice of untyped nil")
        );
        assert_eq!(
            check("slice", &[s("ab"), Value::Int(3)]).as_deref(),
            Some("index out of range: 3")
        );
        assert_eq!(
            check("slice", &[s("ab"), Value::Int(2), Value::Int(1)]).as_deref(),
            Some("invalid slice index: 2 > 1")
        );
        // A list's capacity is Go's bound: unknown here, but below twice its length.
        assert_eq!(check("slice", &[list.clone(), Value::Int(3)]), None);
        assert_eq!(
            check("slice", &[list, Value::Int(5)]).as_deref(),
            Some("index out of range: 5")
        );
        let missing = [Constant::No, Constant::Field];
        assert_eq!(
            super::check("slice", &[s("abc"), Value::Nil], &missing).as_deref(),
            Some("cannot index slice/array with nil")
        );
    }
}
