//! One test per deviation class the differential test against yaml.v3 v3.0.1 found
//! (crates/dev/oracles/tests/yaml.rs); expected values are yaml.v3's recorded answers.

use certgate_goyaml::{from_yaml, to_yaml, to_yaml_with_indent};
use serde_json::{Value, json};

fn decoded(text: &str) -> Value {
    from_yaml(text).unwrap_or_else(|e| panic!("{text:?} should decode: {e}"))
}

fn refused(text: &str) -> String {
    match from_yaml(text) {
        Ok(value) => panic!("{text:?} should be refused, got {value}"),
        Err(e) => e.0,
    }
}

#[test]
fn quoted_continuation_lines_may_have_any_indentation() {
    assert_eq!(decoded("- '''''\nw\n#not'\n"), json!(["'' w #not"]));
    assert_eq!(decoded("a:\n  b: \"x\ny\"\n"), json!({"a": {"b": "x y"}}));
    assert_eq!(decoded("a:\n  b: 'x\n\n  y\nz'\nc: 1\n"), json!({"a": {"b": "x\ny z"}, "c": 1}));
    // Many such lines in one document.
    let text = format!("a:\n  b: \"x{}\"\n", "\ny".repeat(300));
    assert_eq!(decoded(&text)["a"]["b"], Value::String(format!("x{}", " y".repeat(300))));
}

#[test]
fn quoted_continuation_lines_may_start_with_a_tab() {
    assert_eq!(decoded("k: 'a\n\tb'\n"), json!({"k": "a b"}));
    assert_eq!(decoded("k:\n  - \"a\n\t\\x41\n \tb\"\n"), json!({"k": ["a A b"]}));
}

#[test]
fn tabs_outside_quoted_scalars_stay_refused() {
    // Padding is only applied inside quoted scalars: a tab-indented block line is an error.
    assert!(from_yaml("a:\n\tb: 1\n").is_err());
    assert!(from_yaml("a: 'x'\n\tb: 1\n").is_err());
}

#[test]
fn a_document_marker_still_ends_a_quoted_scalar() {
    assert!(from_yaml("k: \"a\n--- \nb\"\n").is_err());
}

#[test]
fn block_scalars_ending_the_text_without_a_line_break_get_none() {
    assert_eq!(decoded("x: |\n   x: y\n   a b"), json!({"x": "x: y\na b"}));
    assert_eq!(decoded("m: |+\n x\n y"), json!({"m": "x\ny"}));
    assert_eq!(decoded("m: >\n x\n y"), json!({"m": "x y"}));
    // Spaces beyond the indentation on the last line are content; fewer are not.
    assert_eq!(decoded("b: >3+\n   a b\n     "), json!({"b": "a b\n  "}));
    assert_eq!(decoded("e: >+2\n  x\n    \n "), json!({"e": "x\n  \n"}));
    // A blank last line exactly at an explicit indentation adds nothing.
    assert_eq!(decoded("c1: |+3\n\n   # c\n   a b\n     \n   "), json!({"c1": "\n# c\na b\n  \n"}));
    // Blank bodies keep one break per line break of the text.
    assert_eq!(decoded("name: >+\n\n  "), json!({"name": "\n"}));
    assert_eq!(decoded("- |+\n     "), json!([""]));
    // With a final line break nothing changes.
    assert_eq!(decoded("m: |+\n x\n y\n"), json!({"m": "x\ny\n"}));
}

#[test]
fn a_tab_where_a_block_scalar_expects_indentation_is_refused() {
    let message = "found a tab character where an indentation space is expected";
    assert_eq!(refused("x: |\n  \t# c\n"), format!("yaml: line 2: {message}"));
    assert_eq!(refused("- ? |-\n    \tx\n  : 1\n"), format!("yaml: line 2: {message}"));
    // Past the first line the scalar's own line is reported.
    assert_eq!(refused("a: 1\nb: |\n  x\n \ty\n"), format!("yaml: line 2: {message}"));
    // A tab after the full indentation is content.
    assert_eq!(decoded("c: |\n x: y\n \ta b\n"), json!({"c": "x: y\n\ta b\n"}));
}

#[test]
fn floats_become_the_json_numbers_go_writes() {
    let value = decoded("- 9.223372036854776e+18\n- 3.091462783031141e17\n- 1e20\n- 1e21\n");
    assert_eq!(
        serde_json::to_string(&value).unwrap_or_default(),
        "[9223372036854776000,309146278303114100,1e+20,1e+21]"
    );
    let value = decoded("a: -9223372036854775809\nb: 18446744073709551616\n");
    assert_eq!(
        serde_json::to_string(&value).unwrap_or_default(),
        "{\"a\":-9.223372036854776e+18,\"b\":1.8446744073709552e+19}"
    );
}

#[test]
fn a_literal_block_starting_with_a_line_break_has_one_break_fewer() {
    assert_eq!(to_yaml(&json!({"a": "\n# not a comment"})), "a: |2-\n  # not a comment\n");
    assert_eq!(to_yaml(&json!({"a": "\n"})), "a: |2+\n");
    assert_eq!(to_yaml(&json!(["\n\nx\n"])), "- |2\n\n  x\n");
}

#[test]
fn a_value_starting_with_a_bom_has_every_character_escaped() {
    assert_eq!(to_yaml(&json!({"a": "\u{feff}b c\t\n"})), "a: \"\\uFEFF\\x62\\x20\\x63\\t\\n\"\n");
}

#[test]
fn after_a_digit_a_letter_sorts_before_a_digit() {
    let value = json!({"0x": 1, "017": 2, "a1": 3, "ab": 4, "1a": 5, "10": 6});
    assert_eq!(to_yaml(&value), "0x: 1\n1a: 5\n\"10\": 6\n\"017\": 2\na1: 3\nab: 4\n");
}

#[test]
fn other_indents_follow_the_same_rules() {
    let value = json!({"a": {"b": ["x\ny", {}]}});
    assert_eq!(
        to_yaml_with_indent(&value, 4),
        "a:\n    b:\n        - |-\n          x\n          y\n        - {}\n"
    );
}

#[test]
fn binary_bytes_that_are_not_utf8_become_one_replacement_character_each() {
    // "1e+3" decodes to the bytes d5 ef b7: an invalid lead byte, then a truncated sequence.
    assert_eq!(decoded("name: !!binary 1e+3\n"), json!({"name": "\u{FFFD}\u{FFFD}\u{FFFD}"}));
}
