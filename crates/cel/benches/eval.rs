//! Per-request cost of policy rules (issue #3, docs/performance.md): evaluation with
//! binding and the cost limit, against the physical limit (the same check written in
//! Rust) and the `cel` 0.15 crate on the same expression, measured in the same run;
//! what cost counting adds; `matches` with a constant pattern; compilation.

use std::hint::black_box;
use std::sync::Arc;

use certgate_cel::check::{Type, full_library};
use certgate_cel::eval::{Environment, Functions};
use certgate_cel::value::{ObjectValue, Value};
use certgate_cel::{BoundRequest, CrVariable, PolicyCel};
use criterion::{Criterion, criterion_group, criterion_main};

const RULE: &str =
    "self.endsWith(cr.namespace + '.svc') || self.endsWith(cr.namespace + '.svc.cluster.local')";
const VALUE: &str = "my-service.sandbox.svc.cluster.local";
const REQUEST_TYPE: &str = "cm.io.policy.pkg.internal.approver.validation.CertificateRequest";

fn request() -> CrVariable {
    CrVariable {
        name: "my-cert-1234".to_owned(),
        namespace: "sandbox".to_owned(),
        username: "system:serviceaccount:sandbox:issuer".to_owned(),
        groups: vec![
            "system:serviceaccounts".to_owned(),
            "system:serviceaccounts:sandbox".to_owned(),
            "system:authenticated".to_owned(),
        ],
    }
}

/// The physical limit: the rule written by hand in Rust.
fn native(value: &str, cr: &CrVariable) -> bool {
    let ends_with = |suffix: &str| {
        value.strip_suffix(suffix).is_some_and(|rest| rest.ends_with(cr.namespace.as_str()))
    };
    ends_with(".svc") || ends_with(".svc.cluster.local")
}

fn ends_with_rule(c: &mut Criterion) {
    let cel = PolicyCel::default();
    let program = cel.compile(RULE).expect("the benchmark rule compiles");
    let cr = request();
    let mut group = c.benchmark_group("endsWith rule");
    group.bench_function("certgate, self and cr bound per evaluation", |b| {
        b.iter(|| program.eval(black_box(VALUE), black_box(&cr)))
    });
    let bound = BoundRequest::new(&cr);
    group.bench_function("certgate, cr bound once per request", |b| {
        b.iter(|| program.eval_bound(black_box(VALUE), black_box(&bound)))
    });
    group.bench_function("native Rust", |b| b.iter(|| native(black_box(VALUE), black_box(&cr))));
    let (env, cel15) = cel15_program(RULE);
    group.bench_function("cel 0.15, fresh context", |b| {
        b.iter(|| cel15_eval(&env, &cel15, black_box(VALUE), black_box(&cr)))
    });
    group.finish();
}

/// What counting cost adds: the same compiled program with and without a budget.
fn cost_overhead(c: &mut Criterion) {
    let mut decls = full_library().expect("library");
    let fields = vec![
        ("name".to_owned(), Type::String),
        ("namespace".to_owned(), Type::String),
        ("username".to_owned(), Type::String),
        ("groups".to_owned(), Type::list(Type::String)),
    ];
    decls.add_object_type(REQUEST_TYPE, fields).expect("type");
    decls.add_variable("self", Type::String).expect("self");
    decls.add_variable("cr", Type::object(REQUEST_TYPE)).expect("cr");
    let env = Environment::new(decls, Functions::full_library());
    let cr = request();
    let object = Value::Object(ObjectValue::new(
        REQUEST_TYPE,
        vec![(Arc::from("namespace"), Value::string(&cr.namespace))],
    ));
    let mut values = vec![Value::Null; env.slots().len()];
    values[env.slot("cr").expect("cr slot")] = object;
    values[env.slot("self").expect("self slot")] = Value::string(VALUE);
    let mut group = c.benchmark_group("cost counting");
    let hundred: Vec<String> = (0..100).map(|i| i.to_string()).collect();
    let list = format!("[{}]", hundred.join(", "));
    let comprehension = format!("{list}.all(a, {list}.exists(b, a + b < 0)) || true");
    for (name, source) in [("endsWith rule", RULE), ("10^4-step comprehension", &comprehension)] {
        let program = env.compile(source).expect("compiles");
        group.bench_function(format!("{name}, metered (default limit)"), |b| {
            b.iter(|| program.eval(black_box(&values)))
        });
        group.bench_function(format!("{name}, unmetered"), |b| {
            b.iter(|| program.eval_unmetered(black_box(&values)))
        });
    }
    group.finish();
}

fn matches(c: &mut Criterion) {
    let cel = PolicyCel::default();
    let cr = request();
    let source = "self.matches('^[a-z0-9.-]+$')";
    let program = cel.compile(source).expect("the regex rule compiles");
    let (env, cel15) = cel15_program(source);
    let mut group = c.benchmark_group("matches rule");
    group.bench_function("certgate", |b| b.iter(|| program.eval(black_box(VALUE), black_box(&cr))));
    group.bench_function("cel 0.15", |b| {
        b.iter(|| cel15_eval(&env, &cel15, black_box(VALUE), black_box(&cr)))
    });
    group.finish();
}

fn compile(c: &mut Criterion) {
    // A cache of one entry that the benchmark keeps replacing: every call compiles.
    let cel = PolicyCel::new(1);
    let rules = [RULE, "self.startsWith('spiffe://cluster.local/ns/' + cr.namespace + '/sa/')"];
    let mut next = 0;
    let mut group = c.benchmark_group("compile");
    group.bench_function("parse + check + compile (uncached)", |b| {
        b.iter(|| {
            next = (next + 1) % rules.len();
            cel.compile(black_box(rules[next]))
        })
    });
    let cached = PolicyCel::default();
    group.bench_function("cached", |b| b.iter(|| cached.compile(black_box(RULE))));
    group.finish();
}

/// Time for the cost limit to stop the issue's runaway rule: ten-element lists mapped
/// inside each other as deep as a policy rule may nest (10^n steps unbounded).
fn runaway(c: &mut Criterion) {
    let cel = PolicyCel::default();
    let cr = request();
    let ten = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]";
    let nested = |levels: usize| {
        let mut inner = "0".to_owned();
        for level in (0..levels).rev() {
            inner = format!("{ten}.map(a{level}, {inner})");
        }
        format!("size({inner}) > 0")
    };
    let levels = (1..20).take_while(|&n| cel.compile(&nested(n)).is_ok()).last().unwrap_or(1);
    let program = cel.compile(&nested(levels)).expect("the runaway rule compiles");
    let error = program.eval(VALUE, &cr).expect_err("the cost limit stops the rule");
    assert!(error.message.contains("cost limit exceeded"), "{error}");
    let name = format!("runaway: {levels} nested maps stopped by the cost limit");
    c.bench_function(&name, |b| b.iter(|| program.eval(black_box(VALUE), black_box(&cr)).is_err()));
}

fn cel15_program(source: &str) -> (Arc<cel::Env>, cel::Program) {
    let mut env = cel::Env::stdlib();
    env.add_extension(cel::extensions::strings).expect("strings extension");
    let env = Arc::new(env);
    let program = env.compile(source).expect("cel 0.15 compiles the rule");
    (env, program)
}

/// `cel` 0.15 with what a request brings: a fresh context with `self` and `cr` bound.
fn cel15_eval(env: &Arc<cel::Env>, program: &cel::Program, value: &str, cr: &CrVariable) -> bool {
    let mut context = cel::Context::with_env(Arc::clone(env));
    context.add_variable_from_value("self", value.to_owned());
    let mut fields = std::collections::HashMap::new();
    fields.insert("namespace".to_owned(), cel::Value::from(cr.namespace.clone()));
    fields.insert("name".to_owned(), cel::Value::from(cr.name.clone()));
    context.add_variable_from_value("cr", fields);
    program.execute(&context).is_ok_and(|v| v == cel::Value::Bool(true))
}

criterion_group!(benches, ends_with_rule, cost_overhead, matches, compile, runaway);
criterion_main!(benches);
