//! Parse and type-check time of typical policy rules with certgate's own CEL front end.

use certgate_cel::check::{Type, check, full_library};
use certgate_cel::syntax::parse;
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;

const TYPICAL: &str =
    "self.endsWith(cr.namespace + '.svc') || self.endsWith(cr.namespace + '.svc.cluster.local')";
const MACRO: &str =
    "cr.groups.exists(g, g.startsWith('system:serviceaccounts:') && g.size() < 253)";

fn bench_parse(c: &mut Criterion) {
    c.bench_function("parse typical rule", |b| b.iter(|| parse(black_box(TYPICAL))));
    c.bench_function("parse exists() rule", |b| b.iter(|| parse(black_box(MACRO))));
}

/// Parse + check against the whole declared library plus the approver-policy variables
/// (`self: string`, `cr: map(string, dyn)` until object types exist): issue #3's
/// "compile + type-check" budget is 50 µs per typical rule.
fn bench_parse_and_check(c: &mut Criterion) {
    let mut decls = full_library().expect("the library declares");
    decls.add_variable("self", Type::String).expect("self declares");
    decls
        .add_variable("cr", Type::Map(Box::new(Type::String), Box::new(Type::Dyn)))
        .expect("cr declares");
    for (name, rule) in [("typical", TYPICAL), ("exists()", MACRO)] {
        let ast = parse(rule).expect("the rule parses");
        check(&ast, &decls).expect("the rule checks");
        c.bench_function(&format!("parse + check {name} rule"), |b| {
            b.iter(|| parse(black_box(rule)).map(|ast| check(&ast, &decls).is_ok()))
        });
    }
}

criterion_group!(benches, bench_parse, bench_parse_and_check);
criterion_main!(benches);
