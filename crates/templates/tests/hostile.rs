//! Hostile hub templates (issue #16): sprig's and OCM's functions under the execution budget.
//! Each probe runs in a child process of this binary under `ulimit -v` and a kill timer
//! (the harness in crates/gotemplate/tests/common/bounded.rs), so a regression fails the
//! test instead of exhausting the machine.

#[path = "../../gotemplate/tests/common/bounded.rs"]
mod bounded;

use certgate_gotemplate::{Engine, Limits, Value};
use certgate_templates::functions::{FunctionConfig, hub_functions};

const BYTES: &str = "the values produced exceed the limit of 67108864 bytes";
const DEPTH: &str = "the values produced nest deeper than the limit of 100 levels";

fn repeated(first: &str, statement: &str, times: usize) -> String {
    format!("{first}{}", statement.repeat(times))
}

fn placed(column: usize, command: &str, function: &str, message: &str) -> String {
    format!(
        "template: tmpl:1:{column}: executing \"tmpl\" at <{command}>: error calling {function}: {message}"
    )
}

/// The probe's template and its result: `Ok(output)` or `Err(error text)`.
fn probe(name: &str) -> (String, Result<String, String>) {
    match name {
        "cat_doubling" => (
            repeated(r#"{{ $s := "x" }}"#, "{{ $s = cat $s $s }}", 30),
            Err(placed(483, "cat $s $s", "cat", BYTES)),
        ),
        "nested_dict_to_json" => (
            repeated(r#"{{ $d := dict "k" "v" }}"#, r#"{{ $d = dict "a" $d "b" $d }}"#, 40)
                + "{{ toJSON $d }}",
            Err(placed(554, r#"dict "a" $d "b" $d"#, "dict", BYTES)),
        ),
        "join_long_separator" => (
            r#"{{ $sep := repeat 1000000 "x" }}{{ join $sep (until 100000) }}"#.to_owned(),
            Err(placed(35, "join $sep (until 100000)", "join", BYTES)),
        ),
        "repeat_in_range" => (
            r#"{{ range 1000 }}{{ $s := repeat 1000000 "x" }}{{ end }}"#.to_owned(),
            Err(placed(25, r#"repeat 1000000 "x""#, "repeat", BYTES)),
        ),
        "until_in_range" => (
            "{{ range 1000 }}{{ $l := until 999999 }}{{ end }}".to_owned(),
            Err(placed(25, "until 999999", "until", BYTES)),
        ),
        "indent_in_range" => (
            r#"{{ $t := repeat 999 "a\n" }}{{ range 1000 }}{{ $s := indent 990 $t }}{{ end }}"#
                .to_owned(),
            Err(placed(53, "indent 990 $t", "indent", BYTES)),
        ),
        "concat_in_range" => (
            "{{ $l := until 499999 }}{{ range 1000 }}{{ $m := concat $l $l }}{{ end }}".to_owned(),
            Err(placed(49, "concat $l $l", "concat", BYTES)),
        ),
        "append_in_range" => (
            "{{ $l := list }}{{ range 99999 }}{{ $l = append $l . }}{{ end }}".to_owned(),
            Err(placed(41, "append $l .", "append", BYTES)),
        ),
        "b64enc_chain" => (
            repeated(r#"{{ $s := "x" }}"#, "{{ $s = b64enc (cat $s $s) }}", 30),
            Err(placed(487, "b64enc (cat $s $s)", "b64enc", BYTES)),
        ),
        "replace_in_range" => (
            r#"{{ $s := repeat 499999 "x" }}{{ range 1000 }}{{ $t := replace "x" "y" $s }}{{ end }}"#.to_owned(),
            Err(placed(54, r#"replace "x" "y" $s"#, "replace", BYTES)),
        ),
        "regex_replace_in_range" => (
            r#"{{ $s := repeat 499999 "x" }}{{ range 1000 }}{{ $t := regexReplaceAll "y" $s "z" }}{{ end }}"#.to_owned(),
            Err(placed(54, r#"regexReplaceAll "y" $s "z""#, "regexReplaceAll", BYTES)),
        ),
        "deep_list_to_yaml" => (
            "{{ $d := list }}{{ range 99999 }}{{ $d = list $d }}{{ end }}{{ toYaml $d }}"
                .to_owned(),
            Err(placed(41, "list $d", "list", DEPTH)),
        ),
        "deep_yaml_parse" => (
            r#"{{ $d := fromYaml (repeat 100000 "[") }}"#.to_owned(),
            // libyaml's own flow-level limit, with yaml.v3's text, stops it in the scanner.
            Err(placed(9, r#"fromYaml (repeat 100000 "[")"#, "fromYaml", "yaml: exceeded max depth of 10000")),
        ),
        "uniq_of_a_long_list" => {
            ("{{ len (uniq (until 200000)) }}".to_owned(), Ok("200000".to_owned()))
        }
        other => panic!("no probe {other}"),
    }
}

const PROBES: &[&str] = &[
    "cat_doubling",
    "nested_dict_to_json",
    "join_long_separator",
    "repeat_in_range",
    "until_in_range",
    "indent_in_range",
    "concat_in_range",
    "append_in_range",
    "b64enc_chain",
    "replace_in_range",
    "regex_replace_in_range",
    "deep_list_to_yaml",
    "deep_yaml_parse",
    "uniq_of_a_long_list",
];

/// The child side: runs the probe named in the environment (nothing when run as a test).
#[test]
fn probe_child() {
    let Ok(name) = std::env::var(bounded::PROBE_ENV) else { return };
    let (source, want) = probe(&name);
    // No wall-clock deadline: on a loaded machine a probe could reach the default 10 s
    // deadline before its byte or depth bound, and the outcome must not depend on the
    // machine. The child's kill timer still catches a probe that runs away.
    let limits = Limits { max_duration: None, ..Limits::default() };
    let engine = Engine::new("tmpl", hub_functions(&FunctionConfig::default())).limits(limits);
    let parsed = engine.parse(&source).unwrap_or_else(|e| panic!("{e}"));
    let got = parsed.execute(&Value::Nil).map_err(|e| e.to_string());
    assert_eq!(got, want);
}

#[test]
fn hostile_hub_templates_fail_within_their_bounds() {
    bounded::run_all(PROBES);
}
