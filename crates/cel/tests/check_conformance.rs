//! Type-checks the CEL conformance expressions (`../shared/conformance/cel-spec/cases.json`)
//! of the files issue #3 targets against certgate's full library plus each case's
//! bindings, typed from their JSON encoding.
//!
//! A case expecting a value must check; so must a case expecting an evaluation error,
//! unless that error is a type error a checker may report early. The pass counts are
//! printed with every failure grouped by reason, and floors make regressions fail.

use std::collections::BTreeMap;

use certgate_cel::check::{Declarations, check, full_library};
use certgate_cel::syntax::parse;
use serde_json::Value;

mod conformance;

use conformance::{TARGET_FILES, load_cases, type_of, unchecked_tests};

/// Value-expecting cases that check today (1,089 of the 1,117 the spec type-checks);
/// the other 28 build protobuf wrapper messages (`google.protobuf.Int64Value{...}`),
/// which certgate's environments do not declare.
const VALUE_FLOOR: usize = 1089;
/// Runtime-error cases (whose error is not a type error) that check today: all of them.
const ERROR_FLOOR: usize = 94;
/// The one documented reason a case may fail to check: it builds a protobuf message.
const PROTO_MESSAGE: &str = "undeclared reference to 'google.protobuf.";

/// Expected error texts (substrings) that name a type error, which a checker reports
/// before evaluation; such cases may be rejected.
const TYPE_ERRORS: &[&str] = &[
    "no such overload",
    "no_such_overload",
    "no matching overload",
    "undeclared reference",
    "unbound function",
    "unknown variable",
    "does not support field selection",
];

/// The target files but `parse`, whose cases exercise the parser rather than typing.
fn checked_file(file: &str) -> Option<&'static str> {
    TARGET_FILES.iter().copied().filter(|f| *f != "parse").find(|f| *f == file)
}

fn environment(base: &Declarations, bindings: Option<&Value>) -> Declarations {
    let mut decls = base.clone();
    for (name, value) in bindings.and_then(Value::as_object).into_iter().flatten() {
        if let Err(e) = decls.add_variable(name.clone(), type_of(value)) {
            panic!("binding {name}: {e}");
        }
    }
    decls
}

/// The reason a case failed, with names kept but argument lists cut, for grouping.
fn reason(message: &str) -> String {
    message.lines().next().unwrap_or("").split(": ").skip(2).collect::<Vec<_>>().join(": ")
}

#[derive(Default)]
struct Tally {
    value_ok: usize,
    value_total: usize,
    error_ok: usize,
    error_total: usize,
}

#[test]
fn conformance_expressions_type_check() {
    let cases = load_cases();
    let base = full_library().unwrap_or_else(|e| panic!("library: {e}"));
    let mut per_file: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut failures: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut unchecked: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let mut unchecked_values = 0;
    for case in &cases {
        let file = case["file"].as_str().unwrap_or("");
        let Some(file) = checked_file(file) else { continue };
        let expr = case["expr"].as_str().unwrap_or("");
        let name = case["name"].as_str().unwrap_or("");
        if unchecked.entry(file).or_insert_with(|| unchecked_tests(file)).iter().any(|n| n == name)
        {
            if case["expect"].get("value").is_some() {
                unchecked_values += 1;
            }
            continue;
        }
        let expected_error = case["expect"].get("error").and_then(Value::as_str);
        let expects_value = case["expect"].get("value").is_some();
        if !expects_value
            && expected_error.is_none_or(|e| TYPE_ERRORS.iter().any(|t| e.contains(t)))
        {
            continue;
        }
        let decls = environment(&base, case.get("bindings"));
        let outcome = match parse(expr) {
            Ok(ast) => check(&ast, &decls).map(|_| ()).map_err(|e| e.render(expr)),
            Err(e) => Err(e.to_string()),
        };
        let tally = per_file.entry(file).or_default();
        let (ok, total) = if expects_value {
            (&mut tally.value_ok, &mut tally.value_total)
        } else {
            (&mut tally.error_ok, &mut tally.error_total)
        };
        *total += 1;
        match outcome {
            Ok(()) => *ok += 1,
            Err(message) => {
                failures.entry(reason(&message)).or_default().push(format!("{file}/{name}: {expr}"))
            }
        }
    }
    println!("file | value cases checked | runtime-error cases checked");
    for (file, t) in &per_file {
        println!("{file} | {}/{} | {}/{}", t.value_ok, t.value_total, t.error_ok, t.error_total);
    }
    let value_ok: usize = per_file.values().map(|t| t.value_ok).sum();
    let value_total: usize = per_file.values().map(|t| t.value_total).sum();
    let error_ok: usize = per_file.values().map(|t| t.error_ok).sum();
    let error_total: usize = per_file.values().map(|t| t.error_total).sum();
    println!("total | {value_ok}/{value_total} | {error_ok}/{error_total}");
    println!("value cases left out as `disable_check: true` in the spec: {unchecked_values}");
    for (reason, cases) in &failures {
        println!("\n{} x {reason}", cases.len());
        for case in cases {
            println!("    {case}");
        }
    }
    assert_eq!(value_total + unchecked_values, 1128, "the conformance file changed");
    let unexpected: Vec<&String> =
        failures.keys().filter(|r| !r.starts_with(PROTO_MESSAGE)).collect();
    assert!(unexpected.is_empty(), "failures other than protobuf messages: {unexpected:?}");
    assert!(value_ok >= VALUE_FLOOR, "{value_ok} value cases checked, floor {VALUE_FLOOR}");
    assert!(error_ok >= ERROR_FLOOR, "{error_ok} error cases checked, floor {ERROR_FLOOR}");
}
