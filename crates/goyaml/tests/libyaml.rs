//! libyaml behaviours certgate-goyaml reproduces because it ports libyaml (as yaml.v3 v3.0.1
//! carries it) instead of using a YAML 1.2 parser. Each expected answer was recorded from
//! yaml.v3 through the oracle (`tools/oracles/yaml`); the differential tests in
//! `crates/dev/oracles/tests/yaml.rs` check the same behaviours on generated documents.

use certgate_goyaml::from_yaml;

fn answer(text: &str) -> Result<String, String> {
    from_yaml(text).map(|v| v.to_string()).map_err(|e| e.0)
}

fn ok(json: &str) -> Result<String, String> {
    Ok(json.to_owned())
}

fn err(message: &str) -> Result<String, String> {
    Err(message.to_owned())
}

#[test]
fn only_what_the_first_document_needs_is_read() {
    // The parser reads one token past the root (plus two for comments): a later document's
    // errors are never met.
    assert_eq!(answer("a: 1\n--- \n[\n"), ok(r#"{"a":1}"#));
    assert_eq!(answer("- a\n- \"b\n  c\"\n---\n: x"), ok(r#"["a","b c"]"#));
    assert_eq!(answer("8\n: x"), ok("8"));
    // ... but the token right after it is scanned.
    assert_eq!(answer("'a0m'\n'\n#\n"), err("yaml: line 2: found unexpected end of stream"));
}

#[test]
fn control_characters_are_refused_as_far_as_the_reader_decoded() {
    // libyaml decodes 512-byte windows as the scanner needs them; a control character in a
    // window it never decodes is never seen.
    let far = format!("a: 1\n---\n- x\n{}\u{1}", "y".repeat(1000));
    assert_eq!(answer(&far), ok(r#"{"a":1}"#));
    let near = format!("a: 1\n---\n- x\n{}\u{1}", "y".repeat(100));
    assert_eq!(answer(&near), err("yaml: control characters are not allowed"));
    assert_eq!(answer("a: 'x' # c\n\u{1}"), err("yaml: control characters are not allowed"));
}

#[test]
fn nel_ls_and_ps_are_line_breaks() {
    // YAML 1.1: NEL folds like LF in a quoted scalar and ends a plain one; LS/PS are kept.
    assert_eq!(answer("a: \"x\u{85}y\"\n"), ok(r#"{"a":"x y"}"#));
    assert_eq!(answer("a: x\u{85}y\n"), err("yaml: line 2: could not find expected ':'"));
    assert_eq!(answer("a: x\u{2028}  y\n"), ok("{\"a\":\"x\u{2028}y\"}"));
}

#[test]
fn tabs_where_libyaml_refuses_them() {
    assert_eq!(
        answer("- a\n-\tb\n"),
        err("yaml: line 2: found character that cannot start any token")
    );
    assert_eq!(
        answer("\n- - >\n  \tz\n"),
        err("yaml: line 2: found a tab character where an indentation space is expected")
    );
    // A continuation line of a quoted scalar may start with a tab, at any indentation.
    assert_eq!(answer("k: 'a\n\tb'\n"), ok(r#"{"k":"a b"}"#));
}

#[test]
fn a_head_comment_makes_the_parser_retry_after_a_scanner_failure() {
    // yaml.v3's stem-comment split peeks at the token after a sequence entry and ignores a
    // failure: the scanner goes on from where it stopped and the next problem wins.
    assert_eq!(
        answer("# c\n- - >\n  \tz\n"),
        err("yaml: line 3: found character that cannot start any token")
    );
}

#[test]
fn parser_errors_name_the_line_before() {
    // yaml.v3 adds one to scanner lines only: a parser error's line is 0-based, none on 0.
    assert_eq!(answer("a: 1\nb: [\n"), err("yaml: line 2: did not find expected node content"));
    assert_eq!(answer("a: |\n  x\n b: 1\n"), err("yaml: line 2: did not find expected key"));
}

#[test]
fn directives_and_simple_key_limits() {
    assert_eq!(answer("%YAML 1.2\n---\na: 1\n"), err("yaml: found incompatible YAML document"));
    let long_key = format!("{}: 1", "a".repeat(1030));
    assert_eq!(answer(&long_key), err("yaml: mapping values are not allowed in this context"));
    // An empty block scalar key sits on its header's line.
    assert_eq!(answer("? |2+\n: 1\n"), ok(r#"{"":1}"#));
}
