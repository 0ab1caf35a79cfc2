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

#[test]
fn a_comment_may_follow_a_token_without_white_space() {
    // yaml.v3 reads a `#` where a token could start as a comment, after a closing quote, a
    // flow indicator or a block scalar header alike.
    assert_eq!(decoded("a: \"x\"#c\n"), json!({"a": "x"}));
    assert_eq!(decoded("a: 'x'#c\n"), json!({"a": "x"}));
    assert_eq!(decoded("a: [x]#c\n"), json!({"a": ["x"]}));
    assert_eq!(decoded("a: {x: y}#c\n"), json!({"a": {"x": "y"}}));
    assert_eq!(decoded("[a,#x\n b]\n"), json!(["a", "b"]));
    assert_eq!(decoded("[\"a\"#x\n]\n"), json!(["a"]));
    assert_eq!(decoded("a: |#c\n x\n"), json!({"a": "x\n"}));
    assert_eq!(decoded("- \"x\"#c\n- y\n"), json!(["x", "y"]));
    // The comment runs to the end of the line, a `:` in it included.
    assert_eq!(decoded("\"k\"#c: 1\n"), json!("k"));
    // A `#` inside a quoted scalar stays content; one inside a plain scalar too.
    assert_eq!(decoded("a: \"x#y\"#c\nb: c#d\n"), json!({"a": "x#y", "b": "c#d"}));
    // A multi-line double-quoted scalar whose closing quote is followed by `#`.
    assert_eq!(decoded("x: \"- x\na: b\\\"\nc: 1\"#not\"\n"), json!({"x": "- x a: b\" c: 1"}));
}

#[test]
fn many_comments_without_white_space_are_all_read() {
    let text: String = (0..300).map(|i| format!("k{i}: \"v\"#c\n")).collect();
    let value = decoded(&text);
    assert_eq!(value.as_object().map(|m| m.len()), Some(300));
    assert_eq!(value["k299"], json!("v"));
}

#[test]
fn a_block_scalar_indented_deeper_than_its_next_line_is_empty() {
    // Leading blank lines longer than the next line fix the indentation: the scalar is empty
    // and the next line belongs to the enclosing block.
    assert_eq!(decoded("a: >\n   \n # c\nb: 1\n"), json!({"a": "", "b": 1}));
    assert_eq!(decoded("a: >-\n   \n # c\nb: 1\n"), json!({"a": "", "b": 1}));
    assert_eq!(decoded("a: >\n   \n # c"), json!({"a": ""}));
    // Keep chomping keeps one line break per blank line.
    assert_eq!(decoded("a: |+\n   \n\n   \n # c\nb: 1\n"), json!({"a": "\n\n\n", "b": 1}));
    // An indentation indicator deeper than the next line, with tag, anchor and comment.
    assert_eq!(decoded("a: |2\n # c\nb: 1\n"), json!({"a": "", "b": 1}));
    assert_eq!(decoded("a: |+4\n  \n  # c\nb: 1\n"), json!({"a": "\n", "b": 1}));
    assert_eq!(decoded("a: !!str >\n   \n # c\nb: 1\n"), json!({"a": "", "b": 1}));
    assert_eq!(decoded("a: &x |3 # h\n  # c\nb: *x\n"), json!({"a": "", "b": ""}));
    // What yaml.v3's encoder writes for a multi-line key starting with a space in a sequence.
    assert_eq!(decoded("- ? |6-\n   # c\n  : 1\n"), json!([{"": 1}]));
    // Content on the next line is read in the enclosing block, where it is an error.
    assert_eq!(refused("a: |2\n x\nb: 1\n"), "yaml: line 1: did not find expected key");
    assert_eq!(refused("- |3\n  x\n- y\n"), "yaml: line 1: did not find expected '-' indicator");
}

#[test]
fn an_indentation_indicator_counts_from_the_enclosing_block() {
    // `- - >1+` is indented 1 past the inner sequence (column 2): a last line of three
    // spaces is indentation only, so the text's final line break is the scalar's.
    assert_eq!(decoded("- - >1+\n   a b  \n   "), json!([["a b  \n"]]));
    assert_eq!(decoded("- a: |2+\n    x\n    "), json!([{"a": "x\n"}]));
    assert_eq!(decoded("- a: |2+\n    x\n     "), json!([{"a": "x\n "}]));
}

#[test]
fn content_after_a_quoted_root_on_its_line_is_skipped() {
    // yaml.v3 decodes one node; what follows on the line is scanned but not parsed.
    assert_eq!(decoded("'op-4'tmu"), json!("op-4"));
    assert_eq!(decoded("''4-a"), json!(""));
    assert_eq!(decoded("'-'-p#  2 "), json!("-"));
    assert_eq!(decoded("\"x\"\tb 'c' \"d\"\n# c\n\n"), json!("x"));
    assert_eq!(decoded("'x' b, c]\n"), json!("x"));
    // Indicators there are refused by yaml.v3 too.
    assert!(from_yaml("'x' b: 1").is_err());
    assert!(from_yaml("'x' - b\n").is_err());
    assert!(from_yaml("'x' @").is_err());
    assert!(from_yaml("'x' \"b").is_err());
    // Only the root: inside a collection the parser's refusal stands, as yaml.v3's does.
    assert!(from_yaml("a: 'x'y\n").is_err());
    assert!(from_yaml("- 'x'y\n").is_err());
}

#[test]
fn a_tab_right_after_a_block_indicator_is_refused() {
    let problem = "found character that cannot start any token";
    assert_eq!(refused("-\tx\n"), format!("yaml: {problem}"));
    assert_eq!(refused("- \tx\n"), format!("yaml: {problem}"));
    assert_eq!(refused("-\t# tab\n- x\n"), format!("yaml: {problem}"));
    assert_eq!(refused("a:\n-\tb\n"), format!("yaml: line 2: {problem}"));
    assert_eq!(refused("? a\n:\tb\n"), format!("yaml: line 2: {problem}"));
    assert_eq!(refused("- - \tb\n"), format!("yaml: {problem}"));
    // After an implicit key's `:`, in flow collections and inside scalars a tab is fine.
    assert_eq!(decoded("a:\t1\n"), json!({"a": 1}));
    assert_eq!(decoded("- a:\t1\n"), json!([{"a": 1}]));
    assert_eq!(decoded("- 'a\t-\tb'\n"), json!(["a\t-\tb"]));
    assert_eq!(decoded("[a,\t-b]\n"), json!(["a", "-b"]));
}

#[test]
fn a_plain_scalar_in_a_flow_collection_keeps_a_colon_before_a_flow_indicator() {
    assert_eq!(decoded("[a:, b]\n"), json!(["a:", "b"]));
    assert_eq!(decoded("a: [ a:, b]\n"), json!({"a": ["a:", "b"]}));
    assert_eq!(decoded("{ x y:}\n"), json!({"x y:": null}));
    assert_eq!(decoded("{a:, b: c}\n"), json!({"a:": null, "b": "c"}));
    assert_eq!(decoded("[a::, it's:]\n"), json!(["a::", "it's:"]));
    // A `:` before white space is a value indicator to both.
    assert_eq!(decoded("[a: , b]\n"), json!([{"a": null}, "b"]));
    assert_eq!(decoded("[a:b, c]\n"), json!(["a:b", "c"]));
    assert_eq!(decoded("[\"a\":, b]\n"), json!([{"a": null}, "b"]));
}

#[test]
fn a_value_without_a_key_is_refused() {
    assert_eq!(refused(": y"), "yaml: did not find expected key");
    assert_eq!(refused("a: 1\n: 2\n"), "yaml: line 1: did not find expected key");
    assert_eq!(refused("- : x\n"), "yaml: did not find expected key");
    assert_eq!(refused("[: x]\n"), "yaml: did not find expected node content");
    assert_eq!(refused(": y\n: z\n"), "yaml: did not find expected key");
    // An explicit empty key is read by yaml.v3 (and refused by json.Marshal).
    assert_eq!(refused("? \n: x\n"), "json: unsupported type: map[interface {}]interface {}");
}
