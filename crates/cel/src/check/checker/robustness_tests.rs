//! No parsed input may panic the checker or overflow its stack.

use super::check;
use crate::check::{Declarations, Type, full_library};
use crate::syntax::parse;
use proptest::prelude::*;

fn env() -> Declarations {
    let mut decls = full_library().unwrap_or_default();
    for (name, ty) in [
        ("self", Type::String),
        ("cr", Type::map(Type::String, Type::Dyn)),
        ("xs", Type::list(Type::Int)),
    ] {
        assert!(decls.add_variable(name, ty).is_ok());
    }
    decls
}

/// Parses and checks `source` on a thread with a 2 MiB stack, the Rust default for
/// spawned threads; `Ok(true)` when it parsed and checked.
fn check_on_small_stack(source: String) -> bool {
    let handle = std::thread::Builder::new().stack_size(2 << 20).spawn(move || {
        let decls = env();
        parse(&source).ok().map(|ast| check(&ast, &decls).is_ok()).unwrap_or(false)
    });
    match handle.map(|h| h.join()) {
        Ok(Ok(checked)) => checked,
        other => panic!("checker thread failed: {other:?}"),
    }
}

#[test]
fn the_deepest_parseable_expressions_check_on_a_small_stack() {
    let depth = 240;
    let cases = [
        format!("{}1{} == 1", "(".repeat(depth), ")".repeat(depth)),
        format!("{}1{}.size() == 1", "[".repeat(depth), "]".repeat(depth)),
        format!("{}true{}", "[true].all(x, ".repeat(depth / 4), ")".repeat(depth / 4)),
        format!("{}1{}.size() > 0", "{'k': ".repeat(depth), "}".repeat(depth)),
    ];
    for source in cases {
        let start: String = source.chars().take(16).collect();
        assert!(check_on_small_stack(source), "{start}... did not parse and check");
    }
}

const PIECES: &[&str] = &[
    "self",
    "cr",
    "cr.name",
    "xs",
    "x",
    "1",
    "1u",
    "2.5",
    "'a'",
    "b'b'",
    "null",
    "true",
    "[",
    "]",
    "{",
    "}",
    "(",
    ")",
    ",",
    ":",
    ".",
    ".?",
    "[?",
    "?",
    "+",
    "-",
    "*",
    "/",
    "%",
    "==",
    "!=",
    "<",
    "in",
    "&&",
    "||",
    "!",
    "size",
    "has",
    "all",
    "exists",
    "map",
    "filter",
    "exists_one",
    "transformMap",
    "cel.bind",
    "optional.of",
    "optional.none()",
    "orValue",
    "startsWith",
    "matches",
    "int",
    "type",
    "dyn",
    "string",
    "ip",
    "cidr",
    "net.IP",
    "T{",
    "value",
    "x.y",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_token_sequences_never_panic(pieces in prop::collection::vec(0..PIECES.len(), 0..40)) {
        let source: Vec<&str> = pieces.iter().filter_map(|&i| PIECES.get(i).copied()).collect();
        check_on_small_stack(source.join(" "));
    }

    #[test]
    fn random_text_never_panics(source in "[ -~]{0,80}") {
        check_on_small_stack(source);
    }
}
