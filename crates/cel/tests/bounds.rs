//! Rules that are too long or too deep are compile errors, never a crash; the deepest and
//! longest rules cel-go accepts compile and evaluate, on a worker's stack.

use certgate_cel::{CrVariable, MAX_POLICY_NESTING_DEPTH, MAX_POLICY_RULE_CODE_POINTS, PolicyCel};
use std::thread;

/// The stack of an async runtime's worker thread (tokio's default).
const WORKER_STACK_BYTES: usize = 2 * 1024 * 1024;

/// cel-go v0.31.0's messages (the cel oracle) for its two depth counters, without a
/// location: grammar nesting, and chains of operators, selections, calls and indexes.
const NESTING: &str = "ERROR: <input>:-1:0: expression recursion limit exceeded: 250";
const CHAIN: &str = "ERROR: <input>:-1:0: max recursion depth exceeded";

/// Runs `f` on a thread with a `stack`-byte stack.
fn on_stack<T: Send>(stack: usize, f: impl FnOnce() -> T + Send) -> T {
    thread::scope(|scope| {
        thread::Builder::new()
            .stack_size(stack)
            .spawn_scoped(scope, f)
            .expect("a test thread starts")
            .join()
            .expect("the test thread does not panic")
    })
}

/// A way of nesting: its name, the rule nested `n` levels deep (true at any `n`), the
/// deepest `n` cel-go accepts and its message one level deeper (the cel oracle's answers).
type Shape = (&'static str, fn(usize) -> String, usize, &'static str);

fn shapes() -> Vec<Shape> {
    vec![
        ("parentheses", |n| format!("{}true{}", "(".repeat(n), ")".repeat(n)), 249, NESTING),
        (
            "lists",
            |n| format!("{}true{}{}", "[".repeat(n), "]".repeat(n), "[0]".repeat(n)),
            249,
            NESTING,
        ),
        (
            "maps",
            |n| format!("{}true{}{}", "{1: ".repeat(n), "}".repeat(n), "[1]".repeat(n)),
            249,
            NESTING,
        ),
        ("arithmetic chain", |n| format!("0{} == {n}", " + 1".repeat(n)), 249, CHAIN),
        ("member calls", |n| format!("'A'{} == 'a'", ".lowerAscii()".repeat(n)), 249, CHAIN),
        // Not true: indexing a string fails at run time, after the whole chain is walked.
        ("index chain", |n| format!("dyn(self){} == 'x'", "[0]".repeat(n)), 249, CHAIN),
        (
            "conditionals",
            |n| format!("{}true{}", "true ? (".repeat(n), ") : false".repeat(n)),
            249,
            NESTING,
        ),
        ("else chain", |n| format!("{}true", "false ? false : ".repeat(n)), 249, NESTING),
        (
            "comprehensions",
            |n| {
                let open: String = (0..n).map(|i| format!("[{i}].all(x{i}, ")).collect();
                format!("{open}true{}", ")".repeat(n))
            },
            249,
            NESTING,
        ),
        (
            "function calls",
            |n| format!("{}self{} == self", "string(".repeat(n), ")".repeat(n)),
            249,
            NESTING,
        ),
        (
            "not",
            |n| format!("{}true{} == {}", "!(".repeat(n), ")".repeat(n), n % 2 == 0),
            249,
            NESTING,
        ),
        ("negation", |n| format!("{}1{} != 0", "-(".repeat(n), ")".repeat(n)), 249, NESTING),
    ]
}

#[test]
fn the_deepest_accepted_rule_of_every_shape_evaluates_on_a_worker_stack() {
    let cel = PolicyCel::default();
    let cr = CrVariable::default();
    for (shape, rule, deepest, message) in shapes() {
        let too_deep = cel.compile(&rule(deepest + 1)).unwrap_err();
        assert_eq!(too_deep.message, message, "{shape}");
        let result = on_stack(WORKER_STACK_BYTES, || {
            cel.compile(&rule(deepest)).map(|program| program.eval("x", &cr))
        });
        if shape == "index chain" {
            let failed = result.expect("compiles").expect_err("a string cannot be indexed");
            assert!(failed.message.contains("no such overload"), "{failed}");
        } else {
            assert_eq!(result, Ok(Ok(true)), "{shape} at depth {deepest}");
        }
    }
}

/// The smallest stack (in 64 KiB steps) on which every stage of each shape's deepest
/// rule runs, for docs/cel.md: `cargo test -p certgate-cel --test bounds stack_margin --
/// --ignored --nocapture` (each probe that overflows aborts the process, so it bisects
/// in child processes).
#[test]
#[ignore = "a measurement, run by hand"]
fn stack_margin() {
    let cr = CrVariable::default();
    if let Ok(probe) = std::env::var("CERTGATE_STACK_PROBE") {
        let (index, stack) = probe.split_once(':').expect("index:stack");
        let (_, rule, deepest, _) = shapes()[index.parse::<usize>().expect("index")];
        let stack = stack.parse().expect("stack");
        on_stack(stack, || {
            let program = PolicyCel::new(1).compile(&rule(deepest)).expect("compiles");
            let _ = program.eval("x", &cr);
        });
        return;
    }
    let exe = std::env::current_exe().expect("test binary");
    for (index, (shape, _, _, _)) in shapes().iter().enumerate() {
        let fits = |kib: usize| {
            std::process::Command::new(&exe)
                .args(["stack_margin", "--ignored", "--exact", "--quiet"])
                .env("CERTGATE_STACK_PROBE", format!("{index}:{}", kib * 1024))
                .output()
                .is_ok_and(|out| out.status.success())
        };
        let (mut low, mut high) = (64, 8192);
        while high - low > 64 {
            let mid = (low + high) / 2 / 64 * 64;
            if fits(mid) { high = mid } else { low = mid }
        }
        eprintln!("{shape}: needs at most {high} KiB");
    }
}

#[test]
fn pathological_nesting_is_rejected_on_a_worker_stack() {
    let cel = PolicyCel::default();
    for (shape, rule, _, message) in shapes() {
        // Compiling from a small stack: the parser stops at the limit.
        let rule = rule(5_000);
        assert!(rule.len() < MAX_POLICY_RULE_CODE_POINTS, "{shape}");
        let err = on_stack(WORKER_STACK_BYTES, || cel.compile(&rule)).unwrap_err();
        assert_eq!(err.message, message, "{shape}");
    }
}

#[test]
fn ten_thousand_nested_parentheses_are_a_compile_error() {
    let rule = format!("{}1{}", "(".repeat(10_000), ")".repeat(10_000));
    let err = PolicyCel::default().compile(&rule).unwrap_err();
    assert_eq!(err.message, NESTING);
    assert_eq!(MAX_POLICY_NESTING_DEPTH, 250);
}

/// `rule` padded with spaces to `len` code points.
fn padded(rule: &str, len: usize) -> String {
    let pad = len.saturating_sub(rule.chars().count());
    format!("{rule}{}", " ".repeat(pad))
}

/// Rules of cel-go's maximal length (100,000 code points) in the shapes that stress each
/// stage: a long literal, a long `||` chain, a long list. One more code point is refused.
#[test]
fn rules_of_the_maximal_length_compile_and_evaluate() {
    let cel = PolicyCel::new(1);
    let cr = CrVariable::default();
    let max = MAX_POLICY_RULE_CODE_POINTS;
    let alternatives: Vec<String> = (0..5000).map(|i| format!("self == 'v{i}'")).collect();
    let values: Vec<String> = (0..10_000).map(|i| format!("'{i}'")).collect();
    let literal = format!("self != '{}'", "é".repeat(max - 11));
    let shapes = [
        ("string literal", literal, "x"),
        ("|| chain", alternatives.join(" || "), "v4999"),
        ("list", format!("self in [{}]", values.join(", ")), "9999"),
    ];
    for (shape, rule, value) in shapes {
        let rule = padded(&rule, max);
        assert_eq!(rule.chars().count(), max, "{shape}");
        let started = std::time::Instant::now();
        let program = on_stack(WORKER_STACK_BYTES, || cel.compile(&rule))
            .unwrap_or_else(|err| panic!("{shape}: {err}"));
        // A figure for docs/cel.md, not an assertion.
        eprintln!("{shape}: {} code points compiled in {:?}", max, started.elapsed());
        assert_eq!(on_stack(WORKER_STACK_BYTES, || program.eval(value, &cr)), Ok(true), "{shape}");
        let err = cel.compile(&format!("{rule} ")).unwrap_err();
        assert_eq!(
            err.message,
            format!(
                "ERROR: <input>:-1:0: expression code point size exceeds limit: size: {}, limit {max}",
                max + 1
            ),
            "{shape}"
        );
    }
}
