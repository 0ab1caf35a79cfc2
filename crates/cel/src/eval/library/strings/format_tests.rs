//! `string.format` against the cel-spec `string_ext` conformance cases (section
//! `format` and `format_errors`), plus the bounds certgate adds.
// The conformance data's literals (2.71828, 3.14) are not meant as E or PI.
#![allow(clippy::approx_constant)]

use std::sync::Arc;

use crate::check::Type;
use crate::eval::Functions;
use crate::value::{Duration, MAX_CONCAT_LEN, MapValue, ObjectValue, Timestamp, Value, ValueError};

use super::format::MAX_FORMAT_PRECISION;

fn format(template: &str, args: Vec<Value>) -> Result<String, String> {
    let implementation = Functions::full_library().get("string_format").expect("string_format");
    match implementation.call(&[Value::string(template), Value::list(args)]) {
        Ok(Value::String(s)) => Ok(s.to_string()),
        Ok(other) => Err(format!("not a string: {other:?}")),
        Err(e) => Err(e.to_string()),
    }
}

fn s(text: &str) -> Value {
    Value::string(text)
}

fn d(x: f64) -> Value {
    Value::Double(x)
}

fn ts(text: &str) -> Value {
    Value::Timestamp(Timestamp::parse(text).expect("timestamp"))
}

fn dur(text: &str) -> Value {
    Value::Duration(Duration::parse(text).expect("duration"))
}

fn map(entries: Vec<(Value, Value)>) -> Value {
    Value::Map(MapValue::from_entries(entries).expect("map"))
}

#[test]
fn conformance_values() {
    let cases: Vec<(&str, Vec<Value>, &str)> = vec![
        ("no substitution", vec![], "no substitution"),
        ("str is %s and some more", vec![s("filler")], "str is filler and some more"),
        ("%% and also %%", vec![], "% and also %"),
        ("%%%s%%", vec![s("text")], "%text%"),
        ("%s%%", vec![s("percent on the right")], "percent on the right%"),
        ("%%%s", vec![s("percent on the left")], "%percent on the left"),
        (
            "%d %d %d, %s %s %s, %d %d %d, %s %s %s",
            vec![
                Value::Int(1),
                Value::Int(2),
                Value::Int(3),
                s("A"),
                s("B"),
                s("C"),
                Value::Int(4),
                Value::Int(5),
                Value::Int(6),
                s("D"),
                s("E"),
                s("F"),
            ],
            "1 2 3, A B C, 4 5 6, D E F",
        ),
        ("%%escaped %s%%", vec![s("percent")], "%escaped percent%"),
        ("%.3f", vec![d(1.2345)], "1.234"),
        ("this is 5 in binary: %b", vec![Value::Int(5)], "this is 5 in binary: 101"),
        ("unsigned 64 in binary: %b", vec![Value::Uint(64)], "unsigned 64 in binary: 1000000"),
        ("bit set from bool: %b", vec![Value::Bool(true)], "bit set from bool: 1"),
        ("%o", vec![Value::Int(11)], "13"),
        (
            "this is an unsigned octal: %o",
            vec![Value::Uint(65535)],
            "this is an unsigned octal: 177777",
        ),
        ("%x is 20 in hexadecimal", vec![Value::Int(30)], "1e is 20 in hexadecimal"),
        ("%X is 20 in hexadecimal", vec![Value::Int(30)], "1E is 20 in hexadecimal"),
        ("%X is 6000 in hexadecimal", vec![Value::Uint(6000)], "1770 is 6000 in hexadecimal"),
        ("%x", vec![s("Hello world!")], "48656c6c6f20776f726c6421"),
        ("%X", vec![s("Hello world!")], "48656C6C6F20776F726C6421"),
        ("%x", vec![Value::bytes(b"byte string")], "6279746520737472696e67"),
        ("%X", vec![Value::bytes(b"byte string")], "6279746520737472696E67"),
        ("%.6e", vec![d(1052.032911275)], "1.052033e+03"),
        ("%f", vec![d(2.71828)], "2.718280"),
        ("%f", vec![Value::Int(2)], "2.000000"),
        ("%f", vec![Value::Uint(3)], "3.000000"),
        ("%e", vec![d(2.71828)], "2.718280e+00"),
        ("%e", vec![Value::Int(2)], "2.000000e+00"),
        ("%e", vec![Value::Uint(3)], "3.000000e+00"),
        ("%e", vec![d(f64::NAN)], "NaN"),
        ("%e", vec![d(f64::INFINITY)], "Infinity"),
        ("%e", vec![d(f64::NEG_INFINITY)], "-Infinity"),
        ("%d", vec![d(f64::NAN)], "NaN"),
        ("%d", vec![d(f64::INFINITY)], "Infinity"),
        ("%d", vec![d(f64::NEG_INFINITY)], "-Infinity"),
        ("%f", vec![d(f64::NAN)], "NaN"),
        ("%f", vec![d(f64::INFINITY)], "Infinity"),
        ("%f", vec![d(f64::NEG_INFINITY)], "-Infinity"),
        ("%d", vec![Value::Uint(64)], "64"),
        ("%s", vec![Value::Null], "null"),
        ("%s", vec![Value::Int(999_999_999_999)], "999999999999"),
        ("%s", vec![Value::bytes(b"xyz")], "xyz"),
        ("%s", vec![Value::Type(Type::String)], "string"),
        ("%s", vec![ts("2023-02-03T23:31:20+00:00")], "2023-02-03T23:31:20Z"),
        ("%s", vec![dur("1h45m47s")], "6347s"),
        (
            "%s",
            vec![Value::list(vec![
                s("abc"),
                d(3.14),
                Value::Null,
                Value::list(vec![Value::Int(9), Value::Int(8), Value::Int(7), Value::Int(6)]),
                ts("2023-02-03T23:31:20Z"),
            ])],
            "[abc, 3.14, null, [9, 8, 7, 6], 2023-02-03T23:31:20Z]",
        ),
        (
            "%s",
            vec![map(vec![
                (s("key1"), Value::bytes(b"xyz")),
                (s("key5"), Value::Null),
                (s("key2"), dur("2h")),
                (s("key4"), Value::Bool(true)),
                (s("key3"), d(2.71828)),
            ])],
            "{key1: xyz, key2: 7200s, key3: 2.71828, key4: true, key5: null}",
        ),
        (
            "%s",
            vec![map(vec![
                (Value::Int(1), s("value1")),
                (Value::Uint(2), s("value2")),
                (Value::Bool(true), d(f64::NAN)),
            ])],
            "{1: value1, 2: value2, true: NaN}",
        ),
        ("%s, %s", vec![Value::Bool(true), Value::Bool(false)], "true, false"),
        ("%s, %s", vec![Value::Int(32), d(56.8)], "32, 56.8"),
        ("%d", vec![Value::Uint(256)], "256"),
        ("%x", vec![Value::Int(22)], "16"),
        ("%X", vec![Value::Int(26)], "1A"),
        ("%x", vec![Value::Uint(500)], "1f4"),
        ("%.3f", vec![d(4.5)], "4.500"),
        (
            "%s",
            vec![Value::list(vec![d(f64::NAN), d(f64::INFINITY), d(f64::NEG_INFINITY)])],
            "[NaN, Infinity, -Infinity]",
        ),
        ("%s", vec![dur("8747s")], "8747s"),
        ("%s", vec![Value::list(vec![Value::Int(6), d(4.2), s("a string")])], "[6, 4.2, a string]"),
        (
            "%s",
            vec![map(vec![
                (s("strKey"), s("x")),
                (Value::Int(6), dur("422s")),
                (Value::Bool(true), Value::Int(42)),
            ])],
            "{6: 422s, strKey: x, true: 42}",
        ),
        ("%.0f", vec![d(123.0)], "123"),
        ("%.0f", vec![d(3.5001)], "4"),
        ("%.0f", vec![d(3.4999)], "3"),
        ("%.0f", vec![d(1.5)], "2"),
        ("%.0f", vec![d(2.5)], "2"),
        ("%.3f", vec![d(123.4999)], "123.500"),
        ("%.3f", vec![d(123.4994)], "123.499"),
        ("%.3f", vec![d(-123.4999)], "-123.500"),
        ("%.3f", vec![d(-123.4994)], "-123.499"),
        ("%.5f", vec![d(-1.2)], "-1.20000"),
    ];
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|(template, args, want)| {
            let got = format(template, args.clone());
            (got.as_deref() != Ok(*want))
                .then(|| format!("{template:?}: got {got:?}, want {want:?}"))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn conformance_errors() {
    let object =
        Value::Object(ObjectValue::new("cel.expr.conformance.proto3.TestAllTypes", vec![]));
    let string_clause = "error during formatting: string clause can only be used on strings, \
                         bools, bytes, ints, doubles, maps, lists, types, durations, and \
                         timestamps, was given cel.expr.conformance.proto3.TestAllTypes";
    let cases: Vec<(&str, Vec<Value>, &str)> = vec![
        (
            "%a",
            vec![Value::Int(1)],
            "could not parse formatting clause: unrecognized formatting clause \"a\"",
        ),
        ("%d %d %d", vec![Value::Int(0), Value::Int(1)], "index 2 out of range"),
        (
            "string is %b",
            vec![s("abc")],
            "error during formatting: only integers and bools can be formatted as binary, was given string",
        ),
        (
            "%d",
            vec![dur("30m2s")],
            "error during formatting: decimal clause can only be used on integers, was given google.protobuf.Duration",
        ),
        (
            "octal: %o",
            vec![s("a string")],
            "error during formatting: octal clause can only be used on integers, was given string",
        ),
        (
            "double is %x",
            vec![d(0.5)],
            "error during formatting: only integers, byte buffers, and strings can be formatted as hex, was given double",
        ),
        (
            "double is %E",
            vec![d(0.5)],
            "could not parse formatting clause: unrecognized formatting clause \"E\"",
        ),
        ("object is %s", vec![object.clone()], string_clause),
        (
            "%s",
            vec![Value::list(vec![Value::Int(1), Value::Int(2), object.clone()])],
            string_clause,
        ),
        ("%s", vec![map(vec![(Value::Int(1), s("a")), (Value::Int(2), object)])], string_clause),
        (
            "null: %d",
            vec![Value::Null],
            "error during formatting: decimal clause can only be used on integers, was given null_type",
        ),
        (
            "null: %e",
            vec![Value::Null],
            "error during formatting: scientific clause can only be used on doubles, was given null_type",
        ),
        (
            "null: %f",
            vec![Value::Null],
            "error during formatting: fixed-point clause can only be used on doubles, was given null_type",
        ),
        (
            "null: %x",
            vec![Value::Null],
            "error during formatting: only integers, byte buffers, and strings can be formatted as hex, was given null_type",
        ),
        (
            "null: %X",
            vec![Value::Null],
            "error during formatting: only integers, byte buffers, and strings can be formatted as hex, was given null_type",
        ),
        (
            "null: %b",
            vec![Value::Null],
            "error during formatting: only integers and bools can be formatted as binary, was given null_type",
        ),
        (
            "null: %o",
            vec![Value::Null],
            "error during formatting: octal clause can only be used on integers, was given null_type",
        ),
    ];
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|(template, args, want)| {
            let got = format(template, args.clone());
            (got.as_ref().err().map(String::as_str) != Some(*want))
                .then(|| format!("{template:?}: got {got:?}, want error {want:?}"))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn clause_syntax_errors() {
    let one = || vec![Value::Int(1)];
    assert_eq!(format("%", one()), Err("unexpected end of string".to_owned()));
    // The argument is looked up before the clause is read, as in cel-go.
    assert_eq!(format("%", vec![]), Err("index 0 out of range".to_owned()));
    assert_eq!(
        format("%.3", one()),
        Err("could not parse formatting clause: error while parsing precision: could not find \
             end of precision specifier"
            .to_owned())
    );
    assert_eq!(
        format("%.f", vec![d(1.0)]),
        Err("could not parse formatting clause: error while parsing precision: error while \
             converting precision to integer: strconv.Atoi: parsing \"\": invalid syntax"
            .to_owned())
    );
    assert_eq!(
        format("%.1001f", vec![d(1.0)]),
        Err(format!(
            "could not parse formatting clause: error while parsing precision: precision 1001 \
             exceeds maximum allowed precision {MAX_FORMAT_PRECISION}"
        ))
    );
    assert_eq!(
        format("%.99999999999999999999f", vec![d(1.0)]),
        Err("could not parse formatting clause: error while parsing precision: error while \
             converting precision to integer: strconv.Atoi: parsing \"99999999999999999999\": \
             value out of range"
            .to_owned())
    );
}

#[test]
fn negative_numbers_in_other_bases_have_a_sign() {
    assert_eq!(
        format(
            "%x %X %o %b",
            vec![Value::Int(-255), Value::Int(-255), Value::Int(-8), Value::Int(-5)]
        ),
        Ok("-ff -FF -10 -101".to_owned())
    );
    assert_eq!(format("%x", vec![Value::Int(i64::MIN)]), Ok("-8000000000000000".to_owned()));
}

#[test]
fn doubles_print_without_exponent_in_s_and_d() {
    assert_eq!(
        format("%s %d", vec![d(1e21), d(1.5e-7)]),
        Ok("1000000000000000000000 0.00000015".to_owned())
    );
    assert_eq!(format("%.2e", vec![d(-1.5e-7)]), Ok("-1.50e-07".to_owned()));
    assert_eq!(format("%s", vec![dur("1.5s")]), Ok("1.5s".to_owned()));
    assert_eq!(format("%s", vec![Value::Type(Type::list(Type::Int))]), Ok("list".to_owned()));
}

#[test]
fn unsupported_values_are_errors() {
    assert_eq!(
        format("%s", vec![Value::Optional(None)]),
        Err("error during formatting: string clause can only be used on strings, bools, bytes, \
             ints, doubles, maps, lists, types, durations, and timestamps, was given optional_type"
            .to_owned())
    );
}

#[test]
fn output_is_bounded() {
    // A list holding one large string many times is small, its rendering is not.
    let big = Value::String(Arc::from("x".repeat(1 << 20)));
    let list = Value::list(vec![big; 100]);
    assert_eq!(
        format("%s", vec![list.clone()]),
        Err(ValueError::TooLarge { limit: MAX_CONCAT_LEN }.to_string())
    );
    let entries = (0..100).map(|k| (Value::Int(k), list.clone())).collect();
    assert_eq!(
        format("%s", vec![map(entries)]),
        Err(ValueError::TooLarge { limit: MAX_CONCAT_LEN }.to_string())
    );
}
