//! OCM hub templates: `{{hub ... hub}}` delimiters, plain `{{ }}` passed through.

mod common;

use common::{hub, run};

#[test]
fn hub_delimiters_resolve_only_hub_actions() {
    let engine = hub();
    let cases = [
        ("{{hub .ManagedClusterName hub}}", "cluster1"),
        ("name: {{ .Name }}", "name: {{ .Name }}"),
        ("{{ if {{hub .ManagedClusterName hub}} }}", "{{ if cluster1 }}"),
        (
            "{{ fromSecret \"ns\" \"{{hub .ManagedClusterName hub}}-creds\" \"key\" }}",
            "{{ fromSecret \"ns\" \"cluster1-creds\" \"key\" }}",
        ),
        ("a {{hub- .Name -hub}} b", "aappb"),
        ("a {{hub-  .Name  -hub}}\n b", "aappb"),
        ("{{hub/* note */hub}}x", "x"),
        ("{{hub .Missing hub}}", "<no value>"),
        ("{{hub range .List hub}}{{ . }}{{hub end hub}}", "{{ . }}{{ . }}{{ . }}"),
        ("{{hub fromX \"ok\" | upper hub}}", "X"),
    ];
    let mut failures = Vec::new();
    for (src, want) in cases {
        let got = run(&engine, src);
        if got != want {
            failures.push(format!("{src:?}\n   want {want:?}\n    got {got:?}"));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn hub_errors_are_placed_in_the_hub_action() {
    let engine = hub();
    assert_eq!(
        run(&engine, "x: {{ .A }}\ny: {{hub fromSecret \"ns\" \"n\" \"k\" hub}}"),
        "ERR template: tmpl:2:9: executing \"tmpl\" at <fromSecret \"ns\" \"n\" \"k\">: error calling fromSecret: secrets \"name\" not found"
    );
    assert_eq!(run(&engine, "{{hub if .T hub}}\nno end"), "ERR template: tmpl:2: unexpected EOF");
    // A dash without a space is no trim marker: it starts a number, as in Go.
    assert!(run(&engine, "a {{hub-.Name hub}}").starts_with("ERR template: tmpl:1: "));
}

#[test]
fn one_delimiter_is_refused() {
    assert!(common::engine().delims("{{hub", "").is_err());
    assert!(common::engine().delims("", "").is_ok());
}
