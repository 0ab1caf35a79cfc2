//! Errors with Go's exact texts: parse errors, placed execution errors, argument errors.

mod common;

use certgate_gotemplate::TemplateError;
use common::{check, engine};

#[test]
fn parse_errors_carry_the_line_only() {
    check(&[
        ("a\nb\n{{nope 1}}", "ERR template: tmpl:3: function \"nope\" not defined"),
        (
            "{{if .T}}\n{{upper (nope)}}{{end}}",
            "ERR template: tmpl:2: function \"nope\" not defined",
        ),
        (
            r#"{{define "d"}}{{ nope }}{{end}}"#,
            "ERR template: tmpl:1: function \"nope\" not defined",
        ),
        ("{{.X", "ERR template: tmpl:1: unclosed action"),
        ("{{if .T}}\nyes", "ERR template: tmpl:2: unexpected EOF"),
        ("a{{end}}", "ERR template: tmpl:1: unexpected {{end}}"),
        ("{{else}}", "ERR template: tmpl:1: unexpected {{else}}"),
        ("{{if 1}}{{else}}{{else}}{{end}}", "ERR template: tmpl:1: expected end; found {{else}}"),
        ("{{$x}}", "ERR template: tmpl:1: undefined variable \"$x\""),
        ("{{if 1}}{{$x := 1}}{{end}}{{$x}}", "ERR template: tmpl:1: undefined variable \"$x\""),
        (
            "{{range $i, $v := .List}}{{end}}\n{{$v}}",
            "ERR template: tmpl:2: undefined variable \"$v\"",
        ),
        (
            r#"{{$x := 1}}{{define "d"}}{{$x}}{{end}}"#,
            "ERR template: tmpl:1: undefined variable \"$x\"",
        ),
        ("{{\"abc}}", "ERR template: tmpl:1: unterminated quoted string"),
        ("{{`abc}}", "ERR template: tmpl:1: unterminated raw quoted string"),
        ("{{/* x }}", "ERR template: tmpl:1: unclosed comment"),
        ("{{}}", "ERR template: tmpl:1: missing value for command"),
        ("{{(1}}", "ERR template: tmpl:1: unclosed left paren"),
        ("{{1)}}", "ERR template: tmpl:1: unexpected right paren"),
        // The earliest error in the source wins, as Go stops at the first.
        ("{{nope}}{{end}}", "ERR template: tmpl:1: function \"nope\" not defined"),
        ("{{end}}{{nope}}", "ERR template: tmpl:1: unexpected {{end}}"),
    ]);
}

#[test]
fn function_errors_are_placed_like_go() {
    check(&[
        (
            "{{fromSecret \"ns\" \"name\" \"key\"}}",
            "ERR template: tmpl:1:2: executing \"tmpl\" at <fromSecret \"ns\" \"name\" \"key\">: error calling fromSecret: secrets \"name\" not found",
        ),
        (
            "line1\nline2\n  x {{ fromSecret `ns` .Name  \"key\" }}",
            "ERR template: tmpl:3:7: executing \"tmpl\" at <fromSecret `ns` .Name \"key\">: error calling fromSecret: secrets \"name\" not found",
        ),
        (
            "{{ \"x\" | fromX }}",
            "ERR template: tmpl:1:9: executing \"tmpl\" at <fromX>: error calling fromX: no X",
        ),
        (
            "{{ upper (fromX \"a\") }}",
            "ERR template: tmpl:1:10: executing \"tmpl\" at <fromX \"a\">: error calling fromX: no X",
        ),
        (
            "{{ upper (fromX \"ok\" | printf \"%s\" | fromX) }}",
            "ERR template: tmpl:1:37: executing \"tmpl\" at <fromX>: error calling fromX: no X",
        ),
        (
            "{{range .List}}\n{{if eq . \"b\"}}{{fromX .}}{{end}}{{end}}",
            "ERR template: tmpl:2:17: executing \"tmpl\" at <fromX .>: error calling fromX: no X",
        ),
        (
            "{{define \"sub\"}}\n  {{fromX 1 $.N 2.50 'c' true nil}}{{end}}{{template \"sub\" .}}",
            "ERR template: tmpl:2:4: executing \"sub\" at <fromX 1 $.N 2.50 'c' true nil>: error calling fromX: no X",
        ),
        (
            "{{block \"b\" .}}{{fromX .Nested.Inner.Value}}{{end}}",
            "ERR template: tmpl:1:17: executing \"b\" at <fromX .Nested.Inner.Value>: error calling fromX: no X",
        ),
        (
            "{{$x := fromX (printf \"%s\" \"a\" | upper) 0x1F}}",
            "ERR template: tmpl:1:8: executing \"tmpl\" at <fromX (printf \"%s\" \"a\" | upper) 0x1F>: error calling fromX: no X",
        ),
        (
            "{{with $v := .}}{{fromX (.Nested).Inner}}{{end}}",
            "ERR template: tmpl:1:18: executing \"tmpl\" at <fromX (.Nested).Inner>: error calling fromX: no X",
        ),
        (
            "{{boom 1}}",
            "ERR template: tmpl:1:2: executing \"tmpl\" at <boom 1>: error calling boom: kaboom",
        ),
    ]);
}

#[test]
fn argument_errors_use_gos_texts() {
    check(&[
        (
            "{{fromSecret \"ns\"}}",
            "ERR template: tmpl:1:2: executing \"tmpl\" at <fromSecret>: wrong number of args for fromSecret: want 3 got 1",
        ),
        (
            "{{join}}",
            "ERR template: tmpl:1:2: executing \"tmpl\" at <join>: wrong number of args for join: want at least 1 got 0",
        ),
        (
            "{{fromSecret \"ns\" .N \"key\"}}",
            "ERR template: tmpl:1:18: executing \"tmpl\" at <.N>: wrong type for value; expected string; got int",
        ),
        (
            "{{.N | upper}}",
            "ERR template: tmpl:1:7: executing \"tmpl\" at <upper>: wrong type for value; expected string; got int",
        ),
    ]);
}

#[test]
fn unplaced_errors_keep_the_engines_message() {
    check(&[(
        "{{template \"nope\"}}",
        "ERR template: tmpl: executing \"tmpl\": template \"nope\" not defined",
    )]);
}

/// Go's texts, recorded from Go's text/template: field chains and `range` are placed at the
/// node Go evaluated last, builtins fail with `error calling <builtin>:` at the call, and a
/// literal argument is named as written.
#[test]
fn execution_errors_are_placed_as_go_places_them() {
    check(&[
        (
            "{{.Nested.Inner.Value.X}}",
            "ERR template: tmpl:1:9: executing \"tmpl\" at <.Nested.Inner.Value.X>: \
             can't evaluate field X in type interface {}",
        ),
        (
            "{{define \"b\"}}{{.f}}{{end}}{{template \"b\" .List}}",
            "ERR template: tmpl:1:16: executing \"b\" at <.f>: \
             can't evaluate field f in type []interface {}",
        ),
        (
            "{{range $i, $v := .N}}{{end}}",
            "ERR template: tmpl:1:18: executing \"tmpl\" at <.N>: \
             can't use 3 to iterate over more than one variable",
        ),
        (
            "{{range (index .List 1)}}{{end}}",
            "ERR template: tmpl:1:21: executing \"tmpl\" at <1>: range can't iterate over b",
        ),
        (
            "{{lt .F false}}",
            "ERR template: tmpl:1:2: executing \"tmpl\" at <lt .F false>: \
             error calling lt: incompatible types for comparison: float64 and bool",
        ),
        (
            "{{index .List 5}}",
            "ERR template: tmpl:1:2: executing \"tmpl\" at <index .List 5>: \
             error calling index: index out of range: 5",
        ),
        (
            "{{1e3 | len}}",
            "ERR template: tmpl:1:8: executing \"tmpl\" at <len>: \
             error calling len: len of type float64",
        ),
        (
            "{{fromSecret \"a\" 1 \"c\"}}",
            "ERR template: tmpl:1:17: executing \"tmpl\" at <1>: expected string; found 1",
        ),
        (
            "{{fromSecret \"a\" (len .List) \"c\"}}",
            "ERR template: tmpl:1:22: executing \"tmpl\" at <.List>: \
             wrong type for value; expected string; got int",
        ),
    ]);
}

#[test]
fn errors_are_structured() {
    let parsed = engine().parse("\n {{fromX 1}}").unwrap_or_else(|e| panic!("{e}"));
    let err = parsed.execute(&common::data()).err();
    assert_eq!(
        err,
        Some(TemplateError::Exec {
            name: "tmpl".into(),
            template: "tmpl".into(),
            line: 2,
            column: 3,
            command: "fromX 1".into(),
            message: "error calling fromX: no X".into(),
        })
    );
    let err = engine().parse("\n\n{{nope}}").err();
    assert_eq!(
        err,
        Some(TemplateError::Parse {
            name: "tmpl".into(),
            line: 3,
            message: "function \"nope\" not defined".into()
        })
    );
}

/// Thousands of call sites, on many lines and in many `define`s, each placed from one line
/// index (locating them by rescanning the source made a 64 KiB template take seconds to
/// parse: issue #16's `template_exec` campaign): the last site is still placed exactly.
#[test]
fn sites_after_thousands_of_others_are_placed_exactly() {
    let mut src = String::new();
    for i in 0..1_500 {
        src.push_str(&format!("{{{{ upper \"a\" }}}}{}", if i % 3 == 0 { "\n" } else { "" }));
    }
    for i in 0..300 {
        src.push_str(&format!("{{{{ define \"d{i}\" }}}}{{{{ upper \"b\" }}}}{{{{ end }}}}"));
    }
    let line = 1 + src.matches('\n').count();
    let column = src.len() - src.rfind('\n').map_or(0, |n| n + 1);
    src.push_str("  {{ fromX \"no\" }}");
    check(&[(
        src.as_str(),
        format!(
            "ERR template: tmpl:{line}:{}: executing \"tmpl\" at <fromX \"no\">: error calling \
             fromX: no X",
            column + 5
        )
        .as_str(),
    )]);
}
