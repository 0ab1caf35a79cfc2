//! Parse time of typical policy rules with certgate's own CEL parser.

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

criterion_group!(benches, bench_parse);
criterion_main!(benches);
