//! `tests/data/printf_go_recorded.jsonl`: formats and JSON arguments with what Go 1.26's
//! `fmt.Sprintf` printed for them (recorded through the text/template oracle
//! `tools/oracles/gotemplate`, whose data decoding gives integers `int`/`uint64` and other
//! numbers `float64`, as [`arg`] does).

use super::{Arg, sprint, sprintf, sprintln};

fn arg(v: &serde_json::Value) -> Arg<'_> {
    match v {
        serde_json::Value::Null => Arg::Nil,
        serde_json::Value::Bool(b) => Arg::Bool(*b),
        serde_json::Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => Arg::Int(i),
            (None, Some(u)) => Arg::Uint(u),
            _ => Arg::Float(n.as_f64().unwrap_or_default()),
        },
        serde_json::Value::String(s) => Arg::Str(s),
        serde_json::Value::Array(items) => Arg::List(items.iter().map(arg).collect()),
        serde_json::Value::Object(map) => {
            Arg::Map(map.iter().map(|(k, v)| (k.as_str(), arg(v))).collect())
        }
    }
}

#[test]
fn sprintf_matches_gos_recorded_outputs() {
    let mut failures = Vec::new();
    let mut count = 0;
    for line in include_str!("../../tests/data/printf_go_recorded.jsonl").lines() {
        let case: serde_json::Value = serde_json::from_str(line).expect("a recorded case");
        let format = case["format"].as_str().expect("format");
        let args: serde_json::Value =
            serde_json::from_str(case["args"].as_str().expect("args")).expect("JSON args");
        let args: Vec<Arg<'_>> = args.as_array().expect("a list").iter().map(arg).collect();
        let want = case["go"].as_str().expect("Go's output");
        let got = sprintf(format, &args);
        count += 1;
        if got != want {
            failures.push(format!("{format:?} {}: got {got:?}, Go {want:?}", case["args"]));
        }
    }
    assert!(count > 3000, "the recorded table is read");
    assert!(failures.is_empty(), "{} of {count} differ:\n{}", failures.len(), failures.join("\n"));
}

/// `fmt.Sprint` spaces operands only where neither side is a string; `Sprintln` always.
#[test]
fn sprint_and_sprintln_space_like_go() {
    let args = [
        Arg::Int(1),
        Arg::Int(2),
        Arg::Str("a"),
        Arg::Int(3),
        Arg::Nil,
        Arg::Int(4),
        Arg::List(vec![Arg::Int(1), Arg::Int(2)]),
    ];
    assert_eq!(sprint(&args), "1 2a3 <nil> 4 [1 2]");
    assert_eq!(sprintln(&[Arg::Int(1), Arg::Str("a"), Arg::Int(2)]), "1 a 2\n");
    assert_eq!(sprint(&[Arg::Float(123_456_789.0), Arg::Float(1e20)]), "1.23456789e+08 1e+20");
    assert_eq!(sprint(&[]), "");
}

/// Go's `len` of the long format below.
const GO_LENGTH: usize = 10_210_311;

/// Widths and precisions reach Go's bound (about ten million) on every verb without
/// panicking, and the text is as long as Go's.
#[test]
fn huge_widths_and_precisions_are_gos() {
    let args = [Arg::Float(1e300), Arg::Int(-7), Arg::Str("é"), Arg::List(vec![Arg::Uint(3)])];
    for verb in "vdsqxXobcUeEfFgGtT".chars() {
        for spec in ["%-70000.70000", "%#+ 070000"] {
            let format = format!("{spec}{verb}");
            for arg in &args {
                let text = sprintf(&format, std::slice::from_ref(arg));
                assert!((1..=150_000).contains(&text.len()), "{format} {arg:?}: {}", text.len());
            }
        }
    }
    assert_eq!(sprintf("%99999999d", &[Arg::Int(1)]), "%!(NOVERB)%!(EXTRA int=1)");
    assert_eq!(sprintf("%.70000U", &[Arg::Int(1)]).len(), 70_002);
    let args = [Arg::Float(1e300), Arg::Int(-7), Arg::Str("é"), Arg::Float(1.5), Arg::Float(1.0)];
    let format = "%.9999999v|%9999999d|%-70000.70000q|%#+ 070000x|%.70000e";
    assert_eq!(sprintf(format, &args).len(), GO_LENGTH);
}
