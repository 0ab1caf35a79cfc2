//! Arbitrary text through certgate's Go-template engine, with Go's and OCM's hub
//! delimiters: parsing and executing with small bounds must never panic, whatever a tenant
//! writes.
#![no_main]

use certgate_gotemplate::{Engine, FuncError, FuncMap, Limits, Value};
use libfuzzer_sys::fuzz_target;

fn funcs() -> FuncMap {
    let mut funcs = FuncMap::new();
    funcs.insert("fromSecret", |args: &[Value]| {
        if args.len() != 3 {
            return Err(FuncError::arg_count(3, args.len(), false));
        }
        Err(FuncError::call("not found"))
    });
    funcs.insert("echo", |args: &[Value]| Ok(args.first().cloned().unwrap_or(Value::Nil)));
    funcs
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let limits = Limits {
        max_range_iterations: 1_000,
        max_output_bytes: 64 * 1024,
        max_source_bytes: 64 * 1024,
        ..Limits::default()
    };
    let plain = Engine::new("fuzz", funcs()).limits(limits);
    let Ok(hub) = plain.clone().delims("{{hub", "hub}}") else { return };
    let dot = certgate_gotemplate::to_value(&serde_json::json!({"A": [1, "x"], "B": {"c": true}}));
    for engine in [plain, hub] {
        if let Ok(parsed) = engine.parse(text) {
            let _ = parsed.execute(&dot);
        }
    }
});
