//! Defaults, flow control and JSON, table style.
mod common;
use common::*;

#[test]
fn defaults_and_flow() {
    table(&[
        ("default", vec![s("foo"), s("")], s("foo")),
        ("default", vec![s("foo"), s("bar")], s("bar")),
        ("default", vec![s("foo")], s("foo")),
        ("default", vec![s("foo"), i(0)], s("foo")),
        ("default", vec![s("foo"), l(vec![])], s("foo")),
        ("default", vec![s("foo"), b(false)], s("foo")),
        ("empty", vec![nil()], b(true)),
        ("empty", vec![d(&[])], b(true)),
        ("empty", vec![f(0.0)], b(true)),
        ("empty", vec![s(" ")], b(false)),
        ("coalesce", vec![nil(), s(""), i(0), s("x"), s("y")], s("x")),
        ("coalesce", vec![nil(), s("")], nil()),
        ("all", vec![i(1), s("x")], b(true)),
        ("all", vec![i(1), s("")], b(false)),
        ("all", vec![], b(true)),
        ("any", vec![i(0), s("x")], b(true)),
        ("any", vec![], b(false)),
        ("ternary", vec![s("yes"), s("no"), b(true)], s("yes")),
        ("ternary", vec![s("yes"), s("no"), b(false)], s("no")),
    ]);
    err_table(&[("fail", vec![s("total fail")], "total fail")]);
    assert_eq!(
        arg_err("ternary", &[s("a"), s("b"), s("true")]),
        "wrong type for value; expected bool; got string"
    );
    assert_eq!(arg_err("fail", &[]), "wrong number of args for fail: want 1 got 0");
}

#[test]
fn json_encoding() {
    let v = d(&[
        ("b", l(vec![i(1), f(1.5), f(1e21), f(1e-7), nil(), b(true)])),
        ("a", s("<x & y>\n\"q\"\u{1}")),
        ("e", d(&[])),
        ("f", l(vec![])),
    ]);
    table(&[
        (
            "toJson",
            vec![v.clone()],
            s(
                r#"{"a":"\u003cx \u0026 y\u003e\n\"q\"\u0001","b":[1,1.5,1e+21,1e-7,null,true],"e":{},"f":[]}"#,
            ),
        ),
        (
            "toRawJson",
            vec![v.clone()],
            s(r#"{"a":"<x & y>\n\"q\"\u0001","b":[1,1.5,1e+21,1e-7,null,true],"e":{},"f":[]}"#),
        ),
        (
            "toPrettyJson",
            vec![d(&[("a", il(&[1, 2])), ("b", d(&[]))])],
            s("{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": {}\n}"),
        ),
        ("toJson", vec![nil()], s("null")),
        ("toJson", vec![f(100000.0)], s("100000")),
        ("toJson", vec![f(f64::NAN)], s("")),
        ("mustToJson", vec![s("é\u{2028}")], s("\"é\\u2028\"")),
    ]);
    err_table(&[
        ("mustToJson", vec![f(f64::INFINITY)], "json: unsupported value: +Inf"),
        ("mustToPrettyJson", vec![l(vec![f(f64::NAN)])], "json: unsupported value: NaN"),
        ("mustToRawJson", vec![f(f64::NEG_INFINITY)], "json: unsupported value: -Inf"),
    ]);
}

#[test]
fn json_decoding() {
    table(&[
        (
            "fromJson",
            vec![s(r#"{"foo": "Bar", "n": [1, 2.5, -3e2, true, null]}"#)],
            d(&[("foo", s("Bar")), ("n", l(vec![f(1.0), f(2.5), f(-300.0), b(true), nil()]))]),
        ),
        ("fromJson", vec![s("\"\\u00e9\\ud83d\\ude00\"")], s("é😀")),
        ("fromJson", vec![s("not json")], nil()),
        ("mustFromJson", vec![s(" 3 ")], f(3.0)),
    ]);
    err_table(&[
        ("mustFromJson", vec![s("")], "unexpected end of JSON input"),
        ("mustFromJson", vec![s("{")], "unexpected end of JSON input"),
        ("mustFromJson", vec![s("x")], "invalid character 'x' looking for beginning of value"),
        ("mustFromJson", vec![s("{\"a\" 1}")], "invalid character '1' after object key"),
        (
            "mustFromJson",
            vec![s("{\"a\":1 \"b\"}")],
            "invalid character '\"' after object key:value pair",
        ),
        ("mustFromJson", vec![s("[1 2]")], "invalid character '2' after array element"),
        (
            "mustFromJson",
            vec![s("{1:2}")],
            "invalid character '1' looking for beginning of object key string",
        ),
        ("mustFromJson", vec![s("1 2")], "invalid character '2' after top-level value"),
        ("mustFromJson", vec![s("tru")], "unexpected end of JSON input"),
        ("mustFromJson", vec![s("trux")], "invalid character 'x' in literal true (expecting 'e')"),
        ("mustFromJson", vec![s("01")], "invalid character '1' after top-level value"),
        (
            "mustFromJson",
            vec![s("1.x")],
            "invalid character 'x' after decimal point in numeric literal",
        ),
        ("mustFromJson", vec![s("\"a\nb\"")], "invalid character '\\n' in string literal"),
        ("mustFromJson", vec![s("\"\\q\"")], "invalid character 'q' in string escape code"),
        (
            "mustFromJson",
            vec![s("1e999")],
            "json: cannot unmarshal number 1e999 into Go value of type float64",
        ),
    ]);
}

#[test]
fn deep_json_is_refused_not_overflowed() {
    let deep = format!("{}{}", "[".repeat(1001), "]".repeat(1001));
    assert_eq!(call_err("mustFromJson", &[s(&deep)]), "invalid character '[' exceeded max depth");
    let ok_depth = format!("{}{}", "[".repeat(1000), "]".repeat(1000));
    assert!(call("mustFromJson", &[s(&ok_depth)]).is_ok());
}
