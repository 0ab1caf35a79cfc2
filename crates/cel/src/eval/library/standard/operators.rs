//! Operators and conversions: `==`, `!=`, `<`, `<=`, `>`, `>=`, `!`, arithmetic, and
//! the type conversion functions.

use std::cmp::Ordering;

use crate::check::Type;
use crate::eval::{FnResult, Functions, Impl};
use crate::value::{self, Value, ValueError};

/// Type names of the same-type ordering overloads (`less_int64`...), as declared.
const ORDERED: [&str; 8] =
    ["bool", "int64", "uint64", "double", "string", "bytes", "timestamp", "duration"];

/// Operand names of the cross-type numeric ordering overloads (`less_int64_double`...).
const CROSS_NUMERIC: [&str; 6] = [
    "int64_double",
    "int64_uint64",
    "uint64_double",
    "uint64_int64",
    "double_int64",
    "double_uint64",
];

pub(super) fn register(functions: &mut Functions) {
    functions.add("equals", Impl::Binary(|a, b| Ok(Value::Bool(a == b))));
    functions.add("not_equals", Impl::Binary(|a, b| Ok(Value::Bool(a != b))));
    functions.add("logical_not", Impl::Unary(logical_not));
    register_ordering(functions);
    register_arithmetic(functions);
    register_conversions(functions);
}

fn logical_not(v: &Value) -> FnResult {
    match v {
        Value::Bool(b) => Ok(Value::Bool(!b)),
        _ => Err(ValueError::no_overload("!_", &[v])),
    }
}

fn register_ordering(functions: &mut Functions) {
    let operators: [(&str, Impl); 4] = [
        ("less", Impl::Binary(|a, b| ordered("_<_", a, b, Ordering::is_lt))),
        ("less_equals", Impl::Binary(|a, b| ordered("_<=_", a, b, Ordering::is_le))),
        ("greater", Impl::Binary(|a, b| ordered("_>_", a, b, Ordering::is_gt))),
        ("greater_equals", Impl::Binary(|a, b| ordered("_>=_", a, b, Ordering::is_ge))),
    ];
    for (prefix, implementation) in operators {
        for operands in ORDERED.iter().chain(CROSS_NUMERIC.iter()) {
            functions.add(format!("{prefix}_{operands}"), implementation);
        }
    }
}

/// An ordering operator: `holds` of the operands' order, `false` when a NaN makes
/// them unordered (as IEEE comparisons are).
fn ordered(operator: &str, a: &Value, b: &Value, holds: fn(Ordering) -> bool) -> FnResult {
    match value::compare(a, b) {
        Ok(ord) => Ok(Value::Bool(ord.is_some_and(holds))),
        // `compare` names `_<_` in its error; report the operator actually used.
        Err(_) => Err(ValueError::no_overload(operator, &[a, b])),
    }
}

fn register_arithmetic(functions: &mut Functions) {
    let binary: [(&[&str], Impl); 5] = [
        (
            &[
                "add_bytes",
                "add_double",
                "add_duration_duration",
                "add_duration_timestamp",
                "add_timestamp_duration",
                "add_int64",
                "add_list",
                "add_string",
                "add_uint64",
            ],
            Impl::Binary(value::add),
        ),
        (
            &[
                "subtract_double",
                "subtract_duration_duration",
                "subtract_int64",
                "subtract_timestamp_duration",
                "subtract_timestamp_timestamp",
                "subtract_uint64",
            ],
            Impl::Binary(value::sub),
        ),
        (&["multiply_double", "multiply_int64", "multiply_uint64"], Impl::Binary(value::mul)),
        (&["divide_double", "divide_int64", "divide_uint64"], Impl::Binary(value::div)),
        (&["modulo_int64", "modulo_uint64"], Impl::Binary(value::rem)),
    ];
    for (ids, implementation) in binary {
        for id in ids {
            functions.add(*id, implementation);
        }
    }
    for id in ["negate_double", "negate_int64"] {
        functions.add(id, Impl::Unary(value::neg));
    }
}

fn register_conversions(functions: &mut Functions) {
    let conversions: [(&[&str], Impl); 8] = [
        (
            &[
                "int64_to_int64",
                "uint64_to_int64",
                "double_to_int64",
                "string_to_int64",
                "timestamp_to_int64",
                "duration_to_int64",
            ],
            Impl::Unary(to_int),
        ),
        (
            &["uint64_to_uint64", "int64_to_uint64", "double_to_uint64", "string_to_uint64"],
            Impl::Unary(value::to_uint),
        ),
        (
            &["double_to_double", "int64_to_double", "uint64_to_double", "string_to_double"],
            Impl::Unary(value::to_double),
        ),
        (
            &[
                "string_to_string",
                "bool_to_string",
                "int64_to_string",
                "uint64_to_string",
                "double_to_string",
                "bytes_to_string",
                "timestamp_to_string",
                "duration_to_string",
            ],
            Impl::Unary(value::to_string),
        ),
        (&["bytes_to_bytes", "string_to_bytes"], Impl::Unary(value::to_bytes)),
        (&["bool_to_bool", "string_to_bool"], Impl::Unary(value::to_bool)),
        (&["duration_to_duration", "string_to_duration"], Impl::Unary(value::to_duration)),
        (
            &["timestamp_to_timestamp", "string_to_timestamp", "int64_to_timestamp"],
            Impl::Unary(value::to_timestamp),
        ),
    ];
    for (ids, implementation) in conversions {
        for id in ids {
            functions.add(*id, implementation);
        }
    }
    functions.add("to_dyn", Impl::Unary(|v| Ok(value::to_dyn(v))));
    functions.add("type", Impl::Unary(type_of));
}

/// `int(v)`: [`value::to_int`], plus durations, which it does not cover: a duration
/// converts to its whole nanoseconds, as cel-go does (durations beyond ±292 years do
/// not fit and are range errors).
fn to_int(v: &Value) -> FnResult {
    match v {
        Value::Duration(d) => i64::try_from(d.total_nanos())
            .map(Value::Int)
            .map_err(|_| ValueError::Range { value: d.to_string(), target: "int" }),
        _ => value::to_int(v),
    }
}

/// `type(v)`. Every type value has the same type, `type`, whatever type it denotes
/// (cel-go has a single parameterless `type` type), so `type(type(1))` equals
/// `type(type(1u))`; the value model spells that type `type(dyn)`.
fn type_of(v: &Value) -> FnResult {
    match v {
        Value::Type(_) => Ok(Value::Type(Type::type_of(Type::Dyn))),
        _ => Ok(value::type_value(v)),
    }
}
