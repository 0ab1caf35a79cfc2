//! `size`, `in` and indexing.

use super::{call, error, ints, map, s};
use crate::value::Value;

#[test]
fn size_counts_code_points_bytes_elements_and_entries() {
    let cases = [
        ("size_string", s("πέντε"), 5),
        ("string_size", s(""), 0),
        ("size_bytes", Value::bytes(b"abc"), 3),
        ("bytes_size", Value::bytes("ÿ".as_bytes()), 2),
        ("size_list", ints(&[1, 2, 3]), 3),
        ("list_size", ints(&[]), 0),
        ("size_map", map(vec![(Value::Int(1), s("one")), (Value::Int(2), s("two"))]), 2),
        ("map_size", map(vec![]), 0),
    ];
    for (id, v, expected) in cases {
        assert_eq!(call(id, &[v]), Ok(Value::Int(expected)), "{id}");
    }
    assert_eq!(error("size_string", &[Value::Int(1)]), "no such overload: size(int)");
}

#[test]
fn in_list_uses_heterogeneous_equality() {
    let list = ints(&[5, 4, 3, 2, 1]);
    assert_eq!(call("in_list", &[Value::Double(3.0), list.clone()]), Ok(Value::Bool(true)));
    assert_eq!(call("in_list", &[Value::Uint(3), list.clone()]), Ok(Value::Bool(true)));
    assert_eq!(call("in_list", &[Value::Int(7), list]), Ok(Value::Bool(false)));
    assert_eq!(
        call("in_list", &[s("alpha"), Value::list(vec![s("alpha")])]),
        Ok(Value::Bool(true))
    );
    assert_eq!(error("in_list", &[Value::Int(1), s("1")]), "no such overload: @in(int, string)");
}

#[test]
fn in_map_finds_keys_across_numeric_kinds() {
    let m = map(vec![(Value::Uint(3), s("three")), (s("k"), s("v"))]);
    assert_eq!(call("in_map", &[Value::Double(3.0), m.clone()]), Ok(Value::Bool(true)));
    assert_eq!(call("in_map", &[Value::Int(3), m.clone()]), Ok(Value::Bool(true)));
    assert_eq!(call("in_map", &[Value::Double(3.1), m.clone()]), Ok(Value::Bool(false)));
    assert_eq!(call("in_map", &[s("v"), m]), Ok(Value::Bool(false)));
}

#[test]
fn list_index_accepts_int_uint_and_integral_double() {
    let list = ints(&[7, 8, 9]);
    assert_eq!(call("index_list", &[list.clone(), Value::Int(0)]), Ok(Value::Int(7)));
    assert_eq!(call("index_list", &[list.clone(), Value::Uint(2)]), Ok(Value::Int(9)));
    assert_eq!(call("index_list", &[list.clone(), Value::Double(1.0)]), Ok(Value::Int(8)));
    assert_eq!(
        error("index_list", &[list.clone(), Value::Double(0.1)]),
        "unsupported index value 0.1 in list"
    );
    assert_eq!(error("index_list", &[list.clone(), Value::Int(3)]), "index out of bounds: 3");
    assert_eq!(error("index_list", &[list.clone(), Value::Int(-1)]), "index out of bounds: -1");
    assert_eq!(
        error("index_list", &[list.clone(), Value::Uint(u64::MAX)]),
        "index out of bounds: 18446744073709551615"
    );
    assert_eq!(
        error("index_list", &[list.clone(), Value::Double(1e300)]),
        "index out of bounds: 1e+300"
    );
    assert_eq!(error("index_list", &[list, s("")]), "no such overload: _[_](list(dyn), string)");
}

#[test]
fn map_index_finds_keys_or_names_the_missing_one() {
    let m = map(vec![
        (Value::Uint(1), Value::Double(1.0)),
        (Value::Int(2), Value::Double(2.0)),
        (Value::Uint(3), Value::Double(3.0)),
    ]);
    assert_eq!(call("index_map", &[m.clone(), Value::Double(3.0)]), Ok(Value::Double(3.0)));
    assert_eq!(call("index_map", &[m.clone(), Value::Uint(2)]), Ok(Value::Double(2.0)));
    assert_eq!(error("index_map", &[m.clone(), Value::Double(3.1)]), "no such key: 3.1");
    assert_eq!(error("index_map", &[m, Value::Int(4)]), "no such key: 4");
    let named = map(vec![(s("holiday"), s("field"))]);
    assert_eq!(error("index_map", &[named, s("name")]), "no such key: name");
    let mixed = map(vec![(Value::Bool(true), Value::Int(1)), (Value::Int(2), Value::Int(2))]);
    assert_eq!(call("index_map", &[mixed, Value::Bool(true)]), Ok(Value::Int(1)));
    assert_eq!(error("index_map", &[s("x"), s("y")]), "no such overload: _[_](string, string)");
}
