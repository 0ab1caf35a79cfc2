//! `from_yaml` against yaml.v3 `Unmarshal` into `interface{}` + `json.Marshal`.
//! Rule sources: resolve.go (scalars), decode.go (maps, merges, aliases, limits), and
//! encoding/json (what cannot be marshalled).

use certgate_goyaml::from_yaml;
use serde_json::{Value, json};

fn one(text: &str) -> Value {
    from_yaml(&format!("v: {text}\n")).expect(text)["v"].clone()
}

#[test]
fn scalar_resolution() {
    let cases: Vec<(&str, Value)> = vec![
        ("", json!(null)),
        ("~", json!(null)),
        ("null", json!(null)),
        ("Null", json!(null)),
        ("NULL", json!(null)),
        ("nULL", json!("nULL")),
        ("true", json!(true)),
        ("True", json!(true)),
        ("TRUE", json!(true)),
        ("false", json!(false)),
        ("yes", json!("yes")),
        ("on", json!("on")),
        ("y", json!("y")),
        ("0", json!(0)),
        ("-1", json!(-1)),
        ("+12", json!(12)),
        ("1_000", json!(1000)),
        ("0x1F", json!(31)),
        ("0X1f", json!(31)),
        ("-0x1F", json!(-31)),
        ("0o17", json!(15)),
        ("017", json!(15)),
        ("0b101", json!(5)),
        ("08", json!(8)), // not octal: falls through to the float rule
        ("9223372036854775807", json!(9223372036854775807_i64)),
        ("9223372036854775808", json!(9223372036854775808_u64)),
        ("18446744073709551616", json!(18446744073709551616.0_f64)),
        ("1.5", json!(1.5)),
        ("1.0", json!(1)),
        ("-2.50", json!(-2.5)),
        (".5", json!(0.5)),
        ("1e3", json!(1000)),
        ("1E-2", json!(0.01)),
        ("1.", json!(1)),
        ("1e400", json!("1e400")),
        ("0x", json!("0x")),
        ("1_0.5", json!(10.5)),
        ("12abc", json!("12abc")),
        ("+", json!("+")),
        ("'123'", json!("123")),
        ("\"true\"", json!("true")),
        ("!!str 123", json!("123")),
        ("!!int \"12\"", json!(12)),
        ("!!float 1", json!(1)),
        ("!!float 1.5", json!(1.5)),
        ("!!null ''", json!(null)),
        ("!custom 12", json!("12")),
        ("! 12", json!(12)),
        ("2015-01-01", json!("2015-01-01T00:00:00Z")),
        ("2015-2-3T3:4:5Z", json!("2015-02-03T03:04:05Z")),
        ("2015-02-24 18:19:39.5", json!("2015-02-24T18:19:39.5Z")),
        ("2015-02-24T18:19:39+01:00", json!("2015-02-24T18:19:39+01:00")),
        ("'2015-01-01'", json!("2015-01-01")),
        ("!!str 2015-01-01", json!("2015-01-01")),
        ("2015-02-30", json!("2015-02-30")),
        ("!!binary aGVsbG8=", json!("hello")),
        ("<<", json!("<<")),
        ("héllo", json!("héllo")),
        ("\"a\\tb\\u00e9\\U0001F600\"", json!("a\tbé😀")),
        ("'it''s'", json!("it's")),
    ];
    for (text, expected) in cases {
        assert_eq!(one(text), expected, "input {text:?}");
    }
}

#[test]
fn structures() {
    let text = "a:\n  - 1\n  - b: x\n    c: [1, 2, {d: e}]\nf: |\n  line1\n  line2\ng: >-\n  folded\n  text\nh: {}\ni: []\n";
    assert_eq!(
        from_yaml(text).unwrap(),
        json!({"a": [1, {"b": "x", "c": [1, 2, {"d": "e"}]}], "f": "line1\nline2\n",
               "g": "folded text", "h": {}, "i": []})
    );
    assert_eq!(from_yaml("").unwrap(), json!(null));
    assert_eq!(from_yaml("# only a comment\n").unwrap(), json!(null));
    assert_eq!(from_yaml("---\n").unwrap(), json!(null));
    assert_eq!(from_yaml("- a\n- b\n").unwrap(), json!(["a", "b"]));
    // Only the first document is decoded; later garbage is not even parsed.
    assert_eq!(from_yaml("---\nhello\n...\n}not yaml").unwrap(), json!("hello"));
    assert_eq!(from_yaml("a: 1\n---\nb: 2\n").unwrap(), json!({"a": 1}));
    // CRLF line ends.
    assert_eq!(
        from_yaml("a: b\r\nc:\r\n- d\r\n- e\r\n").unwrap(),
        json!({"a": "b", "c": ["d", "e"]})
    );
}

#[test]
fn anchors_aliases_merges() {
    let text = "base: &b {x: 1, y: 2}\nother: &o {y: 3, z: 4}\n\
                m1:\n  <<: *b\n  y: 9\n\
                m2:\n  <<: [*b, *o]\n\
                m3:\n  z: 0\n  <<: [*o, *b]\n\
                list: &l [1, 2]\ncopy: *l\n";
    assert_eq!(
        from_yaml(text).unwrap(),
        json!({
            "base": {"x": 1, "y": 2}, "other": {"y": 3, "z": 4},
            "m1": {"x": 1, "y": 9},
            "m2": {"x": 1, "y": 2, "z": 4},
            "m3": {"x": 1, "y": 3, "z": 0},
            "list": [1, 2], "copy": [1, 2]
        })
    );
    // Later anchors with the same name override earlier ones.
    assert_eq!(
        from_yaml("a: &x 1\nb: *x\nc: &x 2\nd: *x\n").unwrap(),
        json!({"a": 1, "b": 1, "c": 2, "d": 2})
    );
    // A quoted "<<" is an ordinary key.
    assert_eq!(from_yaml("'<<': {a: 1}\n").unwrap(), json!({"<<": {"a": 1}}));
}

#[test]
fn errors() {
    let cases: &[(&str, &str)] = &[
        ("a: *b\n", "yaml: unknown anchor 'b' referenced"),
        ("a: &a\n  b: *a\n", "yaml: anchor 'a' value contains itself"),
        (
            "a: 0\na: 1",
            "yaml: unmarshal errors:\n  line 2: mapping key \"a\" already defined at line 1",
        ),
        (
            "a: 0\na: 1\na: 2",
            "yaml: unmarshal errors:\n  line 2: mapping key \"a\" already defined at line 1\n  \
             line 3: mapping key \"a\" already defined at line 1\n  \
             line 3: mapping key \"a\" already defined at line 2",
        ),
        ("v: !!float 'error'", "yaml: cannot decode !!str `error` as a !!float"),
        ("v: !!int 1.5", "yaml: cannot decode !!float `1.5` as a !!int"),
        ("a: !!binary ==", "yaml: !!binary value contains invalid base64 data"),
        ("1: a", "json: unsupported type: map[interface {}]interface {}"),
        ("a:\n  true: x", "json: unsupported type: map[interface {}]interface {}"),
        ("a: .nan", "json: unsupported value: NaN"),
        ("a: -.inf", "json: unsupported value: -Inf"),
        ("a: .inf", "json: unsupported value: +Inf"),
        // An unquoted template is a flow mapping used as a key (yaml.v3 test `{{.}}`).
        (
            "v: {{hub x hub}}",
            "yaml: invalid map key: map[string]interface {}{\"hub x hub\":interface {}(nil)}",
        ),
        ("? [a]\n: 1", "yaml: invalid map key: []interface {}{\"a\"}"),
        ("a: {<<: 1}", "yaml: map merge requires map or sequence of maps as the value"),
        ("a: 1\nb: 2\nc 2\nd: 3\n", "yaml: line 3: could not find expected ':'"),
        ("v: [A,", "yaml: line 1: did not find expected node content"),
        // yaml.v3 omits "line N:" when libyaml's 0-based marks are both on the first line.
        ("a: b: c", "yaml: mapping values are not allowed in this context"),
        ("a: \"unterminated", "yaml: found unexpected end of stream"),
        ("value: -", "yaml: block sequence entries are not allowed in this context"),
    ];
    for (text, expected) in cases {
        let err = from_yaml(text).expect_err(text);
        assert_eq!(err.0, *expected, "input {text:?}");
    }
}

#[test]
fn limits() {
    // Billion laughs: yaml.v3's alias ratio rule stops it.
    let text = "a: &a [00,00,00,00,00,00,00,00,00]\n\
                b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n\
                c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n\
                d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n\
                e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n\
                f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n\
                g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n\
                h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\n\
                i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]\n";
    assert_eq!(from_yaml(text).unwrap_err().0, "yaml: document contains excessive aliasing");
    // Deep nesting is refused rather than overflowing the stack.
    let deep = "[".repeat(5000) + &"]".repeat(5000);
    assert!(from_yaml(&deep).unwrap_err().0.contains("exceeded max depth"));
    let deep_block: String = (0..300).map(|i| format!("{}- \n", " ".repeat(i * 2))).collect();
    assert!(from_yaml(&deep_block).is_err());
    // Alias chains that expand deeper than the limit are refused too.
    let mut chain = String::from("a0: &a0 [x]\n");
    for i in 1..250 {
        chain.push_str(&format!("a{i}: &a{i} [*a{}]\n", i - 1));
    }
    assert!(from_yaml(&chain).unwrap_err().0.contains("exceeded max depth"));
    // Oversized input.
    let big = "a".repeat(certgate_goyaml::MAX_INPUT_BYTES + 1);
    assert!(from_yaml(&big).is_err());
}

#[test]
fn hostile_inputs_do_not_panic() {
    for text in [
        "\u{feff}a: 1",
        "\t",
        "? ",
        ": ",
        "- - - -",
        "&a",
        "*",
        "!<>",
        "%YAML 1.2\n---\n1",
        "%TAG ! tag:x,2000:\n--- !a b",
        "{a: [}",
        "'",
        "\"\\x\"",
        "|\n  a\n b",
        ">+\n\n",
        "a: |0\n",
        "[a, b]: c",
        "{a: 1, a: 2}",
        "- !!map [1]",
        "x: !!seq {a: 1}",
    ] {
        let _ = from_yaml(text);
    }
}
