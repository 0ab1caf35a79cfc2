//! The optional-value library through the function table; behaviour and texts from the
//! cel-spec `optionals` conformance file and cel-go.

use crate::eval::Functions;
use crate::value::{
    Duration, MIN_TIMESTAMP_SECONDS, MapValue, ObjectValue, Timestamp, Value, ValueError,
};

fn call(id: &str, args: &[Value]) -> Result<Value, ValueError> {
    let implementation =
        Functions::full_library().get(id).unwrap_or_else(|| panic!("no implementation of {id}"));
    implementation.call(args)
}

fn some(v: Value) -> Value {
    Value::Optional(Some(Box::new(v)))
}

fn none() -> Value {
    Value::Optional(None)
}

fn s(text: &str) -> Value {
    Value::string(text)
}

fn map(entries: Vec<(Value, Value)>) -> Value {
    Value::Map(MapValue::from_entries(entries).expect("map"))
}

#[test]
fn every_declared_overload_is_implemented_with_its_arity() {
    let checked = crate::eval::library::coverage::implemented_overloads(
        crate::check::add_optionals,
        &["select_optional_field"],
    );
    assert_eq!(checked, 14);
}

#[test]
fn of_none_and_has_value() {
    assert_eq!(call("optional_of", &[Value::Null]), Ok(some(Value::Null)));
    assert_eq!(call("optional_hasValue", &[some(Value::Null)]), Ok(Value::Bool(true)));
    assert_eq!(call("optional_none", &[]), Ok(none()));
    assert_eq!(call("optional_hasValue", &[none()]), Ok(Value::Bool(false)));
}

#[test]
fn of_non_zero_value_drops_zero_values() {
    let zeros = [
        Value::Null,
        Value::Bool(false),
        Value::Int(0),
        Value::Uint(0),
        Value::Double(0.0),
        Value::Double(-0.0),
        s(""),
        Value::bytes(b""),
        Value::list(vec![]),
        map(vec![]),
        Value::Duration(Duration::default()),
        Value::Timestamp(Timestamp::from_unix_seconds(MIN_TIMESTAMP_SECONDS).expect("year 1")),
        Value::Object(ObjectValue::new("T", vec![])),
    ];
    for zero in zeros {
        assert_eq!(
            call("optional_ofNonZeroValue", std::slice::from_ref(&zero)),
            Ok(none()),
            "{zero:?}"
        );
    }
    let non_zeros = [
        Value::Bool(true),
        Value::Int(42),
        Value::Uint(1),
        Value::Double(f64::MIN_POSITIVE),
        s(" "),
        Value::bytes(b"\0"),
        Value::list(vec![Value::Null]),
        Value::Duration(Duration::new(0, 1).expect("1ns")),
        Value::Timestamp(Timestamp::from_unix_seconds(0).expect("epoch")),
        none(),
        some(Value::Int(0)),
        Value::Object(ObjectValue::new("T", vec![("f".into(), Value::Int(0))])),
    ];
    for value in non_zeros {
        assert_eq!(
            call("optional_ofNonZeroValue", std::slice::from_ref(&value)),
            Ok(some(value.clone())),
            "{value:?}"
        );
    }
}

#[test]
fn value_of_none_is_an_error() {
    assert_eq!(call("optional_value", &[some(s("foo"))]), Ok(s("foo")));
    assert_eq!(
        call("optional_value", &[none()]),
        Err(ValueError::Message("optional.none() dereference".to_owned()))
    );
}

#[test]
fn or_and_or_value() {
    // optional.none().or(optional.none()).orValue(42) == 42
    let either = call("optional_or_optional", &[none(), none()]).expect("or");
    assert_eq!(call("optional_orValue_value", &[either, Value::Int(42)]), Ok(Value::Int(42)));
    // optional.ofNonZeroValue(42).or(optional.of(20)).value() == 42
    assert_eq!(
        call("optional_or_optional", &[some(Value::Int(42)), some(Value::Int(20))]),
        Ok(some(Value::Int(42)))
    );
    assert_eq!(
        call("optional_or_optional", &[none(), some(Value::Int(20))]),
        Ok(some(Value::Int(20)))
    );
    assert_eq!(call("optional_orValue_value", &[some(s("a")), s("b")]), Ok(s("a")));
}

#[test]
fn unwrap_keeps_present_values_in_order() {
    let list = Value::list(vec![some(Value::Int(1)), none(), some(Value::Int(3))]);
    assert_eq!(
        call("optional_unwrap", &[list]),
        Ok(Value::list(vec![Value::Int(1), Value::Int(3)]))
    );
    let not_optionals = Value::list(vec![Value::Int(1)]);
    assert!(call("optional_unwrap", &[not_optionals]).is_err());
}

#[test]
fn optional_index_on_lists() {
    let foo = Value::list(vec![s("foo")]);
    // ['foo'][?0].value() == 'foo'; [][?0].hasValue() == false
    assert_eq!(
        call("list_optindex_optional_int", &[foo.clone(), Value::Int(0)]),
        Ok(some(s("foo")))
    );
    assert_eq!(
        call("list_optindex_optional_int", &[Value::list(vec![]), Value::Int(0)]),
        Ok(none())
    );
    assert_eq!(call("list_optindex_optional_int", &[foo.clone(), Value::Int(-1)]), Ok(none()));
    assert_eq!(
        call("list_optindex_optional_int", &[foo.clone(), Value::Uint(0)]),
        Ok(some(s("foo")))
    );
    assert_eq!(
        call("list_optindex_optional_int", &[foo.clone(), Value::Double(0.0)]),
        Ok(some(s("foo")))
    );
    assert_eq!(call("list_optindex_optional_int", &[foo.clone(), Value::Double(0.5)]), Ok(none()));
    // optional.of(['foo'])[?0], optional.of([])[?0], optional.none()[?0]
    assert_eq!(
        call("optional_list_optindex_optional_int", &[some(foo.clone()), Value::Int(0)]),
        Ok(some(s("foo")))
    );
    assert_eq!(
        call("optional_list_optindex_optional_int", &[some(Value::list(vec![])), Value::Int(0)]),
        Ok(none())
    );
    assert_eq!(call("optional_list_optindex_optional_int", &[none(), Value::Int(0)]), Ok(none()));
    // optional.of(['list-value'])[0] and optional.none()[0]
    assert_eq!(
        call("optional_list_index_int", &[some(Value::list(vec![s("list-value")])), Value::Int(0)]),
        Ok(some(s("list-value")))
    );
    assert_eq!(call("optional_list_index_int", &[none(), Value::Int(0)]), Ok(none()));
    assert!(call("list_optindex_optional_int", &[foo, s("0")]).is_err());
}

#[test]
fn optional_index_on_maps() {
    let mixed = map(vec![
        (Value::Bool(true), Value::Int(1)),
        (Value::Int(2), Value::Int(2)),
        (Value::Uint(5), Value::Int(3)),
    ]);
    assert_eq!(
        call("map_optindex_optional_value", &[mixed.clone(), Value::Bool(true)]),
        Ok(some(Value::Int(1)))
    );
    assert_eq!(
        call("map_optindex_optional_value", &[mixed.clone(), Value::Bool(false)]),
        Ok(none())
    );
    let numbers = map(vec![
        (Value::Uint(1), Value::Double(1.0)),
        (Value::Int(2), Value::Double(2.0)),
        (Value::Uint(3), Value::Double(3.0)),
    ]);
    for (key, want) in [(Value::Double(3.0), 3.0), (Value::Uint(2), 2.0), (Value::Int(1), 1.0)] {
        assert_eq!(
            call("map_optindex_optional_value", &[numbers.clone(), key]),
            Ok(some(Value::Double(want)))
        );
    }
    assert_eq!(call("map_optindex_optional_value", &[numbers, Value::Double(1.5)]), Ok(none()));
    // {'c': {}}.c[?'missing-index'] and optional.of({'c': {}}).c['missing']
    let c = map(vec![(s("index"), s("goodbye"))]);
    assert_eq!(
        call("optional_map_optindex_optional_value", &[some(c.clone()), s("index")]),
        Ok(some(s("goodbye")))
    );
    assert_eq!(call("optional_map_index_value", &[some(c.clone()), s("missing")]), Ok(none()));
    assert_eq!(call("optional_map_index_value", &[none(), s("missing")]), Ok(none()));
    assert_eq!(
        call("map_optindex_optional_value", &[c, Value::list(vec![])]),
        Err(ValueError::UnsupportedKey { kind: "list(dyn)".to_owned() })
    );
}

#[test]
fn wrong_kinds_are_no_such_overload() {
    let cases: &[(&str, &[Value])] = &[
        ("optional_hasValue", &[Value::Int(1)]),
        ("optional_value", &[Value::Int(1)]),
        ("optional_or_optional", &[Value::Int(1), none()]),
        ("optional_or_optional", &[none(), Value::Int(1)]),
        ("optional_orValue_value", &[Value::Int(1), Value::Int(2)]),
        ("map_optindex_optional_value", &[Value::Int(1), Value::Int(2)]),
    ];
    for (id, args) in cases {
        let message = call(id, args).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(message.starts_with("no such overload"), "{id}{args:?}: {message}");
    }
}
