//! Per-request cost of a rule: evaluation (binding included) and compilation.

use certgate_cel::{CrVariable, PolicyCel};
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

const RULE: &str = "self.endsWith(cr.namespace + '.svc')";

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

fn eval(c: &mut Criterion) {
    let cel = PolicyCel::default();
    let program = cel.compile(RULE).expect("the benchmark rule compiles");
    let cr = request();
    c.bench_function("eval endsWith(cr.namespace + '.svc')", |b| {
        b.iter(|| program.eval(black_box("my-service.sandbox.svc"), black_box(&cr)))
    });
    // The physical limit: the same check written by hand in Rust.
    c.bench_function("native endsWith(namespace + '.svc')", |b| {
        b.iter(|| native(black_box("my-service.sandbox.svc"), black_box(&cr)))
    });
}

fn native(value: &str, cr: &CrVariable) -> bool {
    value.strip_suffix(".svc").is_some_and(|rest| rest.ends_with(cr.namespace.as_str()))
}

/// What the interim engine's gaps cost: `matches` compiles its regex on every call,
/// and nothing bounds a rule's steps (upstream stops at a cost of 1,000,000).
fn gaps(c: &mut Criterion) {
    let cel = PolicyCel::default();
    let cr = request();
    let regex = cel
        .compile("self.matches('^[a-z0-9-]+\\\\.sandbox\\\\.svc$')")
        .expect("the regex rule compiles");
    c.bench_function("eval matches(regex)", |b| {
        b.iter(|| regex.eval(black_box("my-service.sandbox.svc"), black_box(&cr)))
    });
    let hundred: Vec<String> = (0..100).map(|i| i.to_string()).collect();
    let list = format!("[{}]", hundred.join(", "));
    let steps = cel
        .compile(&format!("{list}.all(a, {list}.all(b, a + b >= 0))"))
        .expect("the comprehension rule compiles");
    c.bench_function("eval 10^4-step comprehension", |b| {
        b.iter(|| steps.eval(black_box(""), black_box(&cr)))
    });
}

fn compile(c: &mut Criterion) {
    // A cache of one entry that the benchmark keeps replacing: every call compiles.
    let cel = PolicyCel::new(1);
    let rules = [RULE, "self.startsWith('spiffe://cluster.local/ns/' + cr.namespace + '/sa/')"];
    let mut next = 0;
    c.bench_function("compile (uncached)", |b| {
        b.iter(|| {
            next = (next + 1) % rules.len();
            cel.compile(black_box(rules[next]))
        })
    });
    let cached = PolicyCel::default();
    c.bench_function("compile (cached)", |b| b.iter(|| cached.compile(black_box(RULE))));
}

criterion_group!(benches, eval, gaps, compile);
criterion_main!(benches);
