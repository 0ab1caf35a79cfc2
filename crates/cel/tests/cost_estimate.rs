//! The static cost estimator (issue #3): exact estimates derived by hand from the cost
//! model in `certgate_cel::cost`, the interpreter's charges staying within them, and
//! robustness on every conformance expression and on absurd nesting.

use certgate_cel::check::{Declarations, Type, check, full_library};
use certgate_cel::cost::{
    CostEstimate, DEFAULT_COST_LIMIT, DEFAULT_MAX_UNKNOWN_SIZE, ITEMS, MAX_ESTIMATE_DEPTH,
    SizeBounds, estimate,
};
use certgate_cel::eval::Environment;
use certgate_cel::syntax::{ParserOptions, parse, parse_with};
use certgate_cel::value::Value;

fn declarations(variables: &[(&str, Type)]) -> Declarations {
    let mut decls = full_library().expect("the full library declares");
    for (name, ty) in variables {
        decls.add_variable(*name, ty.clone()).expect("test variables are distinct");
    }
    decls
}

fn estimate_of(source: &str, variables: &[(&str, Type)], bounds: &SizeBounds) -> CostEstimate {
    let decls = declarations(variables);
    let ast = parse(source).expect("test expression parses");
    let checked = check(&ast, &decls).expect("test expression checks");
    estimate(&ast, &checked, &decls, bounds)
}

fn exact(cost: u64) -> CostEstimate {
    CostEstimate { min: cost, max: cost }
}

fn strings() -> Type {
    Type::list(Type::String)
}

#[test]
fn the_default_limit_is_kubernetes_per_call_figure() {
    assert_eq!(DEFAULT_COST_LIMIT, 1_000_000);
}

#[test]
fn literals_cost_nothing_and_variables_one() {
    let none = SizeBounds::new();
    assert_eq!(estimate_of("'abc'", &[], &none), exact(0));
    assert_eq!(estimate_of("x", &[("x", Type::Int)], &none), exact(1));
    // x (1) + 1 (0) + add_int64 (1).
    assert_eq!(estimate_of("x + 1", &[("x", Type::Int)], &none), exact(2));
    // A type name is a constant at evaluation: 0, or 1 where bound as a variable.
    assert_eq!(estimate_of("int", &[], &none), CostEstimate { min: 0, max: 1 });
}

#[test]
fn a_string_scan_is_charged_a_tenth_per_byte_of_its_bound() {
    let bounds = SizeBounds::new().with_variable("self", 100);
    // self (1) + 'x' (0) + ends_with_string: 1 + ceil(size / 10), size in 0..=100.
    assert_eq!(
        estimate_of("self.endsWith('x')", &[("self", Type::String)], &bounds),
        CostEstimate { min: 2, max: 12 }
    );
    // Concatenation adds sizes: the scan then covers at most 100 + 3 bytes.
    assert_eq!(
        estimate_of("(self + 'abc').endsWith('x')", &[("self", Type::String)], &bounds),
        CostEstimate { min: 1 + 1 + 2, max: 1 + 11 + 12 }
    );
    // Literal sizes are exact: add_string over 3 bytes costs 1 + ceil(0.3).
    assert_eq!(estimate_of("'abc' + 'de'", &[], &bounds), exact(2));
}

#[test]
fn logical_operators_may_skip_their_right_operand() {
    let vars = [("a", Type::Bool), ("s", Type::String)];
    let bounds = SizeBounds::new().with_variable("s", 50);
    // a (1), then s (1) + 'x' (0) + contains over at most 50 bytes (1..=6).
    let expected = CostEstimate { min: 1, max: 1 + 1 + 6 };
    assert_eq!(estimate_of("a && s.contains('x')", &vars, &bounds), expected);
    assert_eq!(estimate_of("a || s.contains('x')", &vars, &bounds), expected);
    // The condition, then the cheaper or the dearer branch.
    assert_eq!(
        estimate_of("a ? s.contains('x') : false", &vars, &bounds),
        CostEstimate { min: 1, max: 8 }
    );
}

#[test]
fn dynamic_dispatch_takes_the_cheapest_and_dearest_candidates() {
    let bounds = SizeBounds::new().with_variable("x", 20);
    // x (1) + y (1) + one of the `_+_` overloads: 1 for numbers, up to a tenth of both
    // sizes for strings (y unbounded: the default unknown size, 2^26).
    assert_eq!(
        estimate_of("x + y", &[("x", Type::Dyn), ("y", Type::Dyn)], &bounds),
        CostEstimate { min: 3, max: 2 + (20 + (1u64 << 26)).div_ceil(10) }
    );
}

#[test]
fn fields_and_elements_are_bounded_by_path() {
    let vars = [("groups", strings()), ("labels", Type::map(Type::String, Type::String))];
    let bounds =
        SizeBounds::new().with_variable("groups", 10).with_path(format!("groups.{ITEMS}"), 100);
    // groups (1) + 0 (0) + index_list (1) + starts_with over at most 100 bytes (1..=11).
    assert_eq!(
        estimate_of("groups[0].startsWith('a')", &vars, &bounds),
        CostEstimate { min: 3, max: 13 }
    );
    // An element without a declared bound has the unknown size.
    let small_unknown = SizeBounds::new().with_variable("groups", 10).with_max_unknown_size(40);
    assert_eq!(
        estimate_of("groups[0].startsWith('a')", &vars, &small_unknown),
        CostEstimate { min: 3, max: 7 }
    );
}

#[test]
fn a_comprehension_over_a_bounded_list_costs_per_element() {
    let bounds =
        SizeBounds::new().with_variable("groups", 10).with_path(format!("groups.{ITEMS}"), 100);
    // Range `groups` (1), init `true` (0), then per group: the condition
    // `@not_strictly_false(@result)` (2) and the step `@result && g.startsWith('s')`
    // (1, plus 2..=12 when not skipped); the result `@result` (1). With no group, only
    // range and result; the loop may stop after a condition once `all` is decided.
    assert_eq!(
        estimate_of("groups.all(g, g.startsWith('s'))", &[("groups", strings())], &bounds),
        CostEstimate { min: 2, max: 1 + 10 * (2 + 13) + 1 }
    );
    // Over a literal the iteration count is exact: 10 + 3 * (2 + 1..=3) + 1.
    assert_eq!(
        estimate_of("[1, 2, 3].all(v, v > 0)", &[], &bounds),
        CostEstimate { min: 10 + 2 + 1, max: 10 + 3 * 5 + 1 }
    );
}

#[test]
fn map_and_filter_are_charged_as_built_in_place() {
    let none = SizeBounds::new();
    // Range (10), the initial `[]` (10) and result read (1) as cel-go counts them, then
    // per element the append: @result (1) + [x * 2] (10 + 2) + add_list (1).
    assert_eq!(estimate_of("[1, 2, 3].map(x, x * 2)", &[], &none), exact(21 + 3 * 14));
    // Per element the filter `x > 1` (2), and the append (13) for a kept one.
    assert_eq!(
        estimate_of("[1, 2, 3].filter(x, x > 1)", &[], &none),
        CostEstimate { min: 21 + 3 * 2, max: 21 + 3 * (2 + 13) }
    );
    // A filtered list has at most as many elements as its range: `size` is constant,
    // but iterating it again is bounded by 3.
    assert_eq!(
        estimate_of("[1, 2, 3].filter(x, x > 1).all(y, true)", &[], &none),
        CostEstimate { min: 27 + 1, max: 66 + 3 * (2 + 1) + 1 }
    );
}

#[test]
fn cel_bind_evaluates_its_value_and_body_once() {
    // The empty range list (10), the value (0), the body: a (1) + size (1).
    assert_eq!(estimate_of("cel.bind(a, 'hello', a.size())", &[], &SizeBounds::new()), exact(12));
    // The bound variable keeps the value's size: a scan of 5 bytes costs 1 + 1.
    assert_eq!(
        estimate_of("cel.bind(a, 'hello', a.endsWith('o'))", &[], &SizeBounds::new()),
        exact(10 + 1 + 2)
    );
}

/// `[1, ..., 10].map(v1, [1, ..., 10].map(v2, ... v_depth))`.
fn nested_maps(depth: usize) -> String {
    let range = format!("[{}]", (1..=10).map(|i| i.to_string()).collect::<Vec<_>>().join(", "));
    let mut source = format!("v{depth}");
    for level in (1..=depth).rev() {
        source = format!("{range}.map(v{level}, {source})");
    }
    source
}

#[test]
fn nested_comprehensions_grow_tenfold_per_level() {
    let none = SizeBounds::new();
    // One level: range (10) + 10 * (@result 1 + [v1] 10 + 1 + add_list 1).
    let one = estimate_of(&nested_maps(1), &[], &none);
    assert_eq!(one, exact(21 + 10 * 13));
    // Each level: range (10) + 10 * (@result 1 + list 10 + inner + add_list 1).
    let mut inner = one.max;
    for depth in 2..=5 {
        let cost = estimate_of(&nested_maps(depth), &[], &none);
        assert_eq!(cost, exact(21 + 10 * (12 + inner)), "depth {depth}");
        assert!(cost.max / inner >= 10 && cost.max / inner < 11, "depth {depth}");
        inner = cost.max;
    }
}

#[test]
fn unbounded_values_default_to_the_unknown_size() {
    let vars = [("s", Type::String)];
    assert_eq!(
        estimate_of("s.endsWith('x')", &vars, &SizeBounds::new()),
        CostEstimate { min: 2, max: 2 + DEFAULT_MAX_UNKNOWN_SIZE.div_ceil(10) }
    );
    let smaller = SizeBounds::new().with_max_unknown_size(50);
    assert_eq!(estimate_of("s.endsWith('x')", &vars, &smaller), CostEstimate { min: 2, max: 7 });
    // A function result nothing bounds is unknown too: `replace` may grow a string.
    // replace over 2 bytes (2, plus up to 50 for its result at run time, as cel-go
    // charges), then endsWith over at most 50 bytes (1..=6).
    assert_eq!(
        estimate_of("'ab'.replace('a', 'b').endsWith('x')", &[], &smaller),
        CostEstimate { min: 2 + 1, max: 2 + 50 + 6 }
    );
}

#[test]
fn absurd_nesting_saturates_instead_of_overflowing() {
    let mut source = "1".to_owned();
    for var in ["a", "b", "c", "d", "e"] {
        source = format!("xs.map({var}, {source})");
    }
    let cost = estimate_of(&source, &[("xs", Type::list(Type::Int))], &SizeBounds::new());
    // The outer range (1), `[]` (10) and result (1) when `xs` is empty; (2^26)^5
    // appends otherwise.
    assert_eq!(cost, CostEstimate { min: 12, max: u64::MAX });
}

/// Estimates `source` (parsed with `max_depth`) with the estimate itself on a thread
/// with a 2 MiB stack, the default for spawned threads, in whatever profile.
fn estimate_on_small_stack(source: &str, max_depth: u32) -> CostEstimate {
    let decls = declarations(&[]);
    let options = ParserOptions { max_depth, ..ParserOptions::default() };
    let ast = parse_with(source, &options).expect("deep test expression parses");
    let checked = std::thread::scope(|scope| {
        std::thread::Builder::new()
            .stack_size(64 << 20)
            .spawn_scoped(scope, || check(&ast, &decls).expect("deep test expression checks"))
            .expect("spawns the checking thread")
            .join()
            .expect("checking does not panic")
    });
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn_scoped(scope, || estimate(&ast, &checked, &decls, &SizeBounds::new()))
            .expect("spawns the estimating thread")
            .join()
            .expect("estimating does not overflow the stack")
    })
}

#[test]
fn the_deepest_parsable_expressions_fit_a_small_stack() {
    let depth = ParserOptions::default().max_depth;
    // `1 + 1 + ...` nests left: 249 additions, each add_int64 (1).
    let terms = usize::try_from(depth).expect("small");
    let sum = vec!["1"; terms].join(" + ");
    assert_eq!(estimate_on_small_stack(&sum, depth), exact(u64::from(depth) - 1));
    // Nested lists, each a literal (10) holding the next.
    let lists = format!("{}1{}", "[".repeat(terms - 1), "]".repeat(terms - 1));
    assert_eq!(estimate_on_small_stack(&lists, depth), exact(10 * (u64::from(depth) - 1)));
    // Nested comprehensions, each expanding to several levels.
    let mut nested = "true".to_owned();
    while parse(&format!("[1].all(x, {nested})")).is_ok() {
        nested = format!("[1].all(x, {nested})");
    }
    let cost = estimate_on_small_stack(&nested, depth);
    assert!(cost.min > 0 && cost.max < u64::MAX, "{cost:?}");
}

#[test]
fn deeper_trees_than_the_estimator_walks_may_cost_anything() {
    let terms = usize::try_from(MAX_ESTIMATE_DEPTH).expect("small") + 50;
    let sum = vec!["1"; terms].join(" + ");
    let cost = estimate_on_small_stack(&sum, MAX_ESTIMATE_DEPTH + 100);
    assert_eq!(cost.max, u64::MAX);
    // The additions above the cut are still counted in the minimum.
    assert_eq!(cost.min, u64::from(MAX_ESTIMATE_DEPTH) + 1);
}

/// Compiles and runs `source` with `values` bound (by name) and no budget; returns the
/// interpreter's charge.
fn charged(env: &Environment, source: &str, values: &[(&str, Value)]) -> u64 {
    let program = env.compile(source).unwrap_or_else(|e| panic!("{source}: {e}"));
    let mut slots = vec![Value::Null; env.slots().len()];
    for (name, value) in values {
        let slot = env.slot(name).unwrap_or_else(|| panic!("{name} has a slot"));
        slots[slot] = value.clone();
    }
    program.eval_with_limit(&slots, u64::MAX).unwrap_or_else(|e| panic!("{source}: {e}")).cost
}

#[test]
fn the_interpreter_charges_within_the_estimate() {
    let variables = [("groups", strings()), ("name", Type::String)];
    let env =
        Environment::with_full_library(variables.iter().map(|(n, t)| (n.to_string(), t.clone())))
            .expect("environment declares");
    let bounds = SizeBounds::new()
        .with_variable("groups", 4)
        .with_path(format!("groups.{ITEMS}"), 20)
        .with_variable("name", 30);
    let inputs: Vec<Vec<(&str, Value)>> = vec![
        vec![("groups", Value::list(vec![])), ("name", Value::string(""))],
        vec![
            ("groups", Value::list(vec![Value::string("system:authenticated")])),
            ("name", Value::string("web")),
        ],
        vec![
            (
                "groups",
                Value::list(
                    ["a", "system:masters", "bbbbbbbbbbbbbbbbbbbb", "c"]
                        .map(Value::string)
                        .to_vec(),
                ),
            ),
            ("name", Value::string("x".repeat(30).as_str())),
        ],
    ];
    let sources = [
        "name.endsWith('b') && name.size() < 10",
        "name.startsWith('w') || name.contains('zz')",
        "groups.all(g, g.startsWith('system:'))",
        "groups.exists(g, g == 'system:masters')",
        "groups.exists_one(g, g.endsWith('s'))",
        "groups.map(g, g + name).filter(s, s.size() > 3).size() >= 0",
        "'system:masters' in groups",
        "cel.bind(n, name + '!', n.size() > 1 ? n.endsWith('!') : false)",
        "groups.size() > 0 ? groups[0].lowerAscii() == name : name == ''",
    ];
    let decls = env.declarations();
    for source in sources {
        let ast = parse(source).expect("parses");
        let checked = check(&ast, decls).expect("checks");
        let cost = estimate(&ast, &checked, decls, &bounds);
        for values in &inputs {
            let actual = charged(&env, source, values);
            assert!(
                cost.min <= actual && actual <= cost.max,
                "{source}: charged {actual}, estimated {cost:?}"
            );
        }
    }
}

/// Every conformance expression that checks (bindings typed `dyn`) is estimated without
/// panicking, and its bounds are ordered.
#[test]
fn every_checked_conformance_expression_is_estimated() {
    let path =
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/conformance/cel-spec/cases.json");
    let text = std::fs::read_to_string(path).expect("reads the conformance cases");
    let cases: serde_json::Value =
        serde_json::from_str(&text).expect("parses the conformance cases");
    let base = full_library().expect("the full library declares");
    let bounds = SizeBounds::new();
    let mut estimated = 0;
    for case in cases.as_array().expect("cases are a list") {
        let Some(source) = case.get("expr").and_then(serde_json::Value::as_str) else { continue };
        let mut decls = base.clone();
        let names = case.get("bindings").and_then(serde_json::Value::as_object);
        for name in names.into_iter().flat_map(|b| b.keys()) {
            decls.add_variable(name.clone(), Type::Dyn).expect("binding names are distinct");
        }
        let Ok(ast) = parse(source) else { continue };
        let Ok(checked) = check(&ast, &decls) else { continue };
        let cost = estimate(&ast, &checked, &decls, &bounds);
        assert!(cost.min <= cost.max, "{source}: {cost:?}");
        estimated += 1;
    }
    // Most of the suite checks (see check_conformance.rs); a collapse here means the
    // loop above silently skipped everything.
    assert!(estimated > 1000, "only {estimated} expressions checked");
}

#[test]
fn object_fields_are_bounded_by_field_path() {
    let mut decls = declarations(&[("cr", Type::object("CertificateRequest"))]);
    let fields = vec![("namespace".to_owned(), Type::String), ("groups".to_owned(), strings())];
    decls.add_object_type("CertificateRequest", fields).expect("declares the object type");
    let bounds = SizeBounds::new()
        .with_path("cr.namespace", 63)
        .with_path("cr.groups", 5)
        .with_path(format!("cr.groups.{ITEMS}"), 30);
    let source = "cr.namespace.endsWith('-system') || cr.groups.exists(g, g.endsWith('s'))";
    let ast = parse(source).expect("parses");
    let checked = check(&ast, &decls).expect("checks");
    // Left: cr (1) + .namespace (1) + a scan of at most 63 bytes (1..=8). Right: range
    // cr.groups (2), then per group (at most 5) the condition
    // `@not_strictly_false(!@result)` (3) and the step `@result || g.endsWith('s')`
    // (1, plus 2..=5 when not skipped), and the result (1).
    assert_eq!(
        estimate(&ast, &checked, &decls, &bounds),
        CostEstimate { min: 3, max: 10 + 2 + 5 * (3 + 6) + 1 }
    );
}
