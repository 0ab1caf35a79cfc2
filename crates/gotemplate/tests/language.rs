//! The template language, table-driven: each case is source → exact output.

mod common;

use common::check;

#[test]
fn pipelines_and_fields() {
    check(&[
        ("plain text", "plain text"),
        ("{{.Name}}", "app"),
        ("{{.Nested.Inner.Value}}", "deep"),
        ("{{.Name | upper}}", "APP"),
        ("{{\"a\" | printf \"%s-%s\" \"b\"}}", "b-a"),
        ("{{.Name | upper | printf \"<%s>\"}}", "<APP>"),
        ("{{(fromX \"ok\")}}", "X"),
        ("{{upper (fromX \"ok\")}}", "X"),
        (
            "{{.}}",
            "map[E: Empty:[] F:2.5 Html:<a href=\"x\">&'</a> List:[a b c] ManagedClusterName:cluster1 Map:map[a:1 b:2 c:3] N:3 Name:app Nested:map[Inner:map[Value:deep]] Nil:<nil> T:true Zero:0]",
        ),
    ]);
}

#[test]
fn missing_keys_render_no_value() {
    check(&[
        ("{{.Missing}}", "<no value>"),
        ("{{.Nested.Missing}}", "<no value>"),
        ("{{.Missing.Deeper}}", "<no value>"),
        ("{{.Nil}}", "<no value>"),
    ]);
}

#[test]
fn conditionals() {
    check(&[
        ("{{if .T}}yes{{end}}", "yes"),
        ("{{if .E}}yes{{else}}no{{end}}", "no"),
        ("{{if .E}}1{{else if .Zero}}2{{else if .N}}3{{else}}4{{end}}", "3"),
        ("{{if .Missing}}1{{else}}2{{end}}", "2"),
        ("{{with .Nested.Inner}}{{.Value}}{{end}}", "deep"),
        ("{{with .E}}x{{else}}empty{{end}}", "empty"),
        ("{{with $x := .Name}}{{$x}}{{end}}", "app"),
    ]);
}

#[test]
fn truthiness() {
    check(&[
        ("{{if .Empty}}t{{else}}f{{end}}", "f"),
        ("{{if .List}}t{{else}}f{{end}}", "t"),
        ("{{if .Map}}t{{else}}f{{end}}", "t"),
        ("{{if .Zero}}t{{else}}f{{end}}", "f"),
        ("{{if .F}}t{{else}}f{{end}}", "t"),
        ("{{if 0.0}}t{{else}}f{{end}}", "f"),
        ("{{if \"\"}}t{{else}}f{{end}}", "f"),
        ("{{if \"0\"}}t{{else}}f{{end}}", "t"),
        ("{{if .Nil}}t{{else}}f{{end}}", "f"),
    ]);
}

#[test]
fn ranges() {
    check(&[
        ("{{range .List}}[{{.}}]{{end}}", "[a][b][c]"),
        ("{{range $i, $v := .List}}{{$i}}={{$v}} {{end}}", "0=a 1=b 2=c "),
        ("{{range $k, $v := .Map}}{{$k}}:{{$v}},{{end}}", "a:1,b:2,c:3,"),
        ("{{range .Map}}{{.}}{{end}}", "123"),
        ("{{range .Empty}}x{{else}}none{{end}}", "none"),
        ("{{range .Missing}}x{{else}}none{{end}}", "none"),
        ("{{range .List}}{{if eq . \"b\"}}{{break}}{{end}}{{.}}{{end}}", "a"),
        ("{{range .List}}{{if eq . \"b\"}}{{continue}}{{end}}{{.}}{{end}}", "ac"),
        ("{{range 3}}{{.}}{{end}}", "012"),
        ("{{range $v := .List}}{{$v}}{{end}}", "abc"),
    ]);
}

#[test]
fn variables() {
    check(&[
        ("{{$x := .Name}}{{$x}}", "app"),
        ("{{$x := 1}}{{$x = 2}}{{$x}}", "2"),
        ("{{$x := \"a\"}}{{range .List}}{{$x = .}}{{end}}{{$x}}", "c"),
        ("{{range .List}}{{$.Name}}{{end}}", "appappapp"),
        ("{{$m := .Nested}}{{$m.Inner.Value}}", "deep"),
    ]);
}

#[test]
fn definitions() {
    check(&[
        (r#"{{define "x"}}[{{.}}]{{end}}{{template "x" .Name}}"#, "[app]"),
        (r#"{{define "x"}}{{.Name}}{{end}}{{template "x" .}}"#, "app"),
        (r#"{{block "b" .N}}<{{.}}>{{end}}"#, "<3>"),
        (r#"{{define "rec"}}{{if .}}{{len .}}{{end}}{{end}}{{template "rec" .List}}"#, "3"),
        (r#"{{template "x"}}{{define "x"}}late{{end}}"#, "late"),
    ]);
}

#[test]
fn trim_markers() {
    check(&[
        ("a  {{- .Name -}}  b", "aappb"),
        ("a \n {{- .Name}} b", "aapp b"),
        ("a {{.Name -}} \n b", "a appb"),
        ("{{- /* comment */ -}} x", "x"),
        ("a {{-3}}", "a -3"),
    ]);
}

#[test]
fn comparisons_and_logic() {
    check(&[
        ("{{eq .N 3}}", "true"),
        ("{{eq .Name \"x\" \"y\" \"app\"}}", "true"),
        ("{{eq .Name \"x\" \"y\"}}", "false"),
        ("{{ne .N 4}}", "true"),
        ("{{lt 1 2}} {{le 2 2}} {{gt 1 2}} {{ge 2 3}}", "true true false false"),
        ("{{lt \"a\" \"b\"}}", "true"),
        ("{{lt 1.5 2.5}}", "true"),
        ("{{and 1 0 (fromX \"fails\")}}", "0"),
        ("{{or 0 \"x\" (fromX \"fails\")}}", "x"),
        ("{{and 1 2}} {{or 0 \"\"}}", "2 "),
        ("{{not .T}} {{not .E}}", "false true"),
    ]);
}

#[test]
fn printing_and_data_functions() {
    check(&[
        (
            "{{printf \"%s|%d|%v|%q|%x|%5.2f\" .Name .N .List .Name .Name .F}}",
            "app|3|[a b c]|\"app\"|617070| 2.50",
        ),
        ("{{printf \"%v\" .Map}}", "map[a:1 b:2 c:3]"),
        ("{{print \"a\" 1 2 \"b\"}}", "a1 2b"),
        ("{{println \"a\" 1}}", "a 1\n"),
        ("{{len .List}} {{len .Map}} {{len .Name}}", "3 3 3"),
        ("{{index .List 1}} {{index .Map \"c\"}}", "b 3"),
        ("{{slice .List 1}} {{slice .Name 1 2}}", "[b c] p"),
        ("{{html .Html}}", "&lt;a href=&#34;x&#34;&gt;&amp;&#39;&lt;/a&gt;"),
        ("{{js \"a'b\"}}", "a\\'b"),
        ("{{urlquery \"a b&c\"}}", "a+b%26c"),
        ("{{join 1 \"a\" .T}}", "1-a-true"),
    ]);
}
