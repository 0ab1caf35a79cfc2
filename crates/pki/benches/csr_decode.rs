//! Cost of decoding a CSR with signature verification (`decode_csr`) and without
//! (`parse_csr`), per key type, beside x509-parser doing the same (the peer).

use std::hint::black_box;

use certgate_pki::{decode_csr, parse_csr};
use criterion::{Criterion, criterion_group, criterion_main};
use rcgen::{CertificateParams, KeyPair};

fn fixture(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("reading {path}: {e}"))
}

/// PEM requests per key type; P-256 is generated because no fixture uses that curve with
/// SHA-256.
fn inputs() -> Vec<(&'static str, Vec<u8>)> {
    let p256 = KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).expect("P-256 key");
    let p256_request = CertificateParams::new(vec!["p256.example.com".to_string()])
        .expect("params")
        .serialize_request(&p256)
        .expect("P-256 request")
        .pem()
        .expect("PEM");
    vec![
        ("RSA-2048", fixture("rsa2048-sans.csr")),
        ("P-256", p256_request.into_bytes()),
        ("P-384", fixture("p384.csr")),
        ("Ed25519", fixture("ed25519.csr")),
    ]
}

fn bench(c: &mut Criterion) {
    let inputs = inputs();
    let mut verify = c.benchmark_group("decode_csr (verify)");
    for (name, input) in &inputs {
        decode_csr(input).expect("bench input decodes");
        verify.bench_function(*name, |b| b.iter(|| decode_csr(black_box(input))));
    }
    verify.finish();

    let mut parse = c.benchmark_group("parse_csr (no verify)");
    for (name, input) in &inputs {
        parse.bench_function(*name, |b| b.iter(|| parse_csr(black_box(input))));
    }
    parse.finish();

    // The peer: x509-parser's own PEM decoding, parsing and signature verification, the
    // stack most Rust tools use. It cannot verify every algorithm we do (P-521 among them),
    // so inputs it rejects are left out of its group.
    let mut peer = c.benchmark_group("x509-parser peer (verify)");
    for (name, input) in &inputs {
        if x509_parser_decode(input).is_some() {
            peer.bench_function(*name, |b| b.iter(|| x509_parser_decode(black_box(input))));
        }
    }
    peer.finish();
}

fn x509_parser_decode(input: &[u8]) -> Option<()> {
    use x509_parser::prelude::FromDer;
    let (_, pem) = x509_parser::pem::parse_x509_pem(input).ok()?;
    let (_, csr) =
        x509_parser::certification_request::X509CertificationRequest::from_der(&pem.contents)
            .ok()?;
    csr.verify_signature().ok()
}

criterion_group!(benches, bench);
criterion_main!(benches);
