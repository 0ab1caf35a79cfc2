//! What the conformance tests share: the cases file, the typed JSON encoding of its
//! values, and the spec's list of deliberately unchecked tests.

#![allow(dead_code)] // Each test binary uses part of this module.

use certgate_cel::check::Type;
use serde_json::Value as Json;

pub const CASES: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/conformance/cel-spec/cases.json");
const TEXTPROTO: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/conformance/cel-spec/textproto");

/// The conformance files issue #3 targets.
pub const TARGET_FILES: &[&str] = &[
    "basic",
    "comparisons",
    "conversions",
    "fields",
    "fp_math",
    "integer_math",
    "lists",
    "logic",
    "macros",
    "macros2",
    "string",
    "string_ext",
    "timestamps",
    "optionals",
    "bindings_ext",
    "network_ext",
    "parse",
];

/// Every case of the conformance file.
pub fn load_cases() -> Vec<Json> {
    let text = std::fs::read_to_string(CASES).unwrap_or_else(|e| panic!("reading {CASES}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("parsing {CASES}: {e}"))
}

/// The checker type of a typed JSON value; mixed list elements or map entries are `dyn`.
pub fn type_of(value: &Json) -> Type {
    let Some((kind, inner)) = value.as_object().and_then(|o| o.iter().next()) else {
        return Type::Dyn;
    };
    let joined = |types: Vec<Type>| {
        let mut iter = types.into_iter();
        let first = iter.next().unwrap_or(Type::Dyn);
        if iter.all(|t| t == first) { first } else { Type::Dyn }
    };
    match kind.as_str() {
        "int" => Type::Int,
        "uint" => Type::Uint,
        "double" => Type::Double,
        "string" => Type::String,
        "bytes" => Type::Bytes,
        "bool" => Type::Bool,
        "null" => Type::Null,
        "type" => Type::type_of(Type::Dyn),
        "list" => {
            let items =
                inner.as_array().map(|a| a.iter().map(type_of).collect()).unwrap_or_default();
            Type::list(joined(items))
        }
        "map" => {
            let entries = inner.as_array().cloned().unwrap_or_default();
            let part = |i: usize| {
                entries.iter().map(|e| e.get(i).map_or(Type::Dyn, type_of)).collect::<Vec<_>>()
            };
            Type::map(joined(part(0)), joined(part(1)))
        }
        _ => Type::Dyn,
    }
}

/// Names of the tests of `file` the spec runs with `disable_check: true`: they are
/// ill-typed on purpose to exercise evaluation, so a checker rejects them.
pub fn unchecked_tests(file: &str) -> Vec<String> {
    let path = format!("{TEXTPROTO}/{file}.textproto");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {path}: {e}"));
    let mut names = Vec::new();
    let mut last_name = "";
    for line in text.lines().map(str::trim) {
        if let Some(name) = line.strip_prefix("name: \"") {
            last_name = name.trim_end_matches('"');
        } else if line.starts_with("disable_check: true") {
            names.push(last_name.to_owned());
        }
    }
    names
}
