//! List and set functions on engine values.

use super::{b, err, ints, ip, ok, s};
use crate::value::{Duration, Timestamp, Value};

#[test]
fn list_ordering_functions() {
    assert_eq!(ok("list_int_is_sorted_bool", &[ints(&[1, 2, 2, 3])]), b(true));
    assert_eq!(ok("list_int_is_sorted_bool", &[ints(&[3, 1])]), b(false));
    assert_eq!(ok("list_int_is_sorted_bool", &[ints(&[])]), b(true));
    let strings = Value::list(vec![s("b"), s("a"), s("c")]);
    assert_eq!(ok("list_string_is_sorted_bool", std::slice::from_ref(&strings)), b(false));
    assert_eq!(ok("list_string_min_string", std::slice::from_ref(&strings)), s("a"));
    assert_eq!(ok("list_string_max_string", &[strings]), s("c"));
    assert_eq!(ok("list_int_min_int", &[ints(&[5, -3, 7])]), Value::Int(-3));
    assert_eq!(err("list_int_min_int", &[ints(&[])]), "min called on empty list");
    assert_eq!(err("list_int_max_int", &[ints(&[])]), "max called on empty list");
    // A NaN neither wins nor breaks the order.
    let doubles =
        Value::list(vec![Value::Double(1.0), Value::Double(f64::NAN), Value::Double(0.5)]);
    assert_eq!(ok("list_double_max_double", std::slice::from_ref(&doubles)), Value::Double(1.0));
    assert_eq!(ok("list_double_min_double", &[doubles]), Value::Double(0.5));
    let durations = Value::list(vec![
        Value::Duration(Duration::new(2, 0).expect("2s")),
        Value::Duration(Duration::new(1, 0).expect("1s")),
    ]);
    assert_eq!(
        ok("list_duration_min_duration", &[durations]),
        Value::Duration(Duration::new(1, 0).expect("1s"))
    );
    let times = Value::list(vec![
        Value::Timestamp(Timestamp::from_unix_seconds(1).expect("t1")),
        Value::Timestamp(Timestamp::from_unix_seconds(2).expect("t2")),
    ]);
    assert_eq!(ok("list_timestamp_is_sorted_bool", &[times]), b(true));
    assert!(
        err("list_int_max_int", &[Value::list(vec![Value::Null])])
            .starts_with("no such overload: max")
    );
    assert!(
        err("list_int_is_sorted_bool", &[Value::Int(1)]).starts_with("no such overload: isSorted")
    );
}

#[test]
fn list_sum() {
    assert_eq!(ok("list_int_sum_int", &[ints(&[1, 2, 3])]), Value::Int(6));
    assert_eq!(ok("list_int_sum_int", &[ints(&[])]), Value::Int(0));
    assert_eq!(ok("list_uint_sum_uint", &[Value::list(vec![])]), Value::Uint(0));
    assert_eq!(
        ok("list_double_sum_double", &[Value::list(vec![Value::Double(0.5), Value::Double(0.25)])]),
        Value::Double(0.75)
    );
    assert_eq!(
        ok("list_duration_sum_duration", &[Value::list(vec![])]),
        Value::Duration(Duration::default())
    );
    assert_eq!(err("list_int_sum_int", &[ints(&[i64::MAX, 1])]), "integer overflow");
    assert_eq!(
        err("list_uint_sum_uint", &[Value::list(vec![Value::Uint(u64::MAX), Value::Uint(1)])]),
        "unsigned integer overflow"
    );
}

#[test]
fn list_index_of_uses_cel_equality() {
    let list = Value::list(vec![Value::Int(1), Value::Uint(2), Value::Int(1)]);
    assert_eq!(ok("list_a_index_of_int", &[list.clone(), Value::Double(1.0)]), Value::Int(0));
    assert_eq!(ok("list_a_last_index_of_int", &[list.clone(), Value::Int(1)]), Value::Int(2));
    assert_eq!(ok("list_a_index_of_int", &[list.clone(), Value::Int(2)]), Value::Int(1));
    assert_eq!(ok("list_a_last_index_of_int", &[list, s("x")]), Value::Int(-1));
    let ips = Value::list(vec![ip("10.0.0.1"), ip("::1")]);
    assert_eq!(ok("list_a_index_of_int", &[ips, ip("::1")]), Value::Int(1));
}

#[test]
fn sets() {
    let abc = Value::list(vec![s("a"), s("b"), s("c")]);
    let ca = Value::list(vec![s("c"), s("a"), s("a")]);
    let empty = Value::list(vec![]);
    assert_eq!(ok("list_sets_contains_list", &[abc.clone(), ca.clone()]), b(true));
    assert_eq!(ok("list_sets_contains_list", &[ca.clone(), abc.clone()]), b(false));
    assert_eq!(ok("list_sets_contains_list", &[empty.clone(), empty.clone()]), b(true));
    assert_eq!(ok("list_sets_equivalent_list", &[abc.clone(), ca.clone()]), b(false));
    assert_eq!(
        ok("list_sets_equivalent_list", &[ca.clone(), Value::list(vec![s("a"), s("c")])]),
        b(true)
    );
    assert_eq!(ok("list_sets_intersects_list", &[abc.clone(), ca]), b(true));
    assert_eq!(ok("list_sets_intersects_list", &[abc.clone(), empty]), b(false));
    // Heterogeneous numeric equality, as in Kubernetes (1 == 1.0 == 1u).
    assert_eq!(
        ok(
            "list_sets_contains_list",
            &[ints(&[1, 2]), Value::list(vec![Value::Double(1.0), Value::Uint(2)])]
        ),
        b(true)
    );
    assert!(
        err("list_sets_contains_list", &[abc, s("a")])
            .starts_with("no such overload: sets.contains")
    );
}
