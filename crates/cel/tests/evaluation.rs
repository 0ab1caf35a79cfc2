//! The interpreter's semantics: error absorption, comprehensions, objects, dynamic
//! dispatch, and the cost budget (issue #3, item 3).

use std::sync::Arc;

use certgate_cel::check::Type;
use certgate_cel::eval::{COST_LIMIT_EXCEEDED, DEFAULT_COST_LIMIT, Environment, Program};
use certgate_cel::value::{ObjectValue, Value};

const OBJECT: &str = "example.Request";

fn env() -> Environment {
    let mut decls = certgate_cel::check::full_library().expect("library");
    decls
        .add_object_type(
            OBJECT,
            vec![
                ("name".to_owned(), Type::String),
                ("groups".to_owned(), Type::list(Type::String)),
            ],
        )
        .expect("object type");
    decls.add_variable("s", Type::String).expect("s");
    decls.add_variable("obj", Type::object(OBJECT)).expect("obj");
    decls.add_variable("d", Type::Dyn).expect("d");
    Environment::new(decls, certgate_cel::eval::Functions::full_library())
}

/// Binds `s`, an `obj` with only `name` set, and `d` (a list of strings).
fn bindings(env: &Environment, s: &str) -> Vec<Value> {
    let mut values = vec![Value::Null; env.slots().len()];
    let object = ObjectValue::new(OBJECT, vec![(Arc::from("name"), Value::string("web"))]);
    values[env.slot("s").expect("s")] = Value::string(s);
    values[env.slot("obj").expect("obj")] = Value::Object(object);
    values[env.slot("d").expect("d")] = Value::list(vec![Value::string("a"), Value::string("b")]);
    values
}

fn compile(source: &str) -> (Environment, Program) {
    let env = env();
    let program = env.compile(source).unwrap_or_else(|e| panic!("{source}: {e}"));
    (env, program)
}

fn eval(source: &str) -> Result<Value, String> {
    let (env, program) = compile(source);
    program.eval(&bindings(&env, "abc")).map_err(|e| e.to_string())
}

fn eval_ok(source: &str) -> Value {
    eval(source).unwrap_or_else(|e| panic!("{source}: {e}"))
}

fn strings(items: &[&str]) -> Value {
    Value::list(items.iter().map(|s| Value::string(s)).collect())
}

#[test]
fn logical_operators_absorb_errors_a_deciding_operand_outweighs() {
    assert_eq!(eval_ok("1 / 0 == 1 || true"), Value::Bool(true));
    assert_eq!(eval_ok("true || 1 / 0 == 1"), Value::Bool(true));
    assert_eq!(eval_ok("1 / 0 == 1 && false"), Value::Bool(false));
    assert_eq!(eval("1 / 0 == 1 && true"), Err("division by zero".to_owned()));
    assert_eq!(eval("false || 1 / 0 == 1"), Err("division by zero".to_owned()));
    assert_eq!(eval_ok("[1, 0].exists(x, 1 / x == 1)"), Value::Bool(true));
    assert_eq!(eval("[0, 1].all(x, 1 / x == 1)"), Err("division by zero".to_owned()));
    assert_eq!(eval_ok("[0, 2].all(x, 1 / x == 1)"), Value::Bool(false));
}

#[test]
fn comprehension_variables_shadow_and_nest() {
    let nested = Value::list(vec![
        Value::list(vec![Value::Int(3), Value::Int(4)]),
        Value::list(vec![Value::Int(3), Value::Int(4)]),
    ]);
    assert_eq!(eval_ok("[1, 2].map(x, [3, 4].map(x, x))"), nested);
    assert_eq!(eval_ok("[1, 2].all(x, [x].exists(y, y == x))"), Value::Bool(true));
    assert_eq!(
        eval_ok("[1, 2, 3].filter(x, x > 1)"),
        Value::list(vec![Value::Int(2), Value::Int(3)])
    );
    assert_eq!(
        eval_ok("[1, 2, 3].map(x, x > 1, x * 10)"),
        Value::list(vec![Value::Int(20), Value::Int(30)])
    );
    assert_eq!(eval_ok("[1, 2, 3].exists_one(x, x > 2)"), Value::Bool(true));
    assert_eq!(eval_ok("cel.bind(x, s + s, x + x)"), Value::string("abcabcabcabc"));
    assert_eq!(eval_ok("[10, 20].all(i, v, v == (i + 1) * 10)"), Value::Bool(true));
    assert_eq!(eval_ok("{'a': 1, 'b': 2}.exists(k, v, k == 'b' && v == 2)"), Value::Bool(true));
    assert_eq!(eval_ok("d.map(x, x + '!')"), strings(&["a!", "b!"]));
    // A leading dot names the declared variable, not the comprehension's.
    assert_eq!(eval_ok("['x'].all(s, .s == 'abc' && s == 'x')"), Value::Bool(true));
}

#[test]
fn transform_macros_build_maps_and_reject_repeated_keys() {
    assert_eq!(
        eval_ok("{'a': 1, 'b': 2}.transformMap(k, v, v * 2) == {'a': 2, 'b': 4}"),
        Value::Bool(true)
    );
    assert_eq!(eval_ok("[5, 6].transformMap(i, v, v + i) == {0: 5, 1: 7}"), Value::Bool(true));
    assert_eq!(
        eval("[1, 2].transformMapEntry(i, v, {'k': v})"),
        Err("insert failed: key k already exists".to_owned())
    );
}

#[test]
fn object_fields_read_as_set_or_as_their_zero_value() {
    assert_eq!(eval_ok("obj.name"), Value::string("web"));
    assert_eq!(eval_ok("has(obj.name)"), Value::Bool(true));
    assert_eq!(eval_ok("has(obj.groups)"), Value::Bool(false));
    assert_eq!(eval_ok("obj.groups"), Value::list(Vec::new()));
    assert_eq!(eval_ok("obj.?groups.hasValue()"), Value::Bool(false));
    let error = env().compile("obj.nope == 'a'").expect_err("unknown field");
    assert!(error.to_string().contains("undefined field 'nope'"), "{error}");
}

#[test]
fn dynamic_values_dispatch_on_their_kind_when_evaluated() {
    assert_eq!(eval_ok("dyn(1) + dyn(2)"), Value::Int(3));
    assert_eq!(eval_ok("dyn('a') + dyn('b')"), Value::string("ab"));
    assert_eq!(eval("dyn('a') + dyn(1)"), Err("no such overload: _+_(string, int)".to_owned()));
    assert_eq!(eval_ok("d[1]"), Value::string("b"));
    assert_eq!(eval_ok("type(d) == list"), Value::Bool(true));
}

#[test]
fn a_constant_regular_expression_is_checked_when_compiling() {
    assert_eq!(eval_ok("s.matches('^[a-c]+$')"), Value::Bool(true));
    assert_eq!(eval_ok("matches(s, 'b')"), Value::Bool(true));
    let error = env().compile("s.matches('(')").expect_err("bad pattern");
    assert!(error.to_string().starts_with("invalid matches() pattern: "), "{error}");
    // A pattern computed at evaluation time is compiled then.
    assert_eq!(eval_ok("s.matches(s)"), Value::Bool(true));
}

#[test]
fn costs_follow_the_documented_model() {
    let (env, program) = compile("s.endsWith('c')");
    let values = bindings(&env, &"x".repeat(100));
    // `s`: 1; endsWith scans its argument, as cel-go charges: ceil(1 code point / 10).
    assert_eq!(program.eval_with_limit(&values, DEFAULT_COST_LIMIT).map(|e| e.cost), Ok(2));
    let (env, program) = compile("[1, 2, 3].map(x, x + 1)");
    // The list literal: 10; cel-go's initial `[]`: 10 and result read: 1; each step:
    // 1 (x) + 1 (+) + 12 (append).
    assert_eq!(
        program.eval_with_limit(&bindings(&env, ""), DEFAULT_COST_LIMIT).map(|e| e.cost),
        Ok(10 + 11 + 3 * 14)
    );
    let (env, program) = compile("true || s.endsWith('c')");
    assert_eq!(
        program.eval_with_limit(&bindings(&env, ""), DEFAULT_COST_LIMIT).map(|e| e.cost),
        Ok(0)
    );
}

#[test]
fn the_cost_limit_stops_a_runaway_rule() {
    let ten = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]";
    let mut rule = "b0 > 0".to_owned();
    for depth in 1..8 {
        rule = format!("size({ten}.map(b{depth}, {rule})) > 0");
    }
    let rule = format!("{ten}.all(b0, {rule})");
    let (env, program) = compile(&rule);
    let error = program.eval(&bindings(&env, "")).expect_err("over budget");
    assert_eq!(error.to_string(), COST_LIMIT_EXCEEDED);
    assert!(error.to_string().contains("cost limit exceeded"));
    // A budget is per evaluation: a small rule evaluated after still succeeds.
    let (env, program) = compile("s == 'abc'");
    assert_eq!(program.eval(&bindings(&env, "abc")), Ok(Value::Bool(true)));
}

#[test]
fn an_exhausted_budget_is_never_absorbed() {
    let (env, program) = compile("[1, 2, 3].all(x, [1, 2, 3].all(y, x + y > 0)) || true");
    let values = bindings(&env, "");
    let error = program.eval_with_limit(&values, 20).expect_err("over budget");
    assert_eq!(error.to_string(), COST_LIMIT_EXCEEDED);
    let (env, program) = compile("true || [1, 2, 3].all(x, x > 0)");
    assert_eq!(
        program.eval_with_limit(&bindings(&env, ""), 0).map(|e| e.value),
        Ok(Value::Bool(true))
    );
}

#[test]
fn metered_and_unmetered_evaluation_agree() {
    for source in ["s + 'x'", "[1, 2].map(x, x * 2)", "obj.name.startsWith('w')", "1 / 0"] {
        let (env, program) = compile(source);
        let values = bindings(&env, "abc");
        assert_eq!(
            program.eval(&values).map_err(|e| e.to_string()),
            program.eval_unmetered(&values).map_err(|e| e.to_string()),
            "{source}"
        );
    }
}

/// `s.endsWith(a + b)` is compiled to a test that never builds `a + b`; it must give
/// the value, error and cost of concatenating first (as the unchecked program does).
#[test]
fn affix_tests_agree_with_concatenating() {
    let env = env();
    for rule in [
        "s.endsWith(obj.name + '.svc')",
        "s.startsWith('spiffe://' + obj.name)",
        "s.endsWith(s + s)",
        "s.startsWith(s + '')",
        "s.endsWith('' + '')",
        "'ab'.startsWith('a' + 'b') && 'ab'.endsWith('a' + 'b')",
    ] {
        let fast = env.compile(rule).unwrap_or_else(|e| panic!("{rule}: {e}"));
        let plain = env.compile_unchecked(rule).unwrap_or_else(|e| panic!("{rule}: {e}"));
        for input in ["", "web.svc", "x.web.svc", "spiffe://web/x", "spiffe://we", "aa", "a"] {
            let values = bindings(&env, input);
            assert_eq!(
                fast.eval_with_limit(&values, DEFAULT_COST_LIMIT),
                plain.eval_with_limit(&values, DEFAULT_COST_LIMIT),
                "{rule} with s = {input:?}"
            );
        }
    }
}
