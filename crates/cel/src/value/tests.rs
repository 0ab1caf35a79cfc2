use std::cmp::Ordering;

use super::*;
use crate::check::Type;

fn s(v: &str) -> Value {
    Value::string(v)
}

fn err_text(r: Result<Value, ValueError>) -> String {
    match r {
        Ok(v) => panic!("expected an error, got {v:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn equality_is_heterogeneous_across_numbers_and_false_across_kinds() {
    let eq = [
        (Value::Int(1), Value::Uint(1)),
        (Value::Int(1), Value::Double(1.0)),
        (Value::Uint(1), Value::Double(1.0)),
        (Value::Int(-0), Value::Double(-0.0)),
        (s("a"), s("a")),
        (Value::list(vec![Value::Int(1), s("x")]), Value::list(vec![Value::Double(1.0), s("x")])),
        (Value::Null, Value::Null),
        (Value::Optional(None), Value::Optional(None)),
    ];
    for (a, b) in &eq {
        assert_eq!(a, b, "{a:?} == {b:?}");
        assert_eq!(b, a, "{b:?} == {a:?}");
    }
    let ne = [
        (Value::Int(1), Value::Double(1.5)),
        (Value::Int(-1), Value::Uint(u64::MAX)),
        (Value::Double(f64::NAN), Value::Double(f64::NAN)),
        (Value::Int(1), s("1")),
        (Value::Null, Value::Bool(false)),
        (Value::list(vec![Value::Int(1)]), Value::list(vec![Value::Int(1), Value::Int(2)])),
        // Beyond the int range a double is unequal whatever rounding would say.
        (Value::Int(i64::MAX), Value::Double(TWO_POW_63 * 2.0)),
    ];
    for (a, b) in &ne {
        assert_ne!(a, b, "{a:?} != {b:?}");
    }
    // Within it, ints compare with doubles after conversion to double, rounding
    // included, as cel-go compares them (conformance: `not_lt_dyn_int_big_lossy_double`).
    assert_eq!(Value::Int(9_007_199_254_740_993), Value::Double(9_007_199_254_740_992.0));
    assert_eq!(Value::Int(i64::MAX), Value::Double(TWO_POW_63));
}

#[test]
fn map_keys_unify_numerically_equal_numbers() {
    let m =
        MapValue::from_entries(vec![(Value::Int(1), s("one")), (Value::Uint(u64::MAX), s("max"))])
            .unwrap_or_default();
    assert_eq!(m.get(&Value::Uint(1)), Some(&s("one")));
    assert_eq!(m.get(&Value::Double(1.0)), Some(&s("one")));
    assert_eq!(m.get(&Value::Double(1.5)), None);
    assert_eq!(m.get(&Value::Uint(u64::MAX)), Some(&s("max")));
    let dup = MapValue::from_entries(vec![(Value::Int(1), s("a")), (Value::Uint(1), s("b"))]);
    assert_eq!(dup.err().map(|e| e.to_string()), Some("Failed with repeated key: 1".to_owned()));
    let bad = MapValue::from_entries(vec![(Value::Double(1.0), s("a"))]);
    assert_eq!(
        bad.err().map(|e| e.to_string()),
        Some("unsupported key type: double; map keys must be bool, int, uint or string".to_owned())
    );
    let a = Value::Map(
        MapValue::from_entries(vec![(Value::Int(1), Value::Int(2))]).unwrap_or_default(),
    );
    let b = Value::Map(
        MapValue::from_entries(vec![(Value::Uint(1), Value::Double(2.0))]).unwrap_or_default(),
    );
    assert_eq!(a, b);
}

#[test]
fn ordering_across_numeric_kinds_and_within_kinds() {
    let cases = [
        (Value::Int(-1), Value::Uint(0), Ordering::Less),
        (Value::Uint(u64::MAX), Value::Int(i64::MAX), Ordering::Greater),
        (Value::Int(1), Value::Double(1.5), Ordering::Less),
        (Value::Double(-1.5), Value::Int(-1), Ordering::Less),
        (Value::Uint(2), Value::Double(1.9), Ordering::Greater),
        (Value::Int(i64::MAX), Value::Double(1e19), Ordering::Less),
        (s("a"), s("b"), Ordering::Less),
        // Code point order: U+FFFF sorts before U+10000 (UTF-16 order would not).
        (s("\u{ffff}"), s("\u{10000}"), Ordering::Less),
        (Value::bytes(&[0x01]), Value::bytes(&[0x01, 0x00]), Ordering::Less),
        (Value::Bool(false), Value::Bool(true), Ordering::Less),
    ];
    for (a, b, want) in &cases {
        assert_eq!(compare(a, b), Ok(Some(*want)), "{a:?} vs {b:?}");
    }
    assert_eq!(compare(&Value::Double(f64::NAN), &Value::Int(1)), Ok(None));
    assert_eq!(
        compare(&Value::Int(1), &s("1")).map_err(|e| e.to_string()),
        Err("no such overload: _<_(int, string)".to_owned())
    );
    assert!(compare(&Value::Null, &Value::Null).is_err());
}

#[test]
fn integer_arithmetic_reports_overflow_and_zero_divisors() {
    assert_eq!(err_text(add(&Value::Int(i64::MAX), &Value::Int(1))), "integer overflow");
    assert_eq!(err_text(sub(&Value::Int(i64::MIN), &Value::Int(1))), "integer overflow");
    assert_eq!(err_text(mul(&Value::Int(i64::MAX), &Value::Int(2))), "integer overflow");
    assert_eq!(err_text(div(&Value::Int(i64::MIN), &Value::Int(-1))), "integer overflow");
    assert_eq!(err_text(rem(&Value::Int(i64::MIN), &Value::Int(-1))), "integer overflow");
    assert_eq!(err_text(neg(&Value::Int(i64::MIN))), "integer overflow");
    assert_eq!(err_text(sub(&Value::Uint(0), &Value::Uint(1))), "unsigned integer overflow");
    assert_eq!(err_text(div(&Value::Int(1), &Value::Int(0))), "division by zero");
    assert_eq!(err_text(rem(&Value::Uint(1), &Value::Uint(0))), "modulus by zero");
    assert_eq!(err_text(add(&Value::Int(1), &Value::Uint(1))), "no such overload: _+_(int, uint)");
    assert_eq!(div(&Value::Int(-7), &Value::Int(2)), Ok(Value::Int(-3)));
    assert_eq!(rem(&Value::Int(-7), &Value::Int(2)), Ok(Value::Int(-1)));
    assert_eq!(div(&Value::Double(1.0), &Value::Double(0.0)), Ok(Value::Double(f64::INFINITY)));
    assert_eq!(add(&s("ab"), &s("c")), Ok(s("abc")));
    assert_eq!(
        add(&Value::list(vec![Value::Int(1)]), &Value::list(vec![s("x")])),
        Ok(Value::list(vec![Value::Int(1), s("x")]))
    );
}

#[test]
fn time_arithmetic_is_range_checked() {
    let ts = |t: &str| to_timestamp(&s(t));
    let dur = |d: &str| to_duration(&s(d));
    let (Ok(start), Ok(hour)) = (ts("2024-02-28T23:30:00Z"), dur("1h")) else {
        panic!("literals must parse");
    };
    assert_eq!(add(&start, &hour), ts("2024-02-29T00:30:00Z"));
    assert_eq!(sub(&start, &hour), ts("2024-02-28T22:30:00Z"));
    assert_eq!(sub(&add(&start, &hour).unwrap_or(Value::Null), &start), Ok(hour.clone()));
    let (Ok(max), Ok(one_ns)) = (ts("9999-12-31T23:59:59.999999999Z"), dur("1ns")) else {
        panic!("literals must parse");
    };
    assert_eq!(err_text(add(&max, &one_ns)), "timestamp overflow");
    assert_eq!(err_text(ts("0000-12-31T23:59:59Z")), "timestamp overflow");
    let big = Value::Duration(Duration::new(MAX_DURATION_SECONDS, 0).unwrap_or_default());
    assert_eq!(err_text(add(&big, &one_ns)), "duration overflow");
    assert_eq!(neg(&hour), dur("-1h"));
}

#[test]
fn durations_parse_go_syntax_and_print_seconds() {
    let cases = [
        ("1h30m", "5400s"),
        ("-1.5s", "-1.5s"),
        ("1ms", "0.001s"),
        ("1µs", "0.000001s"),
        ("2us3ns", "0.000002003s"),
        ("0", "0s"),
        (".5m", "30s"),
        ("+3s", "3s"),
    ];
    for (input, want) in cases {
        assert_eq!(to_duration(&s(input)).and_then(|d| to_string(&d)), Ok(s(want)), "{input}");
    }
    for bad in ["", "1", "1d", "h", "-", "1.s5", "1e3s"] {
        assert!(to_duration(&s(bad)).is_err(), "{bad:?} must not parse");
    }
    assert_eq!(
        err_text(to_duration(&s("1x"))),
        "type conversion error from 'string' to 'duration': cannot parse \"1x\": unknown unit"
    );
}

#[test]
fn timestamps_parse_rfc3339_and_print_utc() {
    let cases = [
        ("2009-02-13T23:31:30Z", "2009-02-13T23:31:30Z", 1_234_567_890),
        ("2009-02-13T15:31:30.120-08:00", "2009-02-13T23:31:30.12Z", 1_234_567_890),
        ("0001-01-01T00:00:00Z", "0001-01-01T00:00:00Z", MIN_TIMESTAMP_SECONDS),
        ("1969-12-31T23:59:59.5Z", "1969-12-31T23:59:59.5Z", -1),
        ("2000-02-29T00:00:00Z", "2000-02-29T00:00:00Z", 951_782_400),
    ];
    for (input, printed, unix) in cases {
        let t = to_timestamp(&s(input));
        assert_eq!(t.clone().and_then(|t| to_string(&t)), Ok(s(printed)), "{input}");
        assert_eq!(t.and_then(|t| to_int(&t)), Ok(Value::Int(unix)), "{input}");
    }
    for bad in [
        "2009-02-13",
        "2009-02-13 23:31:30Z",
        "2009-02-29T00:00:00Z",
        "2009-13-01T00:00:00Z",
        "2009-02-13T24:00:00Z",
        "2009-02-13T23:31:30",
        "2009-02-13T23:31:30.Z",
        "2009-02-13T23:31:30+0800",
    ] {
        assert!(to_timestamp(&s(bad)).is_err(), "{bad:?} must not parse");
    }
    assert_eq!(
        to_timestamp(&Value::Int(1_234_567_890)).and_then(|t| to_string(&t)),
        Ok(s("2009-02-13T23:31:30Z"))
    );
}

#[test]
fn numeric_conversions_follow_range_and_truncation_rules() {
    assert_eq!(to_int(&Value::Double(-7.9)), Ok(Value::Int(-7)));
    assert_eq!(to_int(&Value::Uint(i64::MAX as u64)), Ok(Value::Int(i64::MAX)));
    assert_eq!(
        err_text(to_int(&Value::Uint(u64::MAX))),
        "range error converting 18446744073709551615 to int"
    );
    assert_eq!(
        err_text(to_int(&Value::Double(-TWO_POW_63))),
        "range error converting -9.223372036854776e+18 to int"
    );
    assert_eq!(err_text(to_int(&Value::Double(f64::NAN))), "range error converting NaN to int");
    assert_eq!(to_uint(&Value::Double(25.5)), Ok(Value::Uint(25)));
    assert_eq!(err_text(to_uint(&Value::Double(-0.5))), "range error converting -0.5 to uint");
    assert_eq!(err_text(to_uint(&Value::Int(-1))), "range error converting -1 to uint");
    assert_eq!(
        err_text(to_uint(&Value::Double(6.022e23))),
        "range error converting 6.022e+23 to uint"
    );
    assert_eq!(to_int(&s("-42")), Ok(Value::Int(-42)));
    assert!(to_int(&s("4.2")).is_err());
    assert!(to_uint(&s("-1")).is_err());
    assert_eq!(to_double(&s("-5.43e-21")), Ok(Value::Double(-5.43e-21)));
    assert!(matches!(to_double(&s("NaN")), Ok(Value::Double(d)) if d.is_nan()));
    assert_eq!(to_double(&s("-Infinity")), Ok(Value::Double(f64::NEG_INFINITY)));
    assert_eq!(to_double(&Value::Uint(u64::MAX)), Ok(Value::Double(TWO_POW_64)));
    assert_eq!(err_text(to_int(&Value::Bool(true))), "no such overload: int(bool)");
}

#[test]
fn string_bytes_and_bool_conversions() {
    let doubles = [
        (123.456, "123.456"),
        (-4.5e-3, "-0.0045"),
        (1e6, "1e+06"),
        (123_456.0, "123456"),
        (1_234_567.0, "1.234567e+06"),
        (1e-5, "1e-05"),
        (0.0001, "0.0001"),
        (-0.0, "-0"),
        (1e100, "1e+100"),
        (f64::INFINITY, "+Inf"),
        (f64::NAN, "NaN"),
    ];
    for (d, want) in doubles {
        assert_eq!(to_string(&Value::Double(d)), Ok(s(want)), "{d}");
    }
    assert_eq!(to_string(&Value::Uint(9876)), Ok(s("9876")));
    assert_eq!(to_string(&Value::Bool(false)), Ok(s("false")));
    assert_eq!(to_string(&Value::bytes(&[0xc3, 0xbf])), Ok(s("ÿ")));
    assert_eq!(
        err_text(to_string(&Value::bytes(&[0x00, 0xff]))),
        "invalid UTF-8 in bytes, cannot convert to string"
    );
    assert_eq!(to_bytes(&s("ÿ")), Ok(Value::bytes(&[0xc3, 0xbf])));
    for t in ["1", "t", "T", "true", "TRUE", "True"] {
        assert_eq!(to_bool(&s(t)), Ok(Value::Bool(true)), "{t}");
    }
    for f in ["0", "f", "F", "false", "FALSE", "False"] {
        assert_eq!(to_bool(&s(f)), Ok(Value::Bool(false)), "{f}");
    }
    assert!(
        err_text(to_bool(&s("TrUe"))).starts_with("type conversion error from 'string' to 'bool'")
    );
}

#[test]
fn type_of_reports_cel_types() {
    assert_eq!(Value::Int(1).type_of(), Type::Int);
    assert_eq!(Value::list(vec![]).type_of(), Type::list(Type::Dyn));
    assert_eq!(type_value(&Value::Type(Type::Int)), Value::Type(Type::type_of(Type::Int)));
    assert_eq!(Value::Optional(None).type_of(), Type::optional(Type::Dyn));
    // As for lists, the runtime type does not name the contained type (`type(optional.of(1))
    // == optional_type`).
    assert_eq!(Value::Optional(Some(Box::new(Value::Int(1)))).type_of(), Type::optional(Type::Dyn));
    assert_eq!(to_dyn(&s("x")), s("x"));
}
