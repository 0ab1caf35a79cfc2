//! Go's texts and lines for lexical errors and stray characters (recorded from Go 1.26.8's
//! `text/template`; the oracle test `tests/gotemplate/parse_errors.rs` re-checks them).

use super::{Context, Prefix, first_error};
use crate::{Engine, FuncMap};

fn go(source: &str) -> Option<(usize, String)> {
    let context = Context {
        name: "t",
        left: "{{",
        right: "}}",
        is_function: &|name| name == "print" || name == "printf",
        clean_before: &|_| Prefix::Clean,
        clean_through: &|_, _| Prefix::Clean,
    };
    first_error(source, &context).map(|e| (e.line, e.message))
}

/// certgate's whole parse error for `source`, as Go's `template: t:LINE: MESSAGE`.
fn parse(source: &str) -> String {
    match Engine::new("t", FuncMap::new()).parse(source) {
        Ok(_) => "parsed".to_owned(),
        Err(e) => e.to_string(),
    }
}

#[test]
fn valid_templates_have_no_lexical_error() {
    for source in [
        "a {{.x}} {{- .y -}} {{$v := 1}}{{range $i, $e := .l}}{{$i}}{{end}}",
        r#"{{printf "%d\"" 3 | print}}{{ 'c' }}{{`raw`}}{{(1)}}{{0x1p-2}}{{-3}}{{1e+5}}"#,
        "{{/* c */}}{{- /* c */ -}}{{ .a.b }}{{$}}{{.}}{{print '\\x41' '\\n' '\\u00e9'}}",
    ] {
        assert_eq!(go(source), None, "{source}");
        assert_eq!(parse(source), "parsed", "{source}");
    }
}

#[test]
fn a_stray_character_is_named_by_where_the_parser_stood() {
    let cases = [
        (r"{{\}}", r#"template: t:1: unexpected "\\" in command"#),
        (r"{{.x \}}", r#"template: t:1: unexpected "\\" in operand"#),
        (r#"{{"s"\}}"#, r#"template: t:1: unexpected "\\" in operand"#),
        (r"{{print 1 #}}", r##"template: t:1: unexpected "#" in operand"##),
        (r"{{if \}}{{end}}", r#"template: t:1: unexpected "\\" in if"#),
        (r"{{with .x}}{{else with \}}{{end}}", r#"template: t:1: unexpected "\\" in with"#),
        (r"{{if .x}}{{else \}}{{end}}", r#"template: t:1: unexpected "\\" in else"#),
        (r"{{(\)}}", r#"template: t:1: unexpected "\\" in parenthesized pipeline"#),
        (r"{{print (len \)}}", r#"template: t:1: unexpected "\\" in operand"#),
        (r#"{{template "x" \}}"#, r#"template: t:1: unexpected "\\" in template clause"#),
        (r#"{{block "b" \}}{{end}}"#, r#"template: t:1: unexpected "\\" in block clause"#),
        (r"{{define \}}{{end}}", r#"template: t:1: unexpected "\\" in define clause"#),
        (r"{{$x := \}}", r#"template: t:1: unexpected "\\" in command"#),
        (r"{{.x | \}}", r#"template: t:1: unexpected "\\" in command"#),
        ("a\n{{print\n\\}}", r#"template: t:3: unexpected "\\" in operand"#),
        (r"{{range $i, $v := .l}}{{$v \}}{{end}}", r#"template: t:1: unexpected "\\" in operand"#),
        ("{{.x := 1}}", r#"template: t:1: unexpected ":=" in operand"#),
        ("{{if 1}}{{end .x}}", r#"template: t:1: unexpected ".x" in end"#),
        (r"{{if 1}}{{end \}}", r#"template: t:1: unexpected "\\" in end"#),
        ("{{if 1}}{{else print}}{{end}}", r#"template: t:1: unexpected "print" in else"#),
        ("{{block}}", r#"template: t:1: unexpected "}}" in block clause"#),
        ("{{template .x}}", r#"template: t:1: unexpected ".x" in template clause"#),
        (r#"{{define "d" 1}}{{end}}"#, r#"template: t:1: unexpected "1" in define clause"#),
        ("{{1.2.3}}", r#"template: t:1: unexpected ".3" in operand"#),
        (r#"{{"s"eq}}"#, r#"template: t:1: unexpected "eq" in operand"#),
        ("{{.. .x}}", "template: t:1: unexpected <.> in operand"),
        ("{{.x if}}", "template: t:1: unexpected <if> in operand"),
        ("{{if range}}{{end}}", "template: t:1: unexpected <range> in if"),
        (r#"{{"s".x}}"#, r#"template: t:1: unexpected . after term "\"s\"""#),
        ("{{1 .x.y}}{{print 1.5.x}}", r#"template: t:1: unexpected . after term "1.5""#),
        (r#"{{print "abcdefghijkl"(1)}}"#, r#"template: t:1: unexpected "(" in operand"#),
    ];
    for (source, want) in cases {
        assert_eq!(parse(source), want, "{source}");
    }
}

#[test]
fn lexer_errors_are_gos() {
    let cases = [
        (r"{{.x\}}", r"template: t:1: bad character U+005C '\'"),
        ("{{.x'}}", "template: t:1: bad character U+0027 '''"),
        ("{{print'}}", "template: t:1: bad character U+0027 '''"),
        (r#"{{"a}}"#, "template: t:1: unterminated quoted string"),
        ("{{ `abc }}", "template: t:1: unterminated raw quoted string"),
        ("{{ 'a }}", "template: t:1: unterminated character constant"),
        ("{{ .x\n\n\"a}}", "template: t:3: unterminated quoted string in action started at t:1"),
        ("{{.x\n", "template: t:2: unclosed action started at t:1"),
        ("{{/* x }}", "template: t:1: unclosed comment"),
        ("{{if .x}}\n{{/* a", "template: t:2: unclosed comment in action started at t:1"),
        ("{{/* x */ x}}", "template: t:1: comment ends before closing delimiter"),
        ("{{€}}", "template: t:1: unrecognized character in action: U+20AC '€'"),
        ("{{1a}}", r#"template: t:1: bad number syntax: "1a""#),
        ("{{3x}}", r#"template: t:1: bad number syntax: "3x""#),
        ("{{ ) }}", "template: t:1: unexpected right paren"),
        ("{{ (1 }}", "template: t:1: unclosed left paren"),
    ];
    for (source, want) in cases {
        assert_eq!(parse(source), want, "{source}");
    }
}

/// Numbers Go's lexer takes and its parser refuses.
#[test]
fn refused_numbers_are_worded_as_go() {
    assert_eq!(parse("{{-}}"), r#"template: t:1: illegal number syntax: "-""#);
    assert_eq!(parse("{{print 0x}}"), r#"template: t:1: illegal number syntax: "0x""#);
    assert_eq!(parse("{{089}}"), r#"template: t:1: integer overflow: "089""#);
}

#[test]
fn character_constants_are_checked_as_gos_parser_does() {
    assert_eq!(parse("{{'ab'}}"), "template: t:1: malformed character constant: 'ab'");
    assert_eq!(parse(r"{{'\q'}}"), "template: t:1: invalid syntax");
    assert_eq!(parse("{{print ''}}"), "template: t:1: invalid syntax");
}

/// Go reads front to back: a parser error before the stray character or lexer error wins.
#[test]
fn an_earlier_parser_error_is_reported_first() {
    assert_eq!(parse(r"{{}} {{\}}"), "template: t:1: missing value for command");
    assert_eq!(parse("{{if}}{{end}}"), "template: t:1: missing value for if");
    assert_eq!(parse("{{with .x}}{{else with}}{{end}}"), "template: t:1: missing value for with");
    assert_eq!(parse("{{print ()}}"), "template: t:1: missing value for parenthesized pipeline");
    assert_eq!(parse(r"{{x \}}"), r#"template: t:1: function "x" not defined"#);
    assert_eq!(parse("{{$x \\}}"), r#"template: t:1: undefined variable "$x""#);
    assert_eq!(parse("{{ $x }}\n{{\"a}}"), r#"template: t:1: undefined variable "$x""#);
}

/// Found by the hub-templates differential test: a JSON-escaped quote inside an action.
#[test]
fn other_delimiters_are_followed() {
    let engine = Engine::new("tmpl", crate::FuncMap::new()).delims("{{hub", "hub}}").unwrap();
    let error = engine.parse("x\n{{hub \\\"3\\\" | toInt hub}}").err().map(|e| e.to_string());
    assert_eq!(error.as_deref(), Some(r#"template: tmpl:2: unexpected "\\" in command"#));
}
