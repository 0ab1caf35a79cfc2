//! Argument access with Go `text/template`'s conversion rules and error texts.
//!
//! Go checks a call's arity and converts each argument to the parameter's static type before
//! the function runs; those failures are not prefixed with `error calling <fn>:`. The helpers
//! here reproduce that step for functions written against `&[Value]`, naming the argument
//! (Go reports a conversion failure at the argument's node).

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::Arc;

use certgate_gotemplate::{FuncError, FuncMap, Value, budget, type_name};

/// The largest list, string or byte count a function will build. Go would happily allocate
/// gigabytes for `repeat 1000000000 "x"`; a template engine serving many tenants must not.
pub const MAX_ELEMENTS: usize = 1_000_000;

pub type Map = BTreeMap<Arc<str>, Value>;

/// How many arguments a function takes (Go's `want N` / `want at least N`).
#[derive(Clone, Copy)]
pub enum Arity {
    Exact(usize),
    AtLeast(usize),
}

/// The arguments of one call, with the function's name for error texts.
pub struct Args<'a> {
    pub name: &'static str,
    pub values: &'a [Value],
    /// Set while probing for Go's first refused argument (see [`reg`]): the accessors record
    /// their refusals here and go on with a placeholder value instead of failing.
    probe: Option<&'a RefCell<Vec<FuncError>>>,
}

impl<'a> Args<'a> {
    /// Argument `i` as `interface{}`: anything, nil included.
    pub fn any(&self, i: usize) -> &'a Value {
        self.values.get(i).unwrap_or(&Value::Nil)
    }

    /// The arguments from `i` on (a variadic tail).
    pub fn rest(&self, i: usize) -> &'a [Value] {
        self.values.get(i..).unwrap_or(&[])
    }

    pub fn str(&self, i: usize) -> Result<&'a str, FuncError> {
        match self.any(i) {
            Value::String(s) => Ok(s),
            other => self.refuse(wrong_type("string", other).at_argument(i), ""),
        }
    }

    /// Go `int` parameter: integers of any width convert, everything else is a type error.
    pub fn int(&self, i: usize) -> Result<i64, FuncError> {
        value_int(self.any(i)).or_else(|e| self.refuse(e.at_argument(i), 0))
    }

    pub fn bool(&self, i: usize) -> Result<bool, FuncError> {
        match self.any(i) {
            Value::Bool(b) => Ok(*b),
            other => self.refuse(wrong_type("bool", other).at_argument(i), false),
        }
    }

    /// `map[string]interface{}` parameter; nil is Go's nil map.
    pub fn map(&self, i: usize) -> Result<Arc<Map>, FuncError> {
        value_map(self.any(i)).or_else(|e| self.refuse(e.at_argument(i), Arc::new(Map::new())))
    }

    /// Fails with `error`, or while probing records it and goes on with `placeholder`.
    fn refuse<T>(&self, error: FuncError, placeholder: T) -> Result<T, FuncError> {
        match self.probe {
            Some(refused) => {
                refused.borrow_mut().push(error);
                Ok(placeholder)
            }
            None => Err(error),
        }
    }
}

pub fn value_int(v: &Value) -> Result<i64, FuncError> {
    match v {
        Value::Int(n) => Ok(*n),
        Value::Uint(n) => i64::try_from(*n).map_err(|_| wrong_type("int", v)),
        other => Err(wrong_type("int", other)),
    }
}

pub fn value_map(v: &Value) -> Result<Arc<Map>, FuncError> {
    match v {
        Value::Map(m) => Ok(m.clone()),
        Value::Nil => Ok(Arc::new(Map::new())),
        other => Err(wrong_type("map[string]interface {}", other)),
    }
}

/// Go's text for an argument that does not convert to the parameter type.
pub fn wrong_type(expected: &str, got: &Value) -> FuncError {
    if matches!(got, Value::Nil) {
        return FuncError::arguments(format!("invalid value; expected {expected}"));
    }
    FuncError::arguments(format!(
        "wrong type for value; expected {expected}; got {}",
        type_name(got)
    ))
}

/// A function's own error (`error calling <fn>: <msg>`).
pub fn call_err(msg: impl Into<String>) -> FuncError {
    FuncError::call(msg)
}

/// Refuses sizes above [`MAX_ELEMENTS`], and results the execution's budget has no room for
/// (`certgate_gotemplate::budget`: many calls below the per-call limit add up).
pub fn check_size(name: &str, n: usize) -> Result<(), FuncError> {
    if n > MAX_ELEMENTS {
        return Err(call_err(format!(
            "{name}: result of {n} elements exceeds certgate's limit of {MAX_ELEMENTS}"
        )));
    }
    budget::check_alloc(n)
}

/// Registers `f` under `name`, checking the argument count first as Go does.
pub fn reg<F>(map: &mut FuncMap, name: &'static str, arity: Arity, f: F)
where
    F: Fn(&Args<'_>) -> Result<Value, FuncError> + Send + Sync + 'static,
{
    map.insert(name, move |values: &[Value]| {
        let n = values.len();
        match arity {
            Arity::Exact(want) if n != want => {
                return Err(FuncError::arguments(format!(
                    "wrong number of args for {name}: want {want} got {n}"
                )));
            }
            Arity::AtLeast(want) if n < want => {
                return Err(FuncError::arguments(format!(
                    "wrong number of args for {name}: want at least {want} got {n}"
                )));
            }
            _ => {}
        }
        match f(&Args { name, values, probe: None }) {
            // Go converts the arguments in order before the call, so the first refused one
            // is reported; a function may check them in another order. Run it once more,
            // refusing nothing, to find an earlier argument it refuses.
            Err(error) if error.argument().is_some_and(|i| i > 0) => {
                let refused = RefCell::new(Vec::new());
                let _ = f(&Args { name, values, probe: Some(&refused) });
                let earlier = refused
                    .into_inner()
                    .into_iter()
                    .filter(|e| e.argument() < error.argument())
                    .min_by_key(FuncError::argument);
                Err(earlier.unwrap_or(error))
            }
            other => other,
        }
    });
}

pub fn s(v: impl AsRef<str>) -> Value {
    Value::String(Arc::from(v.as_ref()))
}

pub fn list(items: Vec<Value>) -> Value {
    Value::List(Arc::from(items))
}

pub fn str_list(items: impl IntoIterator<Item = impl AsRef<str>>) -> Value {
    list(items.into_iter().map(s).collect())
}

pub fn map_value(m: Map) -> Value {
    Value::Map(Arc::new(m))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Go refuses the first argument that does not convert, whatever order the function
    /// reads them in.
    #[test]
    fn the_first_refused_argument_is_reported() {
        let mut m = FuncMap::new();
        reg(&mut m, "f", Arity::Exact(3), |a| {
            let (last, first) = (a.str(2)?, a.int(0)?);
            Ok(s(format!("{first}{last}")))
        });
        let f = m.get("f").cloned().expect("registered");
        let refused = f(&[s("x"), Value::Int(1), Value::Bool(true)]).expect_err("refused");
        assert_eq!(refused.argument(), Some(0));
        assert_eq!(refused.render("f"), "wrong type for value; expected int; got string");
        let refused = f(&[Value::Int(1), Value::Int(1), Value::Bool(true)]).expect_err("refused");
        assert_eq!(refused.argument(), Some(2));
        assert!(f(&[Value::Int(1), Value::Nil, s("a")]).is_ok());
    }
}
