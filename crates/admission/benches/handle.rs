//! The cost of `Admission::handle` alone: no HTTP, no TLS, no cluster. The bodies are
//! AdmissionReviews shaped as the API server sends them (`benches/reviews/`); the webhook's
//! load benchmark sends the same ones.
//!
//! `cargo bench -p certgate-admission --bench handle`

use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use certgate_admission::review::{Admission, Endpoint, Handled};
use certgate_cel::PolicyCel;
use certgate_rbac::NoCluster;
use criterion::{Criterion, criterion_group, criterion_main};

const MUTATE_CR: &str = include_str!("reviews/certificate-request-create.json");
const VALIDATE_CR: &str = include_str!("reviews/certificate-request-create-stamped.json");
const VALIDATE_POLICY: &str = include_str!("reviews/policy-create.json");

/// Polls a future that never waits (no cluster I/O) to completion, without a runtime.
fn ready<T>(future: impl Future<Output = T>) -> T {
    let mut future = pin!(future);
    match future.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(value) => value,
        Poll::Pending => panic!("the handler waited for I/O in a benchmark without a cluster"),
    }
}

fn handle(c: &mut Criterion) {
    let admission = Admission::new(Arc::new(PolicyCel::default()), NoCluster, NoCluster);
    let cases = [
        ("mutate CertificateRequest CREATE", Endpoint::Mutate, MUTATE_CR),
        ("validate CertificateRequest CREATE", Endpoint::Validate, VALIDATE_CR),
        ("validate CertificateRequestPolicy CREATE", Endpoint::Validate, VALIDATE_POLICY),
    ];
    let mut group = c.benchmark_group("handle");
    for (name, endpoint, body) in cases {
        // Each body must be answered as intended, or the figure means nothing.
        let handled: Handled = ready(admission.handle(endpoint, body.as_bytes())).unwrap();
        let answer = String::from_utf8_lossy(&handled.body);
        assert!(handled.allowed, "{name}: {answer}");
        group.bench_function(name, |b| {
            b.iter(|| ready(admission.handle(endpoint, std::hint::black_box(body.as_bytes()))))
        });
    }
    group.finish();
}

criterion_group!(benches, handle);
criterion_main!(benches);
