//! Kubernetes' list and set functions on lists of engine values.
//!
//! The algorithms are [`crate::k8s::lists`] and [`crate::k8s::sets`]; elements are
//! ordered with CEL's ordering ([`crate::value::compare`]) and compared with CEL
//! equality. As in Kubernetes, a pair that has no order (a NaN, or mixed kinds in a
//! `dyn` list) neither breaks `isSorted` nor changes `min`/`max`.

use std::cmp::Ordering;

use crate::eval::{Functions, Impl};
use crate::k8s;
use crate::value::{Duration, Value, ValueError, add, compare};

/// Suffixes of the overload ids of the element types `isSorted`, `min` and `max` accept.
const COMPARABLE: [&str; 8] =
    ["int", "uint", "double", "bool", "duration", "timestamp", "string", "bytes"];

pub(super) fn register(functions: &mut Functions) {
    for name in COMPARABLE {
        functions.add(format!("list_{name}_is_sorted_bool"), Impl::Unary(is_sorted));
        functions.add(format!("list_{name}_min_{name}"), Impl::Unary(min));
        functions.add(format!("list_{name}_max_{name}"), Impl::Unary(max));
    }
    functions.add("list_int_sum_int", Impl::Unary(|l| sum(l, Value::Int(0))));
    functions.add("list_uint_sum_uint", Impl::Unary(|l| sum(l, Value::Uint(0))));
    functions.add("list_double_sum_double", Impl::Unary(|l| sum(l, Value::Double(0.0))));
    functions.add(
        "list_duration_sum_duration",
        Impl::Unary(|l| sum(l, Value::Duration(Duration::default()))),
    );
    functions.add("list_a_index_of_int", Impl::Binary(index_of));
    functions.add("list_a_last_index_of_int", Impl::Binary(last_index_of));
    functions.add("list_sets_contains_list", Impl::Binary(sets_contains));
    functions.add("list_sets_equivalent_list", Impl::Binary(sets_equivalent));
    functions.add("list_sets_intersects_list", Impl::Binary(sets_intersects));
}

/// A list element under CEL ordering.
#[derive(Clone, Copy, Debug)]
struct Ordered<'a>(&'a Value);

impl PartialEq for Ordered<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.partial_cmp(other) == Some(Ordering::Equal)
    }
}

impl PartialOrd for Ordered<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        compare(self.0, other.0).ok().flatten()
    }
}

/// The elements of an orderable list, or "no such overload" naming `function` when the
/// value is not a list or holds an element of a kind without an order.
fn ordered<'a>(list: &'a Value, function: &str) -> Result<Vec<Ordered<'a>>, ValueError> {
    let Value::List(items) = list else {
        return Err(ValueError::no_overload(function, &[list]));
    };
    items
        .iter()
        .map(|item| match item {
            Value::Int(_)
            | Value::Uint(_)
            | Value::Double(_)
            | Value::Bool(_)
            | Value::String(_)
            | Value::Bytes(_)
            | Value::Duration(_)
            | Value::Timestamp(_) => Ok(Ordered(item)),
            _ => Err(ValueError::no_overload(function, &[list])),
        })
        .collect()
}

fn elements<'a>(
    list: &'a Value,
    function: &str,
    args: &[&Value],
) -> Result<&'a [Value], ValueError> {
    match list {
        Value::List(items) => Ok(items),
        _ => Err(ValueError::no_overload(function, args)),
    }
}

/// `list.isSorted()`.
fn is_sorted(list: &Value) -> Result<Value, ValueError> {
    Ok(Value::Bool(k8s::is_sorted(&ordered(list, "isSorted")?)))
}

/// `list.min()`: an empty list is an error.
fn min(list: &Value) -> Result<Value, ValueError> {
    k8s::min(&ordered(list, "min")?).map(|m| m.0.clone()).map_err(super::message)
}

/// `list.max()`: an empty list is an error.
fn max(list: &Value) -> Result<Value, ValueError> {
    k8s::max(&ordered(list, "max")?).map(|m| m.0.clone()).map_err(super::message)
}

/// `list.sum()`: `zero` plus every element with CEL's `+` (and its overflow errors).
fn sum(list: &Value, zero: Value) -> Result<Value, ValueError> {
    elements(list, "sum", &[list])?.iter().try_fold(zero, |acc, item| add(&acc, item))
}

/// `list.indexOf(value)`: the first index of an equal element, or -1.
fn index_of(list: &Value, value: &Value) -> Result<Value, ValueError> {
    Ok(Value::Int(k8s::index_of(elements(list, "indexOf", &[list, value])?, value)))
}

/// `list.lastIndexOf(value)`: the last index of an equal element, or -1.
fn last_index_of(list: &Value, value: &Value) -> Result<Value, ValueError> {
    Ok(Value::Int(k8s::last_index_of(elements(list, "lastIndexOf", &[list, value])?, value)))
}

fn two_lists<'a>(
    a: &'a Value,
    b: &'a Value,
    function: &str,
) -> Result<(&'a [Value], &'a [Value]), ValueError> {
    match (a, b) {
        (Value::List(x), Value::List(y)) => Ok((x, y)),
        _ => Err(ValueError::no_overload(function, &[a, b])),
    }
}

/// `sets.contains(list, sublist)`.
fn sets_contains(a: &Value, b: &Value) -> Result<Value, ValueError> {
    let (list, sublist) = two_lists(a, b, "sets.contains")?;
    Ok(Value::Bool(k8s::contains(list, sublist)))
}

/// `sets.equivalent(a, b)`.
fn sets_equivalent(a: &Value, b: &Value) -> Result<Value, ValueError> {
    let (x, y) = two_lists(a, b, "sets.equivalent")?;
    Ok(Value::Bool(k8s::equivalent(x, y)))
}

/// `sets.intersects(a, b)`.
fn sets_intersects(a: &Value, b: &Value) -> Result<Value, ValueError> {
    let (x, y) = two_lists(a, b, "sets.intersects")?;
    Ok(Value::Bool(k8s::intersects(x, y)))
}
