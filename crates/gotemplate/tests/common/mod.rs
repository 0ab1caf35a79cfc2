// Shared helpers for the integration tests (included with `mod common;`).
#![allow(dead_code)]

use certgate_gotemplate::{Engine, FuncError, FuncMap, Limits, Value, to_value};

/// Functions modelled on OCM's hub-template functions, failing in every way Go reports.
pub fn funcs() -> FuncMap {
    let mut funcs = FuncMap::new();
    funcs.insert("fromSecret", |args: &[Value]| {
        if args.len() != 3 {
            return Err(FuncError::arg_count(3, args.len(), false));
        }
        for (i, arg) in args.iter().enumerate() {
            if !matches!(arg, Value::String(_)) {
                return Err(FuncError::arg_type("string", arg).at_argument(i));
            }
        }
        Err(FuncError::call("secrets \"name\" not found"))
    });
    funcs.insert("fromX", |args: &[Value]| match args.first() {
        Some(Value::String(s)) if &**s == "ok" => Ok(Value::String("X".into())),
        _ => Err(FuncError::call("no X")),
    });
    funcs.insert("upper", |args: &[Value]| match args {
        [Value::String(s)] => Ok(Value::String(s.to_uppercase().into())),
        [other] => Err(FuncError::arg_type("string", other)),
        _ => Err(FuncError::arg_count(1, args.len(), false)),
    });
    funcs.insert("join", |args: &[Value]| {
        if args.is_empty() {
            return Err(FuncError::arg_count(1, 0, true));
        }
        Ok(Value::String(args.iter().map(|a| a.to_string()).collect::<Vec<_>>().join("-").into()))
    });
    funcs.insert("boom", |_: &[Value]| -> Result<Value, FuncError> { panic!("kaboom") });
    funcs
}

pub fn data() -> Value {
    to_value(&serde_json::json!({
        "ManagedClusterName": "cluster1",
        "Name": "app",
        "N": 3,
        "F": 2.5,
        "T": true,
        "E": "",
        "Zero": 0,
        "List": ["a", "b", "c"],
        "Empty": [],
        "Map": {"b": 2, "a": 1, "c": 3},
        "Nested": {"Inner": {"Value": "deep"}},
        "Html": "<a href=\"x\">&'</a>",
        "Nil": null
    }))
}

pub fn engine() -> Engine {
    Engine::new("tmpl", funcs())
}

pub fn hub() -> Engine {
    engine().delims("{{hub", "hub}}").unwrap_or_else(|e| panic!("{e}"))
}

pub fn with_limits(limits: Limits) -> Engine {
    engine().limits(limits)
}

/// Output, or the error text.
pub fn run(engine: &Engine, src: &str) -> String {
    match engine.parse(src) {
        Ok(parsed) => match parsed.execute(&data()) {
            Ok(out) => out,
            Err(e) => format!("ERR {e}"),
        },
        Err(e) => format!("ERR {e}"),
    }
}

/// Runs every `(source, expected)` case with the shared engine and reports all mismatches at
/// once (`ERR <text>` is expected for errors, as `run` renders them).
pub fn check(cases: &[(&str, &str)]) {
    let engine = engine();
    let mut failures = Vec::new();
    for (src, want) in cases {
        let got = run(&engine, src);
        if got != *want {
            failures.push(format!("{src:?}\n   want {want:?}\n    got {got:?}"));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}
