//! CRL index benchmark (issue #9): a 1,000,000-entry CRL signed by a test CA.
//!
//!   cargo bench -p certgate-crl --bench crl_index
//!
//! Measures parse + verify + index and serial lookups with criterion, then compares with
//! `openssl crl -noout -verify -CAfile ca.pem -in crl.pem` (wall time, median of 5 runs) and the
//! peak memory of both (`/usr/bin/time -v`, "Maximum resident set size", for openssl and for
//! this binary re-run as a child doing only the parse). The CRL is generated once and cached
//! under the target directory.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use certgate_crl::{CaBundle, CrlBundle, Limits, verify_crl};
use certgate_pki::der::tlv;
use certgate_pki::pem::encode as pem;
use criterion::{Criterion, criterion_group};
use rcgen::{
    BasicConstraints, CertificateParams, DnType, IsCa, KeyPair, KeyUsagePurpose, SigningKey,
};

const ENTRIES: usize = 1_000_000;
const CHILD_ENV: &str = "CERTGATE_CRL_BENCH_CHILD";

fn cache_dir() -> PathBuf {
    let base =
        option_env!("CARGO_TARGET_TMPDIR").map(PathBuf::from).unwrap_or_else(std::env::temp_dir);
    base.join("certgate-crl-bench")
}

/// Random-looking 16-byte positive serials (xorshift, deterministic), as real CAs issue.
fn serial(state: &mut u64) -> [u8; 16] {
    let mut out = [0u8; 16];
    for half in out.chunks_mut(8) {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        half.copy_from_slice(&state.to_be_bytes());
    }
    out[0] = (out[0] & 0x7f) | 0x01;
    out
}

/// Writes ca.pem and crl.pem (rcgen is too slow for a million entries, so the TBSCertList is
/// built here and signed with the CA's rcgen key).
fn generate(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let key = KeyPair::generate().unwrap();
    let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
    params.distinguished_name.push(DnType::CommonName, "bench-ca");
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    let ca = params.self_signed(&key).unwrap();
    let x509 = x509_parser::parse_x509_certificate(ca.der()).unwrap().1;
    let issuer = x509.subject().as_raw().to_vec();

    let ecdsa_sha256 = tlv(0x30, &tlv(0x06, &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02]));
    let this_update = tlv(0x17, b"260101000000Z");
    let next_update = tlv(0x18, b"20991231000000Z");
    let mut revoked = Vec::with_capacity(ENTRIES * 40);
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..ENTRIES {
        let mut e = tlv(0x02, &serial(&mut state));
        e.extend(tlv(0x17, b"251201000000Z"));
        revoked.extend(tlv(0x30, &e));
    }
    let crl_number =
        tlv(0x30, &[tlv(0x06, &[0x55, 0x1d, 0x14]), tlv(0x04, &tlv(0x02, &[0x01]))].concat());
    let mut tbs = tlv(0x02, &[0x01]);
    tbs.extend(&ecdsa_sha256);
    tbs.extend(&issuer);
    tbs.extend(this_update);
    tbs.extend(next_update);
    tbs.extend(tlv(0x30, &revoked));
    tbs.extend(tlv(0xa0, &tlv(0x30, &crl_number)));
    let tbs = tlv(0x30, &tbs);
    let signature = key.sign(&tbs).unwrap();
    let mut bits = vec![0u8];
    bits.extend(signature);
    let crl = tlv(0x30, &[tbs, ecdsa_sha256, tlv(0x03, &bits)].concat());
    std::fs::write(dir.join("ca.pem"), ca.pem()).unwrap();
    std::fs::write(dir.join("crl.pem"), pem("X509 CRL", &crl)).unwrap();
}

fn ensure_files() -> PathBuf {
    let dir = cache_dir();
    if !dir.join("crl.pem").exists() || !dir.join("ca.pem").exists() {
        eprintln!("generating a {ENTRIES}-entry CRL in {} (once)", dir.display());
        generate(&dir);
    }
    dir
}

/// Child mode: parse with one implementation and exit; the parent measures its peak RSS.
fn child(which: &str, dir: &Path) {
    let crl_pem = std::fs::read(dir.join("crl.pem")).unwrap();
    let ca_pem = std::fs::read(dir.join("ca.pem")).unwrap();
    match which {
        "certgate-crl" => {
            let cas = CaBundle::parse(&ca_pem, &Limits::default()).unwrap();
            let crls = CrlBundle::parse(&crl_pem, &Limits::default()).unwrap();
            let crl = crls.items[0].crl.as_ref().unwrap();
            assert!(verify_crl(crl, &cas).is_verified());
            black_box(crl.index().len());
        }
        "x509-parser" => {
            let der = certgate_crl::parse_pem_bundle(&crl_pem, &Limits::default())
                .unwrap()
                .blocks
                .remove(0)
                .der;
            let (_, crl) = x509_parser::parse_x509_crl(&der).unwrap();
            black_box(crl.iter_revoked_certificates().count());
        }
        "webpki-owned" => {
            let der = certgate_crl::parse_pem_bundle(&crl_pem, &Limits::default())
                .unwrap()
                .blocks
                .remove(0)
                .der;
            let crl = webpki::OwnedCertRevocationList::from_der(&der).unwrap();
            black_box(&crl);
        }
        other => panic!("unknown child mode {other}"),
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Runs `cmd` under `/usr/bin/time -v` `runs` times: (median wall time, max RSS in KiB).
fn measure(
    program: &str,
    args: &[&str],
    env: Option<(&str, &str)>,
    runs: usize,
) -> (Duration, u64) {
    let mut times = Vec::new();
    let mut rss = 0;
    for _ in 0..runs {
        let mut cmd = Command::new("/usr/bin/time");
        cmd.arg("-v").arg(program).args(args);
        if let Some((k, v)) = env {
            cmd.env(k, v);
        }
        let start = Instant::now();
        let out = cmd.output().expect("run /usr/bin/time");
        times.push(start.elapsed());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{program} failed: {stderr}");
        rss = stderr
            .lines()
            .find_map(|l| l.trim().strip_prefix("Maximum resident set size (kbytes): "))
            .and_then(|v| v.trim().parse().ok())
            .expect("max RSS in /usr/bin/time output");
    }
    (median(times), rss)
}

fn bench(c: &mut Criterion) {
    let dir = ensure_files();
    let crl_pem = std::fs::read(dir.join("crl.pem")).unwrap();
    let ca_pem = std::fs::read(dir.join("ca.pem")).unwrap();
    let cas = CaBundle::parse(&ca_pem, &Limits::default()).unwrap();

    let mut g = c.benchmark_group("crl_1m");
    g.sample_size(10).measurement_time(Duration::from_secs(8));
    g.bench_function("parse_verify_index", |b| {
        b.iter(|| {
            let crls = CrlBundle::parse(black_box(&crl_pem), &Limits::default()).unwrap();
            let crl = crls.items[0].crl.as_ref().unwrap();
            assert!(verify_crl(crl, &cas).is_verified());
            crls
        })
    });
    g.finish();

    // PEM framing alone (issue #17 moved the decoder to certgate-pki): the full decode of the
    // 1M-entry bundle, Contour's check-only walk over it, and a one-certificate CA bundle.
    let mut g = c.benchmark_group("crl_1m_pem");
    g.sample_size(10).measurement_time(Duration::from_secs(8));
    g.bench_function("parse_pem_bundle", |b| {
        b.iter(|| certgate_crl::parse_pem_bundle(black_box(&crl_pem), &Limits::default()).unwrap())
    });
    g.bench_function("validate_crl_pem", |b| {
        b.iter(|| certgate_crl::validate_crl_pem(black_box(&crl_pem)).unwrap())
    });
    g.finish();
    c.bench_function("ca_pem/parse_pem_bundle", |b| {
        b.iter(|| certgate_crl::parse_pem_bundle(black_box(&ca_pem), &Limits::default()).unwrap())
    });

    let crls = CrlBundle::parse(&crl_pem, &Limits::default()).unwrap();
    let crl = crls.items[0].crl.as_ref().unwrap();
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let hits: Vec<[u8; 16]> = (0..1000).map(|_| serial(&mut state)).collect();
    let misses: Vec<[u8; 16]> =
        (0..1000).map(|i| [0x7f, 0xee, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, i as u8]).collect();
    let mut g = c.benchmark_group("crl_1m_lookup");
    let mut i = 0usize;
    g.bench_function("hit", |b| {
        b.iter(|| {
            i = (i + 1) % hits.len();
            assert!(crl.is_revoked(black_box(&hits[i])));
        })
    });
    g.bench_function("miss", |b| {
        b.iter(|| {
            i = (i + 1) % misses.len();
            assert!(!crl.is_revoked(black_box(&misses[i])));
        })
    });
    g.finish();

    // Process-level comparison with openssl and the two crates the ADR considered.
    let exe = std::env::current_exe().unwrap();
    let exe = exe.to_str().unwrap();
    let d = dir.to_str().unwrap();
    let ca = dir.join("ca.pem");
    let crl_path = dir.join("crl.pem");
    let (ossl_t, ossl_rss) = measure(
        "openssl",
        &[
            "crl",
            "-noout",
            "-verify",
            "-CAfile",
            ca.to_str().unwrap(),
            "-in",
            crl_path.to_str().unwrap(),
        ],
        None,
        5,
    );
    println!(
        "\n== CRL with {ENTRIES} entries ({} bytes PEM), process level, median of 5 ==",
        crl_pem.len()
    );
    println!(
        "{:<40} {:>10} {:>12} {:>12} {:>12}",
        "run", "wall", "max RSS", "time ratio", "RSS ratio"
    );
    println!(
        "{:<40} {:>8.0}ms {:>9} MiB {:>12} {:>12}",
        "openssl crl -noout -verify",
        ossl_t.as_secs_f64() * 1e3,
        ossl_rss / 1024,
        "1.00",
        "1.00"
    );
    for which in ["certgate-crl", "x509-parser", "webpki-owned"] {
        let (t, rss) = measure(exe, &[], Some((CHILD_ENV, &format!("{which}:{d}"))), 5);
        println!(
            "{:<40} {:>8.0}ms {:>9} MiB {:>12.2} {:>12.2}",
            format!(
                "{which} (child: read + parse{})",
                if which == "certgate-crl" { " + verify + index" } else { "" }
            ),
            t.as_secs_f64() * 1e3,
            rss / 1024,
            t.as_secs_f64() / ossl_t.as_secs_f64(),
            rss as f64 / ossl_rss as f64
        );
    }
    println!(
        "index heap: {} MiB for {} entries",
        crl.index().heap_bytes() >> 20,
        crl.index().len()
    );
}

criterion_group!(benches, bench);

fn main() {
    if let Ok(spec) = std::env::var(CHILD_ENV) {
        let (which, dir) = spec.split_once(':').expect("mode:dir");
        child(which, Path::new(dir));
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
