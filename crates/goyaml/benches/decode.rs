//! `from_yaml` on executed-template-shaped documents, next to the same parser's raw event
//! loop (the floor any decoder on top of it can reach) and serde-saphyr's `from_str` into a
//! `serde_json::Value` (a peer decoder on the same parser).
//!
//! Run: `CARGO_PROFILE_BENCH_DEBUG=0 cargo bench -p certgate-goyaml --bench decode`

mod inputs;

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use granit_parser::Parser;

/// Every event of the text, with the options `from_yaml` parses with; nothing is built.
fn event_loop(text: &str) -> usize {
    let options = granit_parser::options! {
        emit_anchor_events: true,
        emit_unresolved_aliases: true,
        emit_comments: false,
        block_nesting_limit: certgate_goyaml::MAX_DEPTH,
        flow_nesting_limit: certgate_goyaml::MAX_DEPTH,
    };
    let parser: Parser<'_, _> = Parser::new_from_str_with_options(text, options);
    let mut count = 0;
    for event in parser {
        black_box(&event);
        count += 1;
    }
    count
}

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
        group.bench_function("event_loop", |b| b.iter(|| event_loop(black_box(text))));
        group.bench_function("serde_saphyr", |b| {
            b.iter(|| serde_saphyr::from_str::<serde_json::Value>(black_box(text)))
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
