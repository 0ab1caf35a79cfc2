//! Shared helpers: call a sprig function by name with template values.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::sync::Arc;

use certgate_gotemplate::{FuncError, Value};

pub fn call(name: &str, args: &[Value]) -> Result<Value, FuncError> {
    let funcs = certgate_sprig::functions();
    let f = funcs.get(name).unwrap_or_else(|| panic!("no function {name}"));
    f(args)
}

/// Calls and expects success.
pub fn ok(name: &str, args: &[Value]) -> Value {
    call(name, args).unwrap_or_else(|e| panic!("{name}{args:?} failed: {e}"))
}

/// Calls and expects a function error (`error calling <fn>: …`); returns its message.
pub fn call_err(name: &str, args: &[Value]) -> String {
    match call(name, args) {
        Ok(v) => panic!("{name}{args:?} returned {v:?}, expected an error"),
        Err(e) => {
            assert!(e.is_call_error(), "{name}: expected a call error, got argument error {e}");
            e.message().to_string()
        }
    }
}

/// Calls and expects an argument error (Go's conversion or arity check); returns its message.
pub fn arg_err(name: &str, args: &[Value]) -> String {
    match call(name, args) {
        Ok(v) => panic!("{name}{args:?} returned {v:?}, expected an error"),
        Err(e) => {
            assert!(!e.is_call_error(), "{name}: expected an argument error, got call error {e}");
            e.message().to_string()
        }
    }
}

pub fn s(v: &str) -> Value {
    Value::String(Arc::from(v))
}

pub fn i(v: i64) -> Value {
    Value::Int(v)
}

pub fn f(v: f64) -> Value {
    Value::Float(v)
}

pub fn b(v: bool) -> Value {
    Value::Bool(v)
}

pub fn l(items: Vec<Value>) -> Value {
    Value::List(Arc::from(items))
}

pub fn sl(items: &[&str]) -> Value {
    l(items.iter().map(|x| s(x)).collect())
}

pub fn il(items: &[i64]) -> Value {
    l(items.iter().map(|x| i(*x)).collect())
}

pub fn d(pairs: &[(&str, Value)]) -> Value {
    let m: BTreeMap<Arc<str>, Value> =
        pairs.iter().map(|(k, v)| (Arc::from(*k), v.clone())).collect();
    Value::Map(Arc::new(m))
}

pub fn nil() -> Value {
    Value::Nil
}

/// Runs a table of (function, args, expected value).
pub fn table(rows: &[(&str, Vec<Value>, Value)]) {
    for (name, args, want) in rows {
        let got = ok(name, args);
        assert_eq!(&got, want, "{name} {args:?}");
    }
}

/// Runs a table of (function, args, expected call-error text).
pub fn err_table(rows: &[(&str, Vec<Value>, &str)]) {
    for (name, args, want) in rows {
        assert_eq!(call_err(name, args), *want, "{name} {args:?}");
    }
}
