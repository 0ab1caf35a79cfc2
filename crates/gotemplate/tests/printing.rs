//! Printing is Go's `fmt`: actions, `print`, `println` and `printf`. Every expected text was
//! recorded from Go 1.26's text/template (the oracle `tools/oracles/gotemplate`) over the
//! shared test data.

mod common;

use common::check;

#[test]
fn actions_print_gos_percent_v() {
    check(&[
        ("{{1e21}} {{1e6}} {{0.00001}} {{123456.0}} {{-0.0}}", "1e+21 1e+06 1e-05 123456 -0"),
        ("{{range .List}}{{1e7}}{{end}}|{{with 1e-5}}{{.}}{{end}}", "1e+071e+071e+07|1e-05"),
        (r#"{{define "x"}}<{{.}}>{{end}}{{template "x" 2e9}}"#, "<2e+09>"),
        // Declarations and assignments print nothing; nil prints `<no value>`.
        ("{{$x := 1e9}}{{$x = 2e9}}|{{$x}}", "|2e+09"),
        ("{{.Nil}}|{{.Map}}", "<no value>|map[a:1 b:2 c:3]"),
    ]);
}

#[test]
fn print_builtins_are_gos_fmt() {
    check(&[
        (r#"{{print 1 2 "a" 3 .Nil 4.0}}|{{println .List 1e21}}"#, "1 2a3 <nil> 4|[a b c] 1e+21\n"),
        (
            r#"{{printf "%05.1f|%x|%-4d|%T|%q" .F .List .N .Map 65}}"#,
            "002.5|[61 62 63]|3   |map[string]interface {}|'A'",
        ),
        (
            r#"{{printf "%d %d" 1}}|{{printf "%d" 1 "x"}}|{{printf "%!"}}"#,
            "1 %!d(MISSING)|1%!(EXTRA string=x)|%!!(MISSING)",
        ),
        (
            r#"{{printf "%v|%d" .Nil .Map}}"#,
            "<nil>|map[%!d(string=a):1 %!d(string=b):2 %!d(string=c):3]",
        ),
    ]);
}

#[test]
fn printf_argument_errors_are_placed_like_gos() {
    check(&[
        (
            "{{printf}}",
            "ERR template: tmpl:1:2: executing \"tmpl\" at <printf>: wrong number of args for \
             printf: want at least 1 got 0",
        ),
        (
            "{{.N | printf}}",
            "ERR template: tmpl:1:7: executing \"tmpl\" at <printf>: wrong type for value; \
             expected string; got int",
        ),
    ]);
}
