//! Execution and parse bounds: tenants write the templates.

mod common;

use certgate_gotemplate::{Limits, Parsed, TemplateError};
use common::{run, with_limits};

fn limits() -> Limits {
    Limits {
        max_range_iterations: 10,
        max_output_bytes: 20,
        max_source_bytes: 100,
        ..Limits::default()
    }
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

fn budget(max_value_bytes: usize, max_steps: u64) -> Limits {
    Limits { max_value_bytes, max_steps, ..Limits::default() }
}

#[test]
fn values_produced_are_bounded_in_total() {
    let engine = with_limits(budget(2_000, 0));
    // 24 bytes per value plus the text: each 300-byte string weighs 324, after 4 of them
    // there is no room for the next one's estimate (format, width, arguments, 400 per verb).
    let line = r#"{{ $s := printf "%300s" "x" }}"#;
    assert_eq!(run(&engine, &line.repeat(4)), "");
    assert_eq!(
        run(&engine, &line.repeat(5)),
        "ERR template: tmpl:1:129: executing \"tmpl\" at <printf \"%300s\" \"x\">: error calling \
         printf: the values produced exceed the limit of 2000 bytes"
    );
    // FuncMap functions are charged too.
    let upper = format!("{{{{ $s := upper {:?} }}}}", "x".repeat(500));
    assert_eq!(run(&engine, &upper.repeat(3)), "");
    assert!(
        run(&engine, &upper.repeat(4))
            .ends_with("error calling upper: the values produced exceed the limit of 2000 bytes")
    );
}

#[test]
fn builtins_refuse_results_before_building_them() {
    let engine = with_limits(budget(100_000, 0));
    assert_eq!(run(&engine, r#"{{ len (printf "%500s" "x") }}"#), "500");
    assert_eq!(
        run(&engine, r#"{{ printf "%65535s%65535s" "x" "y" }}"#),
        "ERR template: tmpl:1:3: executing \"tmpl\" at <printf \"%65535s%65535s\" \"x\" \"y\">: \
         error calling printf: the values produced exceed the limit of 100000 bytes"
    );
    // A builtin's own failure is Go's, placed at the call.
    assert_eq!(
        run(&engine, "{{ index .List 10 }}"),
        "ERR template: tmpl:1:3: executing \"tmpl\" at <index .List 10>: \
         error calling index: index out of range: 10"
    );
}

#[test]
fn steps_count_calls_templates_and_iterations() {
    let engine = with_limits(budget(usize::MAX, 5));
    // The body itself is one step, then one per iteration.
    assert_eq!(run(&engine, "{{range 4}}{{end}}"), "");
    let over = "ERR template: tmpl: executing \"tmpl\": the execution exceeds the limit of 5 steps \
                (function calls, template calls and range iterations)";
    assert_eq!(run(&engine, "{{range 5}}{{end}}"), over);
    // 1 + 2 iterations + 2 calls; then 1 + 3 + 3.
    assert_eq!(run(&engine, r#"{{define "t"}}{{end}}{{range 2}}{{template "t"}}{{end}}"#), "");
    assert_eq!(run(&engine, r#"{{define "t"}}{{end}}{{range 3}}{{template "t"}}{{end}}"#), over);
    assert_eq!(
        run(
            &engine,
            r#"{{ upper "a" }}{{ upper "b" }}{{ upper "c" }}{{ upper "d" }}{{ upper "e" }}"#
        ),
        "ERR template: tmpl:1:63: executing \"tmpl\" at <upper \"e\">: error calling upper: the \
         execution exceeds the limit of 5 steps (function calls, template calls and range \
         iterations)"
    );
}

#[test]
fn values_nest_no_deeper_than_the_limit() {
    let mut funcs = common::funcs();
    funcs.insert("wrap", |args: &[certgate_gotemplate::Value]| {
        Ok(certgate_gotemplate::Value::List(args.to_vec().into()))
    });
    let engine = certgate_gotemplate::Engine::new("tmpl", funcs)
        .limits(Limits { max_value_depth: 3, ..Limits::default() });
    assert_eq!(run(&engine, "{{ $d := wrap (wrap (wrap 1)) }}ok"), "ok");
    assert_eq!(
        run(&engine, "{{ $d := wrap (wrap (wrap (wrap 1))) }}"),
        "ERR template: tmpl:1:9: executing \"tmpl\" at <wrap (wrap (wrap (wrap 1)))>: error \
         calling wrap: the values produced nest deeper than the limit of 3 levels"
    );
}

#[test]
fn the_deadline_is_checked_at_every_step() {
    let engine =
        with_limits(Limits { max_duration: Some(std::time::Duration::ZERO), ..Limits::default() });
    assert_eq!(
        run(&engine, "text"),
        "ERR template: tmpl: executing \"tmpl\": the execution exceeds the time limit of 0s"
    );
    let engine = with_limits(Limits { max_duration: None, ..Limits::default() });
    assert_eq!(run(&engine, "{{range 3}}x{{end}}"), "xxx");
}
