//! Tests of the standard library implementations, called through the full function
//! table as the evaluator calls them. Expected values and error texts come from
//! cel-spec's conformance data and cel-go's behaviour.

mod containers;
mod coverage;
mod operators;
mod text;
mod time;

use crate::eval::{FnResult, Functions};
use crate::value::{MapValue, Value, to_duration, to_timestamp};

/// Calls overload `id` of the full library with `args`.
fn call(id: &str, args: &[Value]) -> FnResult {
    let functions = Functions::full_library();
    let Some(implementation) = functions.get(id) else {
        panic!("overload {id} has no implementation");
    };
    implementation.call(args)
}

/// The error text of a call that must fail.
fn error(id: &str, args: &[Value]) -> String {
    match call(id, args) {
        Ok(v) => panic!("{id}{args:?} returned {v:?}, expected an error"),
        Err(e) => e.to_string(),
    }
}

fn s(text: &str) -> Value {
    Value::string(text)
}

fn ints(items: &[i64]) -> Value {
    Value::list(items.iter().map(|i| Value::Int(*i)).collect())
}

fn map(entries: Vec<(Value, Value)>) -> Value {
    match MapValue::from_entries(entries) {
        Ok(m) => Value::Map(m),
        Err(e) => panic!("bad test map: {e}"),
    }
}

fn timestamp(text: &str) -> Value {
    match to_timestamp(&s(text)) {
        Ok(v) => v,
        Err(e) => panic!("bad test timestamp {text}: {e}"),
    }
}

fn duration(text: &str) -> Value {
    match to_duration(&s(text)) {
        Ok(v) => v,
        Err(e) => panic!("bad test duration {text}: {e}"),
    }
}
