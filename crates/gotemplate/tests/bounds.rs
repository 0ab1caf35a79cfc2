//! Execution and parse bounds: tenants write the templates.

mod common;

use certgate_gotemplate::{Limits, Parsed, TemplateError};
use common::{run, with_limits};

fn limits() -> Limits {
    Limits { max_range_iterations: 10, max_output_bytes: 20, max_source_bytes: 100 }
}

#[test]
fn range_iterations_are_bounded_across_ranges() {
    let engine = with_limits(limits());
    assert_eq!(run(&engine, "{{range 10}}{{end}}"), "");
    assert_eq!(
        run(&engine, "{{range 3}}{{range 3}}{{end}}{{end}}"),
        "ERR template: tmpl: executing \"tmpl\": the range iterations exceed the limit of 10"
    );
    assert_eq!(
        run(&engine, "{{range 1000000000000}}{{end}}"),
        "ERR template: tmpl: executing \"tmpl\": the range iterations exceed the limit of 10"
    );
}

#[test]
fn output_is_bounded() {
    let engine = with_limits(limits());
    assert_eq!(run(&engine, "{{printf \"%20s\" \"x\"}}"), "                   x");
    assert_eq!(
        run(&engine, "{{range 5}}abcde{{end}}"),
        "ERR template: tmpl: executing \"tmpl\": the output exceeds the limit of 20 bytes"
    );
}

#[test]
fn source_size_is_bounded() {
    let engine = with_limits(limits());
    let err = engine.parse(&"x".repeat(101)).err();
    assert_eq!(
        err.map(|e| e.to_string()),
        Some(
            "template: tmpl:1: the template source is 101 bytes, over the limit of 100 bytes"
                .into()
        )
    );
    assert!(engine.parse(&"x".repeat(100)).is_ok());
}

#[test]
fn recursion_is_bounded() {
    let engine = common::engine();
    let err = engine
        .parse(r#"{{define "loop"}}{{template "loop" .}}{{end}}{{template "loop" .}}"#)
        .unwrap_or_else(|e| panic!("{e}"))
        .execute(&common::data())
        .err();
    assert_eq!(
        err,
        Some(TemplateError::Limit {
            name: "tmpl".into(),
            message: "exceeded maximum template depth (200)".into()
        })
    );
}

#[test]
fn parsed_templates_are_shareable() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Parsed>();
    let parsed = common::engine()
        .parse("{{range .List}}{{upper .}}{{end}}")
        .unwrap_or_else(|e| panic!("{e}"));
    std::thread::scope(|s| {
        for _ in 0..4 {
            let parsed = &parsed;
            s.spawn(move || {
                for _ in 0..50 {
                    assert_eq!(parsed.execute(&common::data()).ok().as_deref(), Some("ABC"));
                }
            });
        }
    });
}
