//! Rules that are too long or too deep are compile errors, never a crash; rules within
//! the limits compile and evaluate on small stacks.

use certgate_cel::{CrVariable, MAX_NESTING_DEPTH, MAX_RULE_BYTES, PolicyCel};
use std::thread;

/// The stack of an async runtime's worker thread (tokio's default).
const WORKER_STACK_BYTES: usize = 2 * 1024 * 1024;

fn nests_too_deep(message: &str) -> bool {
    message.starts_with("ERROR: <input>:1:")
        && message
            .lines()
            .next()
            .is_some_and(|l| l.ends_with(": expression recursion limit exceeded: 32"))
}

/// Runs `f` on a thread with a worker-sized stack.
fn on_worker_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    thread::scope(|scope| {
        thread::Builder::new()
            .stack_size(WORKER_STACK_BYTES)
            .spawn_scoped(scope, f)
            .expect("a test thread starts")
            .join()
            .expect("the test thread does not panic")
    })
}

/// A way of nesting: its name, and the rule nested `n` levels deep, true at any `n`.
type Shape = (&'static str, fn(usize) -> String);

fn shapes() -> Vec<Shape> {
    vec![
        ("parentheses", |n| format!("{}true{}", "(".repeat(n), ")".repeat(n))),
        ("lists", |n| format!("{}true{}{}", "[".repeat(n), "]".repeat(n), "[0]".repeat(n))),
        ("arithmetic chain", |n| format!("0{} == {n}", " + 1".repeat(n))),
        ("member calls", |n| format!("'A'{} == 'a'", ".lowerAscii()".repeat(n))),
        ("conditionals", |n| format!("{}true{}", "true ? (".repeat(n), ") : false".repeat(n))),
        ("comprehensions", |n| {
            let open: String = (0..n).map(|i| format!("[{i}].all(x{i}, ")).collect();
            format!("{open}true{}", ")".repeat(n))
        }),
        ("function calls", |n| format!("{}self{} == self", "string(".repeat(n), ")".repeat(n))),
    ]
}

#[test]
fn the_deepest_accepted_rule_of_every_shape_evaluates_on_a_worker_stack() {
    let cel = PolicyCel::default();
    let cr = CrVariable::default();
    for (shape, rule) in shapes() {
        let deepest = (1..=MAX_NESTING_DEPTH + 1)
            .take_while(|&n| cel.compile(&rule(n)).is_ok())
            .last()
            .unwrap_or_else(|| panic!("{shape}: the shallowest rule compiles"));
        let too_deep = cel.compile(&rule(deepest + 1)).unwrap_err();
        assert!(nests_too_deep(&too_deep.message), "{shape}: {too_deep}");
        let program = cel.compile(&rule(deepest)).unwrap();
        let result = on_worker_stack(|| program.eval("x", &cr));
        assert_eq!(result, Ok(true), "{shape} at depth {deepest}");
    }
}

#[test]
fn pathological_nesting_is_rejected_on_a_worker_stack() {
    let cel = PolicyCel::default();
    for (shape, rule) in shapes() {
        let rule = rule(10_000);
        let rule = if rule.len() > MAX_RULE_BYTES {
            rule.get(..MAX_RULE_BYTES).unwrap_or_default().to_owned()
        } else {
            rule
        };
        // Compiling from a small stack: every stage is bounded by the nesting limit.
        let err = on_worker_stack(|| cel.compile(&rule)).unwrap_err();
        assert!(nests_too_deep(&err.message), "{shape}: {err}");
    }
}

#[test]
fn ten_thousand_nested_parentheses_are_a_compile_error() {
    let rule = format!("{}1{}", "(".repeat(10_000), ")".repeat(10_000));
    let err = PolicyCel::default().compile(&rule).unwrap_err();
    // cel-go's wording and position: the parenthesis that opens level 33.
    assert_eq!(
        err.message.lines().next(),
        Some("ERROR: <input>:1:33: expression recursion limit exceeded: 32")
    );
}

#[test]
fn long_flat_rules_are_accepted() {
    let cel = PolicyCel::default();
    let cr = CrVariable::default();
    let alternatives: Vec<String> = (0..1000).map(|i| format!("self == 'v{i}'")).collect();
    let rule = alternatives.join(" || ");
    let program = cel.compile(&rule).unwrap();
    assert_eq!(on_worker_stack(|| program.eval("v999", &cr)), Ok(true));
    assert_eq!(on_worker_stack(|| program.eval("v1000", &cr)), Ok(false));

    let values: Vec<String> = (0..1000).map(|i| format!("'v{i}'")).collect();
    let rule = format!("self in [{}]", values.join(", "));
    let program = cel.compile(&rule).unwrap();
    assert_eq!(program.eval("v500", &cr), Ok(true));
}

#[test]
fn rules_over_32_kib_are_rejected_with_their_length() {
    let rule = format!("self == '{}'", "a".repeat(MAX_RULE_BYTES));
    let err = PolicyCel::default().compile(&rule).unwrap_err();
    assert_eq!(
        err.message,
        format!(
            "rule is {} bytes long, more than the 32768 bytes allowed; \
             split it into several validations",
            MAX_RULE_BYTES + 10
        )
    );
    let longest = format!("self == '{}'", "a".repeat(MAX_RULE_BYTES - 10));
    assert_eq!(longest.len(), MAX_RULE_BYTES);
    assert!(PolicyCel::default().compile(&longest).is_ok());
}
