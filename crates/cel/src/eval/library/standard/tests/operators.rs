//! Equality, ordering, `!`, arithmetic and conversions.

use super::{call, duration, error, ints, s, timestamp};
use crate::check::Type;
use crate::value::Value;

#[test]
fn equality_is_heterogeneous_for_numbers_and_deep_for_lists() {
    let cases = [
        (Value::Int(1), Value::Uint(1), true),
        (Value::Int(1), Value::Double(1.0), true),
        (Value::Double(f64::NAN), Value::Double(f64::NAN), false),
        (ints(&[1, 2]), Value::list(vec![Value::Uint(1), Value::Double(2.0)]), true),
        (s("a"), Value::Int(1), false),
        (Value::Null, Value::Null, true),
    ];
    for (a, b, equal) in cases {
        assert_eq!(
            call("equals", &[a.clone(), b.clone()]),
            Ok(Value::Bool(equal)),
            "{a:?} == {b:?}"
        );
        assert_eq!(
            call("not_equals", &[a.clone(), b.clone()]),
            Ok(Value::Bool(!equal)),
            "{a:?} != {b:?}"
        );
    }
}

#[test]
fn ordering_operators_compare_within_and_across_numeric_kinds() {
    let two = || Value::Int(2);
    let cases = [
        ("less_int64", two(), Value::Int(3), true),
        ("less_int64_double", two(), Value::Double(2.5), true),
        ("less_uint64_int64", Value::Uint(3), two(), false),
        ("less_equals_int64", two(), two(), true),
        ("less_equals_double_uint64", Value::Double(2.0), Value::Uint(2), true),
        ("greater_string", s("b"), s("a"), true),
        ("greater_bytes", Value::bytes(b"a"), Value::bytes(b"b"), false),
        ("greater_bool", Value::Bool(true), Value::Bool(false), true),
        ("greater_equals_duration", duration("200s"), duration("200s"), true),
        (
            "greater_equals_timestamp",
            timestamp("2009-02-13T22:58:00Z"),
            timestamp("2009-02-13T23:00:00Z"),
            false,
        ),
        (
            "less_timestamp",
            timestamp("2009-02-13T23:00:00Z"),
            timestamp("2009-03-13T23:00:00Z"),
            true,
        ),
    ];
    for (id, a, b, expected) in cases {
        assert_eq!(call(id, &[a, b]), Ok(Value::Bool(expected)), "{id}");
    }
}

#[test]
fn every_ordering_with_nan_is_false() {
    for id in ["less_double", "less_equals_double", "greater_double", "greater_equals_double"] {
        assert_eq!(
            call(id, &[Value::Double(f64::NAN), Value::Double(1.0)]),
            Ok(Value::Bool(false)),
            "{id}"
        );
    }
    assert_eq!(
        call("greater_equals_int64_double", &[Value::Int(1), Value::Double(f64::NAN)]),
        Ok(Value::Bool(false))
    );
}

#[test]
fn ordering_unordered_kinds_is_no_such_overload_naming_the_operator() {
    assert_eq!(
        error("less_string", &[s("foo"), Value::Int(1024)]),
        "no such overload: _<_(string, int)"
    );
    assert_eq!(
        error("greater_bool", &[Value::Null, Value::Null]),
        "no such overload: _>_(null_type, null_type)"
    );
    assert_eq!(
        error("less_equals_int64", &[ints(&[0]), ints(&[0])]),
        "no such overload: _<=_(list(dyn), list(dyn))"
    );
    assert_eq!(
        error("greater_equals_double", &[s("foo"), Value::Double(1.0)]),
        "no such overload: _>=_(string, double)"
    );
}

#[test]
fn logical_not_negates_bools_only() {
    assert_eq!(call("logical_not", &[Value::Bool(true)]), Ok(Value::Bool(false)));
    assert_eq!(error("logical_not", &[Value::Int(0)]), "no such overload: !_(int)");
}

#[test]
fn arithmetic_follows_cel_overflow_rules() {
    assert_eq!(call("add_int64", &[Value::Int(1), Value::Int(1)]), Ok(Value::Int(2)));
    assert_eq!(call("add_string", &[s("he"), s("llo")]), Ok(s("hello")));
    assert_eq!(call("add_list", &[ints(&[1]), ints(&[2])]), Ok(ints(&[1, 2])));
    assert_eq!(
        call("add_timestamp_duration", &[timestamp("2009-02-13T23:00:00Z"), duration("240s")]),
        Ok(timestamp("2009-02-13T23:04:00Z"))
    );
    assert_eq!(
        call(
            "subtract_timestamp_timestamp",
            &[timestamp("2009-02-13T23:31:00Z"), timestamp("2009-02-13T23:29:00Z")]
        ),
        Ok(duration("120s"))
    );
    assert_eq!(error("add_int64", &[Value::Int(i64::MAX), Value::Int(1)]), "integer overflow");
    assert_eq!(
        error("subtract_uint64", &[Value::Uint(0), Value::Uint(1)]),
        "unsigned integer overflow"
    );
    assert_eq!(
        error("multiply_int64", &[Value::Int(5_000_000_000), Value::Int(5_000_000_000)]),
        "integer overflow"
    );
    assert_eq!(error("divide_int64", &[Value::Int(i64::MIN), Value::Int(-1)]), "integer overflow");
    assert_eq!(error("divide_uint64", &[Value::Uint(15), Value::Uint(0)]), "division by zero");
    assert_eq!(error("modulo_int64", &[Value::Int(34), Value::Int(0)]), "modulus by zero");
    assert_eq!(error("negate_int64", &[Value::Int(i64::MIN)]), "integer overflow");
    assert_eq!(call("negate_double", &[Value::Double(1.5)]), Ok(Value::Double(-1.5)));
    assert_eq!(error("negate_int64", &[Value::Uint(5)]), "no such overload: -_(uint)");
    assert_eq!(
        error("add_timestamp_duration", &[timestamp("9999-12-31T23:59:59Z"), duration("1s")]),
        "timestamp overflow"
    );
}

#[test]
fn int_conversions() {
    assert_eq!(call("uint64_to_int64", &[Value::Uint(42)]), Ok(Value::Int(42)));
    assert_eq!(call("double_to_int64", &[Value::Double(-123.456)]), Ok(Value::Int(-123)));
    assert_eq!(call("string_to_int64", &[s("987")]), Ok(Value::Int(987)));
    assert_eq!(
        call("timestamp_to_int64", &[timestamp("2004-09-16T23:59:59Z")]),
        Ok(Value::Int(1_095_379_199))
    );
    assert_eq!(call("duration_to_int64", &[duration("1.5s")]), Ok(Value::Int(1_500_000_000)));
    assert_eq!(
        error("uint64_to_int64", &[Value::Uint(u64::MAX)]),
        "range error converting 18446744073709551615 to int"
    );
    assert_eq!(
        error("double_to_int64", &[Value::Double(1e99)]),
        "range error converting 1e+99 to int"
    );
    assert_eq!(
        error("duration_to_int64", &[duration("2562048h")]),
        "range error converting 9223372800s to int"
    );
    assert_eq!(error("int64_to_int64", &[ints(&[])]), "no such overload: int(list(dyn))");
}

#[test]
fn other_numeric_conversions() {
    assert_eq!(call("int64_to_uint64", &[Value::Int(1729)]), Ok(Value::Uint(1729)));
    assert_eq!(call("double_to_uint64", &[Value::Double(25.5)]), Ok(Value::Uint(25)));
    assert_eq!(error("int64_to_uint64", &[Value::Int(-1)]), "range error converting -1 to uint");
    assert_eq!(
        error("double_to_uint64", &[Value::Double(6.022e23)]),
        "range error converting 6.022e+23 to uint"
    );
    assert_eq!(
        call("uint64_to_double", &[Value::Uint(u64::MAX)]),
        Ok(Value::Double(1.844_674_407_370_955_2e19))
    );
    assert_eq!(call("string_to_double", &[s("-84.32e7")]), Ok(Value::Double(-843_200_000.0)));
}

#[test]
fn string_bytes_and_bool_conversions() {
    assert_eq!(call("double_to_string", &[Value::Double(-4.5e-3)]), Ok(s("-0.0045")));
    assert_eq!(call("uint64_to_string", &[Value::Uint(9876)]), Ok(s("9876")));
    assert_eq!(call("bytes_to_string", &[Value::bytes(&[0xc3, 0xbf])]), Ok(s("ÿ")));
    assert_eq!(
        error("bytes_to_string", &[Value::bytes(&[0, 0xff])]),
        "invalid UTF-8 in bytes, cannot convert to string"
    );
    assert_eq!(
        call("timestamp_to_string", &[timestamp("9999-12-31T23:59:59.999999999Z")]),
        Ok(s("9999-12-31T23:59:59.999999999Z"))
    );
    assert_eq!(call("duration_to_string", &[duration("1000000s")]), Ok(s("1000000s")));
    assert_eq!(call("string_to_bytes", &[s("ÿ")]), Ok(Value::bytes(&[195, 191])));
    assert_eq!(call("string_to_bool", &[s("TRUE")]), Ok(Value::Bool(true)));
    assert_eq!(call("string_to_bool", &[s("f")]), Ok(Value::Bool(false)));
    assert!(
        error("string_to_bool", &[s("TrUe")])
            .starts_with("type conversion error from 'string' to 'bool'")
    );
}

#[test]
fn time_conversions_and_their_ranges() {
    assert_eq!(call("string_to_duration", &[s("1h30m")]), Ok(duration("5400s")));
    assert_eq!(
        call("int64_to_timestamp", &[Value::Int(1_234_567_890)]),
        Ok(timestamp("2009-02-13T23:31:30Z"))
    );
    assert_eq!(error("int64_to_timestamp", &[Value::Int(253_402_300_800)]), "timestamp overflow");
    assert_eq!(error("string_to_duration", &[s("320000000000s")]), "duration overflow");
    assert_eq!(
        call("timestamp_to_timestamp", &[timestamp("2009-02-13T23:31:30Z")]),
        Ok(timestamp("2009-02-13T23:31:30Z"))
    );
}

#[test]
fn dyn_is_the_identity_and_type_reports_the_runtime_type() {
    assert_eq!(call("to_dyn", &[ints(&[1])]), Ok(ints(&[1])));
    assert_eq!(call("type", &[Value::Uint(64)]), Ok(Value::Type(Type::Uint)));
    assert_eq!(call("type", &[duration("1s")]), Ok(Value::Type(Type::Duration)));
    // Types of types are all one type: `type(type(7)) == type(type(7u))`.
    let int_type = call("type", &[Value::Int(7)]);
    let uint_type = call("type", &[Value::Uint(7)]);
    assert_ne!(int_type, uint_type);
    let (Ok(int_type), Ok(uint_type)) = (int_type, uint_type) else {
        panic!("type() failed");
    };
    assert_eq!(call("type", &[int_type]), call("type", &[uint_type]));
    assert_eq!(call("type", &[Value::Type(Type::Int)]), Ok(Value::Type(Type::type_of(Type::Dyn))));
}
