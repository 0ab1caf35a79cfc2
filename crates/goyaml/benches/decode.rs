//! `from_yaml` on executed-template-shaped documents, next to serde-saphyr's `from_str` into
//! a `serde_json::Value` (a peer: a maintained YAML 1.2 decoder in Rust doing the same job,
//! without yaml.v3's rules).
//!
//! Run: `CARGO_PROFILE_BENCH_DEBUG=0 cargo bench -p certgate-goyaml --bench decode`

mod inputs;

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};

fn bench(c: &mut Criterion) {
    let cases = [
        ("policy", inputs::POLICY.to_owned()),
        ("policy_block", inputs::policy_with_block()),
        ("configmap_200", inputs::configmap_200()),
    ];
    for (name, text) in &cases {
        // The inputs must decode, or the figures would measure an error path.
        let value = certgate_goyaml::from_yaml(text).expect("bench input decodes");
        assert!(value.is_object());
        let mut group = c.benchmark_group(*name);
        group.bench_function("from_yaml", |b| {
            b.iter(|| certgate_goyaml::from_yaml(black_box(text)))
        });
        group.bench_function("serde_saphyr", |b| {
            b.iter(|| serde_saphyr::from_str::<serde_json::Value>(black_box(text)))
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
