//! Hostile templates (issue #16): each probe that once allocated gigabytes or ran for hours
//! now fails with its bound's error, quickly. Every probe runs in a child process of this
//! binary under `ulimit -v` and a kill timer (`common/bounded.rs`), so a regression fails
//! the test instead of exhausting the machine.

#[path = "common/bounded.rs"]
mod bounded;
mod common;

use std::time::Duration;

use certgate_gotemplate::{Limits, Value};

const BYTES: &str = "the values produced exceed the limit of 67108864 bytes";
const STEPS: &str = "the execution exceeds the limit of 1000000 steps (function calls, template calls and range iterations)";

fn repeated(first: &str, statement: &str, times: usize) -> String {
    format!("{first}{}", statement.repeat(times))
}

/// `t0` writes nothing; `t<n>` calls `t<n-1>` twice: 2^levels calls, no function, no output.
fn fan_out(levels: usize) -> String {
    let mut source = String::from(r#"{{define "t0"}}{{end}}"#);
    for level in 1..=levels {
        let previous = level - 1;
        source.push_str(&format!(
            r#"{{{{define "t{level}"}}}}{{{{template "t{previous}"}}}}{{{{template "t{previous}"}}}}{{{{end}}}}"#
        ));
    }
    source.push_str(&format!(r#"{{{{template "t{levels}"}}}}"#));
    source
}

/// The probe's template, limits and the error it must fail with.
fn probe(name: &str) -> (String, Limits, String) {
    // No wall-clock deadline: on a loaded machine a probe could reach the default 10 s
    // deadline before its step or byte bound, and the outcome must not depend on the
    // machine. The child's kill timer still catches a probe that runs away.
    let defaults = Limits { max_duration: None, ..Limits::default() };
    let placed = |column: usize, command: &str, function: &str, message: &str| {
        format!(
            "template: tmpl:1:{column}: executing \"tmpl\" at <{command}>: error calling {function}: {message}"
        )
    };
    let unplaced = |message: &str| format!("template: tmpl: executing \"tmpl\": {message}");
    match name {
        "print_doubling" => (
            repeated(r#"{{ $s := "x" }}"#, "{{ $s = print $s $s }}", 30),
            defaults,
            placed(551, "print $s $s", "print", BYTES),
        ),
        "printf_doubling" => (
            repeated(r#"{{ $s := "x" }}"#, r#"{{ $s = printf "%s%s" $s $s }}"#, 30),
            defaults,
            placed(743, r#"printf "%s%s" $s $s"#, "printf", BYTES),
        ),
        "println_doubling" => (
            repeated(r#"{{ $s := "x" }}"#, "{{ $s = println $s $s }}", 30),
            defaults,
            placed(575, "println $s $s", "println", BYTES),
        ),
        "printf_indexed_argument" => (
            repeated(r#"{{ $s := "x" }}"#, r#"{{ $s = printf "%[1]s%[1]s%[1]s%[1]s" $s }}"#, 16),
            defaults,
            placed(539, r#"printf "%[1]s%[1]s%[1]s%[1]s" $s"#, "printf", BYTES),
        ),
        "printf_width_in_range" => (
            r#"{{ $s := "" }}{{ range 99999 }}{{ $s = printf "%s%65535s" $s "" }}{{ end }}"#
                .to_owned(),
            defaults,
            placed(39, r#"printf "%s%65535s" $s """#, "printf", BYTES),
        ),
        "html_expansion" => (
            repeated(r#"{{ $s := "&&&&" }}"#, "{{ $s = html (print $s $s) }}", 30),
            defaults,
            placed(461, "html (print $s $s)", "html", BYTES),
        ),
        "range_append" => (
            r#"{{ $s := "" }}{{ range 99999 }}{{ $s = print $s "x" }}{{ end }}"#.to_owned(),
            defaults,
            placed(39, r#"print $s "x""#, "print", BYTES),
        ),
        "template_fan_out" => (fan_out(40), defaults, unplaced(STEPS)),
        "range_of_templates" => (
            r#"{{define "n"}}{{end}}{{ range 99999 }}{{ range 99999 }}{{ template "n" }}{{ end }}{{ end }}"#
                .to_owned(),
            Limits { max_range_iterations: 0, ..defaults },
            unplaced(STEPS),
        ),
        "deadline" => (
            fan_out(40),
            Limits { max_steps: 0, max_duration: Some(Duration::from_millis(200)), ..defaults },
            unplaced("the execution exceeds the time limit of 200ms"),
        ),
        other => panic!("no probe {other}"),
    }
}

const PROBES: &[&str] = &[
    "print_doubling",
    "printf_doubling",
    "println_doubling",
    "printf_indexed_argument",
    "printf_width_in_range",
    "html_expansion",
    "range_append",
    "template_fan_out",
    "range_of_templates",
    "deadline",
];

/// The child side: runs the probe named in the environment (nothing when run as a test).
#[test]
fn probe_child() {
    let Ok(name) = std::env::var(bounded::PROBE_ENV) else { return };
    let (source, limits, want) = probe(&name);
    let parsed = common::with_limits(limits).parse(&source).unwrap_or_else(|e| panic!("{e}"));
    let got = parsed.execute(&Value::Nil).map_err(|e| e.to_string());
    assert_eq!(got, Err(want));
}

#[test]
fn hostile_templates_fail_within_their_bounds() {
    bounded::run_all(PROBES);
}
