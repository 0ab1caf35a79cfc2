//! Compile time (parse, type-check, cost estimate, compile) over rule length, for
//! docs/performance.md: time per term must stay flat from 1k to 32k terms (issue #16; it
//! grew linearly with the length before, so the whole compile was quadratic).
//!
//! The policy environment refuses rules over 32 KiB, so the benchmark compiles in an
//! environment with the same libraries, `self: string`, the policy nesting limit and a
//! size limit large enough for 32k terms.
//!
//! `cargo bench -p certgate-cel --bench compile_length`; one shape or size:
//! `... -- 'compile/or/1024'`.
//!
//! Two groups: `compile` measures wall-clock time as usual; `compile-cpu` the on-CPU time of
//! the benchmarking thread (Linux `/proc/thread-self/schedstat`), which stays meaningful on
//! a machine shared with other work, where wall-clock time mostly measures waiting for a
//! core.

use std::hint::black_box;

use certgate_cel::check::Type;
use certgate_cel::cost::SizeBounds;
use certgate_cel::eval::Environment;
use certgate_cel::syntax::ParserOptions;
use criterion::measurement::{Measurement, ValueFormatter, WallTime};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

const TERMS: [usize; 6] = [1 << 10, 1 << 11, 1 << 12, 1 << 13, 1 << 14, 1 << 15];

/// The probe of issue #16: `1==0||1==1||...`.
fn or_chain(n: usize) -> String {
    let terms: Vec<&str> = (0..n).map(|i| if i % 2 == 0 { "1==0" } else { "1==1" }).collect();
    terms.join("||")
}

/// A deny-list written out: `self != 'h0' && self != 'h1' && ...`.
fn and_chain(n: usize) -> String {
    let terms: Vec<String> = (0..n).map(|i| format!("self != 'h{i}'")).collect();
    terms.join(" && ")
}

/// An allow-list literal: `self in ['h0', 'h1', ...]`.
fn list(n: usize) -> String {
    let items: Vec<String> = (0..n).map(|i| format!("'h{i}'")).collect();
    format!("self in [{}]", items.join(", "))
}

fn environment() -> Environment {
    let env = Environment::with_full_library([("self".to_owned(), Type::String)])
        .expect("the library declares");
    env.with_parser_options(ParserOptions { max_depth: 32, max_code_points: 1 << 20, macros: true })
}

/// On-CPU nanoseconds of the calling thread, or 0 where the kernel does not say.
fn thread_cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|text| text.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

/// Time the benchmarking thread ran on a CPU, in nanoseconds (shown like wall time).
struct CpuTime(WallTime);

impl Measurement for CpuTime {
    type Intermediate = u64;
    type Value = u64;

    fn start(&self) -> u64 {
        thread_cpu_ns()
    }
    fn end(&self, started: u64) -> u64 {
        thread_cpu_ns().saturating_sub(started)
    }
    fn add(&self, a: &u64, b: &u64) -> u64 {
        a.saturating_add(*b)
    }
    fn zero(&self) -> u64 {
        0
    }
    fn to_f64(&self, value: &u64) -> f64 {
        *value as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        self.0.formatter()
    }
}

fn bench_compile(c: &mut Criterion) {
    run(c, "compile");
}

fn bench_compile_cpu(c: &mut Criterion<CpuTime>) {
    run(c, "compile-cpu");
}

fn run<M: Measurement>(c: &mut Criterion<M>, name: &str) {
    let env = environment();
    let bounds = SizeBounds::new().with_variable("self", 64 * 1024);
    let mut group = c.benchmark_group(name);
    group.sample_size(10);
    for (shape, build) in
        [("or", or_chain as fn(usize) -> String), ("and", and_chain), ("list", list)]
    {
        for n in TERMS {
            let rule = build(n);
            group.throughput(Throughput::Elements(n as u64));
            group.bench_with_input(BenchmarkId::new(shape, n), &rule, |b, rule| {
                // Here rather than before: sizes filtered out are not compiled at all.
                env.compile_estimated(rule, &bounds).expect("the rule compiles");
                b.iter(|| env.compile_estimated(black_box(rule), &bounds).is_ok())
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench_compile);
criterion_group! {
    name = cpu;
    config = Criterion::default().with_measurement(CpuTime(WallTime));
    targets = bench_compile_cpu
}
criterion_main!(benches, cpu);
