//! CRL building benchmark (issue #22): building and signing a CRL of 100,000 revoked
//! certificates with certgate-crl, beside `openssl ca -gencrl` on the same set and CA key.
//!
//!   cargo bench -p certgate-crl --bench crl_build
//!
//! In process (criterion): `build_crl` to DER, to PEM, and rcgen's
//! `CertificateRevocationListParams::signed_by` on the same set (the writer not used, see
//! `src/build/mod.rs`). Process level, median of 5 runs, wall clock and peak memory from
//! `/usr/bin/time -v` ("Maximum resident set size"): `openssl ca -gencrl` in a CA directory the
//! bench prepares (index.txt with 100,000 `R` lines, openssl.cnf, the same CA key), and this
//! binary re-run as a child that reads the CA, makes the revoked set in memory and builds the
//! PEM; the child also reports its own VmHWM (/proc/self/status) before and after building, so
//! the building's own share of the peak is known. Both CRLs are parsed back and compared.

use std::fmt::Write as _;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use certgate_crl::build::{BuildLimits, CaSigner, CrlParams, Reason, RevokedCert, build_crl};
use certgate_crl::{Crl, Limits, Timestamp};
use criterion::{Criterion, criterion_group};
use rcgen::{
    BasicConstraints, CertificateParams, CertificateRevocationListParams, DnType, IsCa, Issuer,
    KeyIdMethod, KeyPair, KeyUsagePurpose, RevocationReason, RevokedCertParams, SerialNumber,
};

const ENTRIES: usize = 100_000;
const CHILD_ENV: &str = "CERTGATE_CRL_BUILD_BENCH_CHILD";
/// 2026-01-01T00:00:00Z: thisUpdate of the certgate CRL; entries were revoked before it.
const THIS_UPDATE: i64 = 1_767_225_600;
const DAY: i64 = 86_400;

fn bench_dir() -> PathBuf {
    let base =
        option_env!("CARGO_TARGET_TMPDIR").map(PathBuf::from).unwrap_or_else(std::env::temp_dir);
    base.join("certgate-crl-build-bench")
}

/// Random-looking positive 16-byte serials (xorshift, deterministic), as cert-manager issues;
/// revoked over the year before thisUpdate; one in four for key compromise.
fn revoked_set() -> Vec<RevokedCert> {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    (0..ENTRIES)
        .map(|i| {
            let mut serial = [0u8; 16];
            for half in serial.chunks_mut(8) {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                half.copy_from_slice(&state.to_be_bytes());
            }
            serial[0] = (serial[0] & 0x7f) | 0x01;
            let revoked_at = Timestamp::from_unix(THIS_UPDATE - 1 - (i as i64 * 311) % (365 * DAY));
            let entry = RevokedCert::new(serial.to_vec(), revoked_at);
            if i % 4 == 0 { entry.with_reason(Reason::KeyCompromise) } else { entry }
        })
        .collect()
}

fn params(revoked: &[RevokedCert]) -> CrlParams<'_> {
    CrlParams {
        this_update: Timestamp::from_unix(THIS_UPDATE),
        next_update: Timestamp::from_unix(THIS_UPDATE + 30 * DAY),
        crl_number: vec![1],
        revoked,
    }
}

fn limits() -> BuildLimits {
    BuildLimits { max_entries: ENTRIES }
}

/// A P-256 CA (rcgen), written as ca.pem and ca.key (PKCS#8) for openssl and the child.
fn write_ca(dir: &Path) -> (CertificateParams, KeyPair) {
    std::fs::create_dir_all(dir).unwrap();
    let key = KeyPair::generate().unwrap();
    let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
    params.distinguished_name.push(DnType::CommonName, "certgate bench CA");
    params.distinguished_name.push(DnType::OrganizationName, "certgate");
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    let ca = params.self_signed(&key).unwrap();
    std::fs::write(dir.join("ca.pem"), ca.pem()).unwrap();
    std::fs::write(dir.join("ca.key"), key.serialize_pem()).unwrap();
    (params, key)
}

fn signer_from(dir: &Path) -> CaSigner {
    let pem = |name: &str| {
        let text = std::fs::read(dir.join(name)).unwrap();
        certgate_pki::pem::decode(&text).unwrap().0.der
    };
    CaSigner::new(&pem("ca.pem"), &pem("ca.key")).unwrap()
}

fn utc_time(t: Timestamp) -> String {
    chrono::DateTime::from_timestamp(t.unix(), 0).unwrap().format("%y%m%d%H%M%SZ").to_string()
}

/// The openssl CA directory: index.txt (one `R` line per revoked certificate), crlnumber and
/// openssl.cnf naming the same CA certificate and key.
fn write_openssl_ca(dir: &Path, revoked: &[RevokedCert]) {
    let mut index = String::with_capacity(revoked.len() * 90);
    for (i, r) in revoked.iter().enumerate() {
        let serial: String = r.serial.iter().map(|b| format!("{b:02X}")).collect();
        let reason = if r.reason.is_some() { ",keyCompromise" } else { "" };
        let _ = writeln!(
            index,
            "R\t351231000000Z\t{}{reason}\t{serial}\tunknown\t/CN=client {i}",
            utc_time(r.revoked_at)
        );
    }
    std::fs::write(dir.join("index.txt"), index).unwrap();
    std::fs::write(dir.join("index.txt.attr"), "unique_subject = no\n").unwrap();
    std::fs::write(dir.join("crlnumber"), "01\n").unwrap();
    let cnf = format!(
        "[ca]\ndefault_ca = bench\n[bench]\ndir = {}\ndatabase = $dir/index.txt\n\
         crlnumber = $dir/crlnumber\ncertificate = $dir/ca.pem\nprivate_key = $dir/ca.key\n\
         default_md = sha256\ndefault_crl_days = 30\ncrl_extensions = crl_ext\n\
         unique_subject = no\n[crl_ext]\nauthorityKeyIdentifier = keyid:always\n",
        dir.display()
    );
    std::fs::write(dir.join("openssl.cnf"), cnf).unwrap();
}

fn vm_hwm_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

/// Child mode: read the CA, make the set, build (certgate or rcgen), write the PEM; prints
/// "VmHWM before building, after" in KiB.
fn child(which: &str, dir: &Path) {
    let revoked = revoked_set();
    let before;
    let pem = match which {
        "certgate" => {
            let signer = signer_from(dir);
            before = vm_hwm_kib();
            build_crl(&signer, &params(&revoked), &limits()).unwrap().to_pem()
        }
        "rcgen" => {
            let (crl_params, issuer_params, key) = rcgen_inputs(dir, &revoked);
            before = vm_hwm_kib();
            crl_params.signed_by(&Issuer::from_params(&issuer_params, &key)).unwrap().pem().unwrap()
        }
        other => panic!("unknown child mode {other}"),
    };
    std::fs::write(dir.join(format!("{which}.pem")), &pem).unwrap();
    println!("{before} {}", vm_hwm_kib());
}

/// rcgen's inputs for the same CRL (the CA's params are rebuilt; its name is representable).
fn rcgen_inputs(
    dir: &Path,
    revoked: &[RevokedCert],
) -> (CertificateRevocationListParams, CertificateParams, KeyPair) {
    let key = KeyPair::from_pem(&std::fs::read_to_string(dir.join("ca.key")).unwrap()).unwrap();
    let signer = signer_from(dir);
    let mut issuer = CertificateParams::new(Vec::<String>::new()).unwrap();
    issuer.distinguished_name.push(DnType::CommonName, "certgate bench CA");
    issuer.distinguished_name.push(DnType::OrganizationName, "certgate");
    issuer.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    let at = |t: Timestamp| time::OffsetDateTime::from_unix_timestamp(t.unix()).unwrap();
    let crl = CertificateRevocationListParams {
        this_update: at(Timestamp::from_unix(THIS_UPDATE)),
        next_update: at(Timestamp::from_unix(THIS_UPDATE + 30 * DAY)),
        crl_number: SerialNumber::from(1u64),
        issuing_distribution_point: None,
        revoked_certs: revoked
            .iter()
            .map(|r| RevokedCertParams {
                serial_number: SerialNumber::from_slice(&r.serial),
                revocation_time: at(r.revoked_at),
                reason_code: r.reason.map(|_| RevocationReason::KeyCompromise),
                invalidity_date: None,
            })
            .collect(),
        key_identifier_method: KeyIdMethod::PreSpecified(signer.authority_key_id().to_vec()),
    };
    (crl, issuer, key)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Runs `program` under `/usr/bin/time -v` `runs` times: (median wall, max RSS in KiB, the
/// last run's stdout).
fn measure(
    program: &str,
    args: &[&str],
    env: Option<(&str, &str)>,
    runs: usize,
) -> (Duration, u64, String) {
    let mut times = Vec::new();
    let mut rss = 0;
    let mut stdout = String::new();
    for _ in 0..runs {
        let mut cmd = Command::new("/usr/bin/time");
        cmd.arg("-v").arg(program).args(args);
        if let Some((k, v)) = env {
            cmd.env(k, v);
        }
        let start = Instant::now();
        let out = cmd.output().expect("run /usr/bin/time (GNU time) and openssl");
        times.push(start.elapsed());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{program} {args:?} failed: {stderr}");
        rss = stderr
            .lines()
            .find_map(|l| l.trim().strip_prefix("Maximum resident set size (kbytes): "))
            .and_then(|v| v.trim().parse().ok())
            .expect("max RSS in /usr/bin/time output");
        stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    }
    (median(times), rss, stdout)
}

fn parse_pem_file(path: &Path) -> Crl {
    let text = std::fs::read(path).unwrap();
    let der = certgate_pki::pem::decode(&text).unwrap().0.der;
    Crl::from_der(der, &Limits::default()).unwrap()
}

fn bench(c: &mut Criterion) {
    let dir = bench_dir();
    let (issuer_params, key) = write_ca(&dir);
    let signer = signer_from(&dir);
    let revoked = revoked_set();
    let built = build_crl(&signer, &params(&revoked), &limits()).unwrap();
    let (der_len, pem_len) = (built.der().len(), built.to_pem().len());

    let mut g = c.benchmark_group("crl_build_100k");
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    g.bench_function("certgate_der", |b| {
        b.iter(|| build_crl(&signer, black_box(&params(&revoked)), &limits()).unwrap())
    });
    g.bench_function("certgate_pem", |b| {
        b.iter(|| build_crl(&signer, black_box(&params(&revoked)), &limits()).unwrap().to_pem())
    });
    // Input already in serial order: the sort is skipped (a CA store iterating in order).
    let mut sorted = revoked.clone();
    sorted.sort_by(|a, b| a.serial.cmp(&b.serial));
    g.bench_function("certgate_der_sorted_input", |b| {
        b.iter(|| build_crl(&signer, black_box(&params(&sorted)), &limits()).unwrap())
    });
    // The floor: hashing and signing the bytes, which any implementation pays.
    g.bench_function("floor_sign_only", |b| {
        b.iter(|| rcgen::SigningKey::sign(&key, black_box(built.der())).unwrap())
    });
    let (rcgen_params, _, _) = rcgen_inputs(&dir, &revoked);
    let issuer = Issuer::from_params(&issuer_params, &key);
    g.bench_function("rcgen_signed_by_der", |b| {
        b.iter(|| black_box(&rcgen_params).signed_by(&issuer).unwrap())
    });
    g.finish();

    // Process level: openssl ca -gencrl against this binary as a child.
    write_openssl_ca(&dir, &revoked);
    let d = dir.to_str().unwrap();
    let cnf = dir.join("openssl.cnf");
    let out = dir.join("openssl.pem");
    let (ossl_t, ossl_rss, _) = measure(
        "openssl",
        &["ca", "-gencrl", "-config", cnf.to_str().unwrap(), "-out", out.to_str().unwrap()],
        None,
        5,
    );
    let exe = std::env::current_exe().unwrap();
    let exe = exe.to_str().unwrap();
    let mut rows = Vec::new();
    for which in ["certgate", "rcgen"] {
        let (t, rss, stdout) = measure(exe, &[], Some((CHILD_ENV, &format!("{which}:{d}"))), 5);
        let hwm: Vec<u64> = stdout.split_whitespace().filter_map(|v| v.parse().ok()).collect();
        rows.push((which, t, rss, hwm));
    }

    // Same serials and reasons in both CRLs.
    let ours = parse_pem_file(&dir.join("certgate.pem"));
    let theirs = parse_pem_file(&dir.join("openssl.pem"));
    assert_eq!((ours.info().entries, theirs.info().entries), (ENTRIES, ENTRIES));
    for r in revoked.iter().step_by(97) {
        let (a, b) = (ours.lookup(&r.serial).unwrap(), theirs.lookup(&r.serial).unwrap());
        assert_eq!((a.revocation_date, a.reason_code), (b.revocation_date, b.reason_code));
    }

    println!(
        "\n== CRL of {ENTRIES} revoked certificates, ECDSA P-256: {der_len} bytes DER, {pem_len} bytes PEM ({:.0} entries per MiB of PEM) ==",
        ENTRIES as f64 * 1_048_576.0 / pem_len as f64
    );
    println!("process level, median of 5 runs (wall) and max RSS (/usr/bin/time -v)");
    println!(
        "{:<58} {:>9} {:>9} {:>11} {:>10}",
        "run", "wall", "max RSS", "time ratio", "RSS ratio"
    );
    println!(
        "{:<58} {:>7.0}ms {:>6} MiB {:>11} {:>10}",
        "openssl ca -gencrl (index.txt -> crl.pem)",
        ossl_t.as_secs_f64() * 1e3,
        ossl_rss / 1024,
        "1.00",
        "1.00"
    );
    for (which, t, rss, hwm) in rows {
        let label = format!("{which} child (make set, build, PEM, write)");
        println!(
            "{:<58} {:>7.0}ms {:>6} MiB {:>11.2} {:>10.2}",
            label,
            t.as_secs_f64() * 1e3,
            rss / 1024,
            t.as_secs_f64() / ossl_t.as_secs_f64(),
            rss as f64 / ossl_rss as f64
        );
        if let [before, after] = hwm[..] {
            println!(
                "    {which}: VmHWM {} MiB with the CA and the set in memory, {} MiB after building: {:.1} MiB for building",
                before / 1024,
                after / 1024,
                (after.saturating_sub(before)) as f64 / 1024.0
            );
        }
    }
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
