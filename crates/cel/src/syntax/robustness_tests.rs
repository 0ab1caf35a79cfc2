//! No input may panic the parser or overflow its stack.

use super::{ParseError, ParserOptions, SyntaxErrorKind, parse};
use proptest::prelude::*;

/// Runs `parse` on a thread with a 2 MiB stack, the Rust default for spawned threads.
fn parse_on_small_stack(source: String) -> Result<(), SyntaxErrorKind> {
    let handle = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || parse(&source).map(drop).map_err(|e: ParseError| e.kind));
    match handle.map(|h| h.join()) {
        Ok(Ok(result)) => result,
        other => panic!("parser thread failed: {other:?}"),
    }
}

const TOO_DEEP: SyntaxErrorKind = SyntaxErrorKind::NestingTooDeep(250);

#[test]
fn hundred_thousand_nested_openers_give_a_clean_error() {
    for (open, close) in
        [("(", ")"), ("[", "]"), ("{1:", "}"), ("f(", ")"), ("a[", "]"), ("T{f:", "}")]
    {
        let source =
            format!("{}1{}", open.repeat(100_000 / open.len()), close.repeat(100_000 / open.len()));
        let source: String = source.chars().take(100_000).collect();
        assert_eq!(parse_on_small_stack(source), Err(TOO_DEEP), "nesting with {open}");
    }
}

#[test]
fn long_chains_give_a_clean_error() {
    let chains = [
        (format!("1{}", "+1".repeat(49_999)), SyntaxErrorKind::ChainTooDeep),
        (format!("a{}", ".b".repeat(49_999)), SyntaxErrorKind::ChainTooDeep),
        (format!("a{}", ".f()".repeat(24_999)), SyntaxErrorKind::ChainTooDeep),
        (format!("a{}", "[0]".repeat(33_333)), SyntaxErrorKind::ChainTooDeep),
        (format!("a{}", ".all(x, x)".repeat(9_999)), SyntaxErrorKind::ChainTooDeep),
        // Else branches nest in the grammar.
        (format!("{}x", "true ? 1 : ".repeat(9_000)), TOO_DEEP),
    ];
    for (chain, error) in chains {
        let start: String = chain.chars().take(12).collect();
        assert_eq!(parse_on_small_stack(chain), Err(error), "chain starting {start}");
    }
    // cel-go counts chains after parsing: a nesting error further on wins.
    let both = format!("1{} + {}1{}", "+1".repeat(300), "(".repeat(300), ")".repeat(300));
    assert_eq!(parse_on_small_stack(both), Err(TOO_DEEP));
}

#[test]
fn long_logical_chains_are_balanced() {
    assert_eq!(parse_on_small_stack(format!("x{}", " || x".repeat(19_999))), Ok(()));
    assert_eq!(parse_on_small_stack(format!("x{}", " && x".repeat(19_999))), Ok(()));
}

#[test]
fn long_unary_runs_collapse() {
    assert_eq!(parse_on_small_stack(format!("{}1", "-".repeat(99_999))), Ok(()));
    assert_eq!(parse_on_small_stack(format!("{}x", "!".repeat(99_999))), Ok(()));
}

#[test]
fn the_depth_limit_is_exact_and_configurable() {
    let nested = |n: usize| format!("{}1{}", "(".repeat(n), ")".repeat(n));
    // The root expression counts as one level.
    assert_eq!(parse_on_small_stack(nested(249)), Ok(()));
    assert_eq!(parse_on_small_stack(nested(250)), Err(TOO_DEEP));
    let shallow = ParserOptions { max_depth: 3, ..ParserOptions::default() };
    assert!(super::parse_with("[[1]]", &shallow).is_ok());
    assert_eq!(
        super::parse_with("[[[1]]]", &shallow).err().map(|e| e.kind),
        Some(SyntaxErrorKind::NestingTooDeep(3))
    );
    // Chains, built by loops, are bounded by the same limit.
    assert!(super::parse_with("1 + 2 + 3 + 4", &shallow).is_ok());
    assert_eq!(
        super::parse_with("1 + 2 + 3 + 4 + 5", &shallow).err().map(|e| e.kind),
        Some(SyntaxErrorKind::ChainTooDeep)
    );
}

#[test]
fn deepest_accepted_trees_of_every_shape_fit_a_small_stack() {
    let deep = [
        format!("{}1{}", "[".repeat(249), "]".repeat(249)),
        format!("{}1{}", "{1:".repeat(249), "}".repeat(249)),
        format!("{}1{}", "f(".repeat(249), ")".repeat(249)),
        format!("{}1{}", "a[".repeat(249), "]".repeat(249)),
        format!("{}1{}", "l.map(x, ".repeat(60), ")".repeat(60)),
        format!("a{}", ".b".repeat(249)),
    ];
    for source in deep {
        let start: String = source.chars().take(12).collect();
        assert_eq!(parse_on_small_stack(source), Ok(()), "{start}");
    }
}

const TOKENS: &[&str] = &[
    "a", "b.c", "1", "2u", "1.5", "-", "!", "+", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=",
    "&&", "||", "in", "?", ":", ".", "?.", ",", "(", ")", "[", "]", "{", "}", "'s'", "b'x'",
    "r'\\'", "'''t'''", "has", "all", "map", "exists", "cel.bind", "optMap", "T{", "if", "null",
    "true", "`q`", "// c\n", " ",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn arbitrary_strings_never_panic(source in ".{0,200}") {
        let _ = parse(&source);
    }

    #[test]
    fn token_soups_never_panic(indices in proptest::collection::vec(0..TOKENS.len(), 0..60)) {
        let source: String = indices.iter().filter_map(|&i| TOKENS.get(i).copied()).collect::<Vec<_>>().join(" ");
        if let Err(e) = parse(&source) {
            // Errors always point inside (or just past) the source.
            prop_assert!(e.span.start as usize <= source.len());
            prop_assert!(e.line >= 1 && e.column >= 1);
        }
    }
}
