//! yaml.v3's texts and lines for parser errors, as recorded from yaml.v3 v3.0.1 (the `yaml`
//! oracle under `tools/oracles`).

use crate::from_yaml;

fn err(text: &str) -> String {
    from_yaml(text).expect_err("the document is invalid").0
}

fn assert_errors(cases: &[(&str, &str)]) {
    for (text, upstream) in cases {
        assert_eq!(err(text), *upstream, "on {text:?}");
    }
}

/// Parser errors print libyaml's 0-based context line (the collection's start), and nothing
/// when that and the problem are on the first line.
#[test]
fn parser_errors_report_the_collection_start_zero_based() {
    assert_errors(&[
        ("- &a0 *a0\n", "yaml: did not find expected '-' indicator"),
        ("c1:\n    - &a0 *a0\na: x\n", "yaml: line 1: did not find expected '-' indicator"),
        ("%YAML 1.1\n---\nb: &a0 *a0\n", "yaml: line 2: did not find expected key"),
        ("a: 1\nb:\n  - c\n  d: e\n", "yaml: line 2: did not find expected '-' indicator"),
        ("- a\nb: c\n", "yaml: line 1: did not find expected '-' indicator"),
        ("a: 'x'\n  b: c\n", "yaml: line 1: did not find expected key"),
    ]);
}

/// Scanner errors print the 1-based line of their context mark, or of the problem when the
/// context is on the first line, or nothing when both are.
#[test]
fn scanner_errors_report_one_based_lines_except_on_the_first() {
    assert_errors(&[
        ("a: b: c\n", "yaml: mapping values are not allowed in this context"),
        ("a: b\nc: d: e\n", "yaml: line 2: mapping values are not allowed in this context"),
        ("@x\n", "yaml: found character that cannot start any token"),
        ("a: b\n@x\n", "yaml: line 2: found character that cannot start any token"),
        ("a: |x\n  b\n", "yaml: did not find expected comment or line break"),
        ("a: b\nc: |x\n  b\n", "yaml: line 2: did not find expected comment or line break"),
        ("a: b\nc: !<x>y z\n", "yaml: line 2: did not find expected whitespace or line break"),
    ]);
}

/// Quoted scalar errors: the context is the scalar's start, the problem the end of the
/// stream or the document indicator.
#[test]
fn quoted_scalar_errors_report_the_scalar_start() {
    assert_errors(&[
        ("a: \"x\n", "yaml: line 2: found unexpected end of stream"),
        ("a: b\nc: 'x\n\n", "yaml: line 2: found unexpected end of stream"),
        ("c1: \"---\\\"", "yaml: found unexpected end of stream"),
        ("b: \"x\n---\n'\n\"\n", "yaml: line 2: found unexpected document indicator"),
        ("a: x\nb: \"x\n---\ny\"\n", "yaml: line 2: found unexpected document indicator"),
        ("a: x\nb: \"x\n\\q\"\n", "yaml: line 2: found unknown escape character"),
        ("a: x\nb: \"x \\q\"\n", "yaml: line 2: found unknown escape character"),
    ]);
}

/// libyaml reads on after a closing quote; the parser then fails on the next token.
#[test]
fn content_after_a_quoted_scalar_fails_where_libyaml_fails() {
    assert_errors(&[
        ("a: x\nb: \"x\n y\"z\nc: d\n", "yaml: line 2: did not find expected key"),
        ("a: x\nb: \"x\"z: w\n", "yaml: line 2: mapping values are not allowed in this context"),
        ("- \"x\" y\n- z\n", "yaml: did not find expected '-' indicator"),
        ("a:\n  - b\n  - \"x\" y\n", "yaml: line 1: did not find expected '-' indicator"),
        ("a: b\n\"x\" y\nc: d\n", "yaml: line 2: could not find expected ':'"),
        ("[\"x\" y]\n", "yaml: did not find expected ',' or ']'"),
        ("{a: \"x\" y}\n", "yaml: did not find expected ',' or '}'"),
        // The plain scalar after the quote goes on over more indented lines.
        ("'9'ep\nl:", "yaml: line 2: mapping values are not allowed in this context"),
        (
            "a:\n  b: \"x\" y\n   z: w\n",
            "yaml: line 3: mapping values are not allowed in this context",
        ),
        ("a:\n  b: \"x\" y\n  z: w\n", "yaml: line 1: did not find expected key"),
        ("- \"x\" y\n  z: 1\n", "yaml: line 2: mapping values are not allowed in this context"),
    ]);
}

/// `[ , x]` and `{a:[b]}`: what libyaml's flow parser expects instead.
#[test]
fn flow_collection_errors() {
    assert_errors(&[
        ("[ , x]\n", "yaml: did not find expected node content"),
        ("a:\n  [\n , 1: x]\n", "yaml: line 2: did not find expected node content"),
        ("{ 'q': x, c:[], c: y}\n", "yaml: did not find expected ',' or '}'"),
        ("# c\n{ 'q': x,\n c:[], c: y}\n", "yaml: line 1: did not find expected ',' or '}'"),
        ("[a, b:{c: d}]\n", "yaml: did not find expected ',' or ']'"),
        (
            "---\n{ x y: [ [\n , x], a:{ c: 's p'}]}\n",
            "yaml: line 2: did not find expected node content",
        ),
    ]);
}

/// yaml.v3 leaves a mapping with duplicate keys undecoded: nothing inside it is reported.
#[test]
fn duplicate_keys_stop_the_mapping() {
    assert_errors(&[
        (
            "a: 1\na: 2\nb:\n  c: 1\n  c: 2\n",
            "yaml: unmarshal errors:\n  line 2: mapping key \"a\" already defined at line 1",
        ),
        (
            "a:\n  x: 1\n  x: 2\na: 3\n",
            "yaml: unmarshal errors:\n  line 4: mapping key \"a\" already defined at line 1",
        ),
        (
            "a:\n  {p: q}: 1\n  {r: s}: 2\n",
            "yaml: unmarshal errors:\n  line 3: mapping key \"\" already defined at line 2",
        ),
    ]);
}
