//! Golden texts for `to_yaml`: what yaml.v3's Encoder (SetIndent(2)) writes after
//! go-template-utils' `yaml.Unmarshal` of the JSON. Rule sources are noted per table
//! (encode.go `stringv`/`floatv`, emitterc.go analysis and style selection, sorter.go).

use certgate_goyaml::{to_yaml, to_yaml_with_indent};
use serde_json::json;

fn value_of(s: &str) -> String {
    to_yaml(&json!({ "k": s }))
}

#[test]
fn string_quoting() {
    // (input, expected line). Plain unless the plain text would resolve to another type
    // (double quotes, encode.go) or the emitter's analysis forbids plain (single quotes,
    // emitterc.go select_scalar_style), or single quotes are not allowed either (double).
    let cases: &[(&str, &str)] = &[
        ("hello", "k: hello\n"),
        ("hello world", "k: hello world\n"),
        ("", "k: \"\"\n"),
        ("true", "k: \"true\"\n"),
        ("False", "k: \"False\"\n"),
        ("null", "k: \"null\"\n"),
        ("~", "k: \"~\"\n"),
        ("123", "k: \"123\"\n"),
        ("1.5", "k: \"1.5\"\n"),
        ("0x1F", "k: \"0x1F\"\n"),
        ("1e3", "k: \"1e3\"\n"),
        ("1_000", "k: \"1_000\"\n"),
        (".inf", "k: \".inf\"\n"),
        ("-.Inf", "k: \"-.Inf\"\n"),
        (".NaN", "k: \".NaN\"\n"),
        // "<<" starts with a character outside resolve.go's hint table, so v3.0.1 resolves
        // it as a string and writes it plain.
        ("<<", "k: <<\n"),
        ("2015-01-01", "k: \"2015-01-01\"\n"),
        ("2015-01-01T10:00:00Z", "k: \"2015-01-01T10:00:00Z\"\n"),
        // YAML 1.1 booleans and base-60 floats stay quoted (isOldBool / isBase60Float).
        ("yes", "k: \"yes\"\n"),
        ("on", "k: \"on\"\n"),
        ("N", "k: \"N\"\n"),
        ("1:20", "k: \"1:20\"\n"),
        ("190:20:30.15", "k: \"190:20:30.15\"\n"),
        // Not typed: plain.
        ("yess", "k: yess\n"),
        ("1:2:3:70", "k: 1:2:3:70\n"),
        ("12abc", "k: 12abc\n"),
        ("1e400", "k: 1e400\n"),
        ("2015-13-01", "k: 2015-13-01\n"),
        ("-a", "k: -a\n"),
        (":a", "k: :a\n"),
        ("a:b", "k: a:b\n"),
        ("a#b", "k: a#b\n"),
        ("a-b", "k: a-b\n"),
        ("?a", "k: ?a\n"),
        ("a]", "k: a]\n"),
        ("a, b", "k: a, b\n"),
        // Indicators and layout that forbid plain: single quotes.
        (
            "{{hub fromSecret \"ns\" \"s\" \"k\" hub}}",
            "k: '{{hub fromSecret \"ns\" \"s\" \"k\" hub}}'\n",
        ),
        ("{a}", "k: '{a}'\n"),
        ("[a]", "k: '[a]'\n"),
        ("'quoted'", "k: '''quoted'''\n"),
        ("\"dq\"", "k: '\"dq\"'\n"),
        ("*alias", "k: '*alias'\n"),
        ("&anchor", "k: '&anchor'\n"),
        ("!tag", "k: '!tag'\n"),
        ("|", "k: '|'\n"),
        (">", "k: '>'\n"),
        ("%x", "k: '%x'\n"),
        ("@x", "k: '@x'\n"),
        ("`x", "k: '`x'\n"),
        ("#x", "k: '#x'\n"),
        (",x", "k: ',x'\n"),
        ("- a", "k: '- a'\n"),
        ("-", "k: '-'\n"),
        ("? a", "k: '? a'\n"),
        (": a", "k: ': a'\n"),
        ("a: b", "k: 'a: b'\n"),
        ("a:", "k: 'a:'\n"),
        ("a #b", "k: 'a #b'\n"),
        (" lead", "k: ' lead'\n"),
        ("trail ", "k: 'trail '\n"),
        ("---", "k: '---'\n"),
        ("...x", "k: '...x'\n"),
        // Tabs and non-printable characters: double quotes with escapes.
        ("a\tb", "k: \"a\\tb\"\n"),
        ("a\rb", "k: \"a\\rb\"\n"),
        ("bell\u{7}", "k: \"bell\\a\"\n"),
        ("nul\u{0}", "k: \"nul\\0\"\n"),
        ("esc\u{1b}", "k: \"esc\\e\"\n"),
        ("del\u{7f}", "k: \"del\\x7F\"\n"),
        ("c1\u{85}", "k: \"c1\\N\"\n"),
        ("bom\u{feff}", "k: \"bom\\uFEFF\"\n"),
        // Characters outside the BMP are not "printable" to libyaml.
        ("smile 😀", "k: \"smile \\U0001F600\"\n"),
        // Printable Unicode stays as is (the encoder enables unicode output).
        ("héllo wörld", "k: héllo wörld\n"),
        ("日本語", "k: 日本語\n"),
        ("nbsp\u{a0}x", "k: nbsp\u{a0}x\n"),
        // Backslashes and quotes need no escaping in plain style.
        ("C:\\path", "k: C:\\path\n"),
        ("say \"hi\"", "k: say \"hi\"\n"),
        ("it's", "k: it's\n"),
    ];
    for (input, expected) in cases {
        assert_eq!(&value_of(input), expected, "input {input:?}");
    }
}

#[test]
fn long_strings_are_not_folded() {
    // yaml.v3 sets best_width to -1: no line folding at 80 columns.
    let long = "word ".repeat(40).trim_end().to_owned();
    assert_eq!(value_of(&long), format!("k: {long}\n"));
    let quoted = format!("{{{{hub {} hub}}}}", "x ".repeat(60));
    assert_eq!(value_of(&quoted), format!("k: '{quoted}'\n"));
}

#[test]
fn multi_line_strings() {
    // encode.go asks for the literal style when the string contains "\n"; the chomping
    // indicator follows the trailing breaks (emitterc.go write_block_scalar_hints).
    assert_eq!(value_of("a\nb"), "k: |-\n  a\n  b\n");
    assert_eq!(value_of("a\nb\n"), "k: |\n  a\n  b\n");
    assert_eq!(value_of("a\nb\n\n"), "k: |+\n  a\n  b\n\n");
    // yaml.v3 v3.0.1 writes no break after the header: a leading break ends the header line
    // (checked against yaml.v3 by the differential test).
    assert_eq!(value_of("\n"), "k: |2+\n");
    assert_eq!(value_of("a\n\nb"), "k: |-\n  a\n\n  b\n");
    // Leading space or break: an explicit indentation indicator.
    assert_eq!(value_of("  indented\nx"), "k: |2-\n    indented\n  x\n");
    assert_eq!(value_of("\nx"), "k: |2-\n  x\n");
    // Tabs are fine in literal blocks.
    assert_eq!(value_of("a\tb\nc"), "k: |-\n  a\tb\n  c\n");
    // A space before a break, or a trailing space: no block style, double quotes.
    assert_eq!(value_of("a \nb"), "k: \"a \\nb\"\n");
    assert_eq!(value_of("a\nb "), "k: \"a\\nb \"\n");
    // Non-printable characters in a multi-line string: double quotes.
    assert_eq!(value_of("a\nb\u{1}"), "k: \"a\\nb\\x01\"\n");
    // Following keys continue at the mapping's indentation.
    assert_eq!(to_yaml(&json!({"a": "x\ny\n", "b": 1})), "a: |\n  x\n  y\nb: 1\n");
    assert_eq!(to_yaml(&json!({"a": "x\ny", "b": 1})), "a: |-\n  x\n  y\nb: 1\n");
}

#[test]
fn numbers_bools_null() {
    // Integers stay Go ints; floats use strconv.FormatFloat(f, 'g', -1, 64) (encode.go floatv).
    let v = json!({
        "a": 0, "b": -1, "c": 1.5, "d": 1e21, "e": 123456789012345678_i64,
        "f": 1.0, "g": 1e6, "h": 123456.0, "i": 0.0001, "j": 0.00001,
        "k": 18446744073709551615_u64, "l": 123456789012345678.0_f64,
        "m": true, "n": false, "o": null, "p": -2.5
    });
    assert_eq!(
        to_yaml(&v),
        "a: 0\nb: -1\nc: 1.5\nd: 1e+21\ne: 123456789012345678\nf: 1\ng: 1e+06\nh: 123456\n\
         i: 0.0001\nj: 1e-05\nk: 18446744073709551615\nl: 1.2345678901234568e+17\n\
         m: true\n\"n\": false\no: null\np: -2.5\n"
    );
}

#[test]
fn nesting_and_empty_collections() {
    let v = json!({
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "x", "labels": {}},
        "data": {"list": [1, "two", {"three": 3, "four": [4]}, [5, 6], [], {}]},
        "empty": []
    });
    assert_eq!(
        to_yaml(&v),
        "apiVersion: v1\n\
         data:\n  list:\n    - 1\n    - two\n    - four:\n        - 4\n      three: 3\n    - - 5\n      - 6\n    - []\n    - {}\n\
         empty: []\n\
         kind: ConfigMap\n\
         metadata:\n  labels: {}\n  name: x\n"
    );
}

#[test]
fn top_level_values() {
    assert_eq!(to_yaml(&json!(null)), "null\n");
    assert_eq!(to_yaml(&json!("hello")), "hello\n");
    assert_eq!(to_yaml(&json!("a\nb")), "|-\n  a\n  b\n");
    assert_eq!(to_yaml(&json!({})), "{}\n");
    assert_eq!(to_yaml(&json!([])), "[]\n");
    assert_eq!(to_yaml(&json!([1, [2, 3]])), "- 1\n- - 2\n  - 3\n");
    assert_eq!(to_yaml(&json!([{"a": 1, "b": [1]}])), "- a: 1\n  b:\n    - 1\n");
    assert_eq!(to_yaml(&json!(["x\ny"])), "- |-\n  x\n  y\n");
}

#[test]
fn key_order_and_key_quoting() {
    // sorter.go: non-letters before letters, digit runs numerically.
    let v = json!({"b": 1, "a10": 2, "a2": 3, "A": 4, "_z": 5, "10": 6, "9": 7});
    assert_eq!(to_yaml(&v), "_z: 5\n\"9\": 7\n\"10\": 6\nA: 4\na2: 3\na10: 2\nb: 1\n");
    // Keys follow the same quoting rules; an empty key is double quoted.
    let v = json!({"": 1, "a b": 2, "x: y": 3, "true": 4});
    assert_eq!(to_yaml(&v), "\"\": 1\na b: 2\n\"true\": 4\n'x: y': 3\n");
    // Multi-line and very long keys use the explicit "? " form.
    let v = json!({"a\nb": 1});
    assert_eq!(to_yaml(&v), "? |-\n  a\n  b\n: 1\n");
    let long = "k".repeat(129);
    let v = json!({ long.clone(): {"x": 1} });
    assert_eq!(to_yaml(&v), format!("? {long}\n: x: 1\n"));
    let ok = "k".repeat(128);
    assert_eq!(to_yaml(&json!({ ok.clone(): 1 })), format!("{ok}: 1\n"));
}

#[test]
fn other_indents() {
    let v = json!({"a": {"b": [1, {"c": "x\ny"}]}});
    assert_eq!(
        to_yaml_with_indent(&v, 4),
        "a:\n    b:\n        - 1\n        - c: |-\n            x\n            y\n"
    );
    // Out-of-range indents fall back to 2, like yaml.v3's emitter.
    assert_eq!(to_yaml_with_indent(&v, 1), to_yaml(&v));
}

#[test]
fn hub_template_policy_layout() {
    // The shape the templates crate relies on: single-quoted hub templates after "key: ".
    // (The key "n" is a YAML 1.1 boolean, so yaml.v3 quotes it.)
    let v = json!({
        "apiVersion": "policy.open-cluster-management.io/v1",
        "kind": "ConfigurationPolicy",
        "spec": {"object-templates": [{"complianceType": "musthave", "objectDefinition": {
            "data": {"pw": "{{hub fromSecret \"ns\" \"s\" \"pw\" hub}}", "n": "{{hub \"3\" | toInt hub}}"}
        }}]}
    });
    assert_eq!(
        to_yaml(&v),
        "apiVersion: policy.open-cluster-management.io/v1\n\
         kind: ConfigurationPolicy\n\
         spec:\n  object-templates:\n    - complianceType: musthave\n      objectDefinition:\n        data:\n\
         \x20         \"n\": '{{hub \"3\" | toInt hub}}'\n\
         \x20         pw: '{{hub fromSecret \"ns\" \"s\" \"pw\" hub}}'\n"
    );
}
