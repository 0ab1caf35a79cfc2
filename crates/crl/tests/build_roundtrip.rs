//! CRL building (issue #22): every built CRL parses with this crate's parser, verifies against
//! its CA, lists exactly the revoked serials with their dates and reasons, gives the right
//! Envoy/BoringSSL verdicts and draws no warning from `check_bundle`. Plus bounds, errors and
//! the refresh decision.

mod common;

use std::collections::BTreeSet;
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use certgate_crl::build::{
    BuildError, BuildLimits, CaSigner, CrlParams, PolicyError, Reason, RefreshDecision,
    RefreshInput, RefreshPolicy, RevokedCert, SignerError, Trigger, build_crl, decide_refresh,
    next_crl_number,
};
use certgate_crl::{
    CheckOptions, Crl, CrlBundle, Limits, RevocationMode, SignatureAlgorithm, Timestamp, Verdict,
    check_bundle, evaluate, verify_crl,
};
use common::{Ca, DAY, NOW, at, chain, client, now, parse_cas};
use proptest::prelude::*;
use rcgen::{
    BasicConstraints, CertificateParams, DnType, IsCa, KeyPair, KeyUsagePurpose, SerialNumber,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Alg {
    P256,
    P384,
    Rsa,
    Ed25519,
}

const ALGS: [Alg; 4] = [Alg::P256, Alg::P384, Alg::Rsa, Alg::Ed25519];

/// A PKCS#8 RSA-2048 key from OpenSSL (ring cannot generate RSA keys); made once per run.
/// (`openssl genpkey -outform DER` writes PKCS#1 for RSA, so the PEM goes through `pkcs8`.)
fn rsa_pkcs8() -> &'static [u8] {
    static KEY: OnceLock<Vec<u8>> = OnceLock::new();
    KEY.get_or_init(|| {
        let pem =
            openssl(&["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"], b"");
        openssl(&["pkcs8", "-topk8", "-nocrypt", "-outform", "DER"], &pem)
    })
}

/// Runs `openssl ARGS` with `input` on standard input; its standard output.
fn openssl(args: &[&str], input: &[u8]) -> Vec<u8> {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = Command::new("openssl")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("`openssl` must be installed: {e}"));
    child.stdin.take().expect("stdin").write_all(input).expect("write to openssl");
    let out = child.wait_with_output().expect("openssl");
    assert!(out.status.success(), "openssl {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    out.stdout
}

fn key_for(alg: Alg) -> KeyPair {
    match alg {
        Alg::P256 => KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256),
        Alg::P384 => KeyPair::generate_for(&rcgen::PKCS_ECDSA_P384_SHA384),
        Alg::Ed25519 => KeyPair::generate_for(&rcgen::PKCS_ED25519),
        Alg::Rsa => KeyPair::try_from(rsa_pkcs8()),
    }
    .expect("CA key")
}

fn ca_params(cn: &str, usages: Vec<KeyUsagePurpose>) -> CertificateParams {
    let mut p = CertificateParams::new(Vec::<String>::new()).expect("params");
    p.distinguished_name.push(DnType::CommonName, cn);
    p.distinguished_name.push(DnType::OrganizationName, "certgate build tests");
    p.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    p.key_usages = usages;
    p.not_before = at(-365 * DAY);
    p.not_after = at(365 * DAY);
    p.serial_number = Some(SerialNumber::from(0x4242u64));
    p
}

fn make_ca(cn: &str, alg: Alg) -> Ca {
    let params = ca_params(
        cn,
        vec![
            KeyUsagePurpose::KeyCertSign,
            KeyUsagePurpose::CrlSign,
            KeyUsagePurpose::DigitalSignature,
        ],
    );
    let key = key_for(alg);
    let cert = params.self_signed(&key).expect("CA");
    Ca { pem: cert.pem(), der: cert.der().to_vec(), params, key }
}

fn signer(ca: &Ca) -> CaSigner {
    CaSigner::new(&ca.der, &ca.key.serialize_der()).expect("signer")
}

/// One Ed25519 CA for the property tests (deterministic signatures: equal input, equal DER).
fn shared() -> &'static (Ca, CaSigner) {
    static CA: OnceLock<(Ca, CaSigner)> = OnceLock::new();
    CA.get_or_init(|| {
        let ca = make_ca("proptest CA", Alg::Ed25519);
        let s = signer(&ca);
        (ca, s)
    })
}

fn ts(offset: i64) -> Timestamp {
    Timestamp::from_unix(NOW + offset)
}

fn params(revoked: &[RevokedCert]) -> CrlParams<'_> {
    CrlParams { this_update: ts(-DAY), next_update: ts(30 * DAY), crl_number: vec![7], revoked }
}

fn parse(der: &[u8]) -> Crl {
    Crl::from_der(der.to_vec(), &Limits::default()).expect("built CRL parses")
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Minimal DER INTEGER content of a magnitude (what certificates and lookups use).
fn der_integer(serial: &[u8]) -> Vec<u8> {
    let m: Vec<u8> = serial.iter().copied().skip_while(|b| *b == 0).collect();
    if m.first().is_none_or(|b| *b >= 0x80) { [&[0][..], &m].concat() } else { m }
}

fn no_warnings(ca: &Ca, pem: &str) {
    let crls = CrlBundle::parse(pem.as_bytes(), &Limits::default()).expect("bundle");
    let cas = parse_cas(&[&ca.pem]);
    let warnings = check_bundle(&crls, &cas, &CheckOptions::new(now()));
    assert!(warnings.is_empty(), "{warnings:#?}");
    let leaf_only = CheckOptions { mode: RevocationMode::LeafOnly, ..CheckOptions::new(now()) };
    assert!(check_bundle(&crls, &cas, &leaf_only).is_empty());
}

#[test]
fn every_algorithm_round_trips_with_verdicts_and_no_warnings() {
    for alg in ALGS {
        let ca = make_ca(&format!("{alg:?} CA"), alg);
        let s = signer(&ca);
        // Serials as certificates carry them: short, with a sign octet, 20 octets.
        let serials: [&[u8]; 4] = [
            &[0x01, 0x23],
            &[0x00, 0x80, 0x01],
            &[0x7f; 20],
            &[0x00, 0xc3, 0x5a, 0x11, 0x02, 0x99, 0x10, 0x77, 0x42, 0x01, 0x00, 0xff],
        ];
        let revoked_leaves: Vec<_> = serials
            .iter()
            .enumerate()
            .map(|(i, s)| client(&format!("revoked {i}"), s, &ca))
            .collect();
        let good = client("good", &[0x01, 0x24], &ca);
        let reasons = [
            Some(Reason::KeyCompromise),
            None,
            Some(Reason::CertificateHold),
            Some(Reason::AaCompromise),
        ];
        let revoked: Vec<RevokedCert> = serials
            .iter()
            .zip(reasons)
            .enumerate()
            .map(|(i, (s, r))| RevokedCert {
                serial: s.to_vec(),
                revoked_at: ts(-(i as i64) * 3600),
                reason: r,
            })
            .collect();
        let built = build_crl(&s, &params(&revoked), &BuildLimits::default()).expect("build");
        assert_eq!(built.entries(), 4);
        let pem = built.to_pem();
        assert!(
            pem.starts_with("-----BEGIN X509 CRL-----\n")
                && pem.ends_with("-----END X509 CRL-----\n")
        );
        certgate_crl::validate_crl_pem(pem.as_bytes()).expect("Contour accepts the PEM");

        let crl = parse(built.der());
        let info = crl.info();
        assert_eq!(info.version, 2);
        assert_eq!(crl.issuer_der(), s.subject_der(), "{alg:?}: issuer bytes are the CA subject's");
        assert_eq!((info.this_update, info.next_update), (ts(-DAY), Some(ts(30 * DAY))));
        assert_eq!(info.crl_number.as_ref().map(|n| n.to_string()).as_deref(), Some("7"));
        assert_eq!(info.authority_key_id.as_deref(), Some(hex(s.authority_key_id()).as_str()));
        assert!(s.authority_key_id_from_certificate());
        assert_eq!(hex(&ca.key_id()), hex(s.authority_key_id()));
        let exts: Vec<_> = info.extensions.iter().map(|e| (e.name, e.critical)).collect();
        assert_eq!(exts, [(Some("authorityKeyIdentifier"), false), (Some("cRLNumber"), false)]);
        assert!(!info.issuing_distribution_point && info.delta_base.is_none());
        assert!(!info.duplicate_serials);
        let want_alg = match alg {
            Alg::P256 => SignatureAlgorithm::EcdsaSha256,
            Alg::P384 => SignatureAlgorithm::EcdsaSha384,
            Alg::Rsa => SignatureAlgorithm::RsaPkcs1Sha256,
            Alg::Ed25519 => SignatureAlgorithm::Ed25519,
        };
        assert_eq!(info.signature_algorithm, want_alg);
        assert_eq!(s.signature_algorithm(), &want_alg);

        let cas = parse_cas(&[&ca.pem]);
        assert!(verify_crl(&crl, &cas).is_verified(), "{alg:?}");
        for (r, leaf) in revoked.iter().zip(&revoked_leaves) {
            let entry = crl.lookup(&leaf.serial).expect("listed");
            assert_eq!(entry.serial, hex(&der_integer(&r.serial)));
            assert_eq!(entry.revocation_date, Some(r.revoked_at));
            assert_eq!(entry.reason_code, r.reason.map(Reason::code));
        }
        assert!(!crl.is_revoked(&good.serial));

        let crls = CrlBundle::parse(pem.as_bytes(), &Limits::default()).expect("bundle");
        for mode in [RevocationMode::FullChain, RevocationMode::LeafOnly] {
            for leaf in &revoked_leaves {
                let e = evaluate(&chain(&[&leaf.der]), &cas, &crls, mode, now());
                assert_eq!(
                    (e.envoy.verdict, e.rustls.verdict),
                    (Verdict::Revoked, Verdict::Revoked),
                    "{alg:?} {mode:?}: {e:?}"
                );
            }
            let e = evaluate(&chain(&[&good.der]), &cas, &crls, mode, now());
            assert_eq!(
                (e.envoy.verdict, e.rustls.verdict),
                (Verdict::Accepted, Verdict::Accepted),
                "{alg:?} {mode:?}: {e:?}"
            );
        }
        no_warnings(&ca, &pem);
    }
}

#[test]
fn an_empty_crl_omits_the_list_and_still_satisfies_everyone() {
    let ca = make_ca("empty CA", Alg::P256);
    let built = build_crl(&signer(&ca), &params(&[]), &BuildLimits::default()).expect("build");
    let crl = parse(built.der());
    assert_eq!(crl.info().entries, 0);
    // version, algorithm, issuer, two times, then straight to the [0] extensions.
    let der = built.der();
    let next_update = b"\x17\x0d270214080000Z";
    let at = der.windows(next_update.len()).position(|w| w == next_update).expect("nextUpdate");
    assert_eq!(der[at + next_update.len()], 0xa0, "crlExtensions right after nextUpdate: no list");
    no_warnings(&ca, &built.to_pem());
    let good = client("good", &[0x05], &ca);
    let crls = CrlBundle::parse(built.to_pem().as_bytes(), &Limits::default()).unwrap();
    let e = evaluate(
        &chain(&[&good.der]),
        &parse_cas(&[&ca.pem]),
        &crls,
        RevocationMode::FullChain,
        now(),
    );
    assert_eq!((e.envoy.verdict, e.rustls.verdict), (Verdict::Accepted, Verdict::Accepted));
}

#[test]
fn the_output_depends_on_the_set_not_on_the_order() {
    let (_, s) = shared();
    let a = [
        RevokedCert::new(vec![0x03], ts(0)),
        RevokedCert::new(vec![0x01, 0x00], ts(0)).with_reason(Reason::Superseded),
        RevokedCert::new(vec![0x00, 0x02], ts(0)),
    ];
    let mut b = a.clone();
    b.reverse();
    let x = build_crl(s, &params(&a), &BuildLimits::default()).unwrap();
    let y = build_crl(s, &params(&b), &BuildLimits::default()).unwrap();
    assert_eq!(x.der(), y.der(), "Ed25519 is deterministic and entries are sorted");
    let crl = parse(x.der());
    assert!(crl.is_revoked(&[0x02]) && crl.is_revoked(&[0x03]) && crl.is_revoked(&[0x01, 0x00]));
}

#[test]
fn time_edges_round_trip_exactly() {
    let (_, s) = shared();
    let t = |s: &str| {
        Timestamp::from_unix(chrono::DateTime::parse_from_rfc3339(s).unwrap().timestamp())
    };
    // (thisUpdate, nextUpdate, revocationDate): both sides of 1950 and 2050, the extremes.
    let cases = [
        ("1949-12-31T23:59:59Z", "1950-01-01T00:00:00Z", "1949-06-01T00:00:00Z"),
        ("2049-12-31T23:59:59Z", "2050-01-01T00:00:00Z", "2049-12-31T23:59:59Z"),
        ("0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "0001-01-01T00:00:00Z"),
        ("2027-01-15T08:00:00Z", "2027-01-15T08:00:01Z", "9999-12-31T23:59:59Z"),
        ("1970-01-01T00:00:00Z", "2038-01-19T03:14:08Z", "1969-12-31T23:59:59Z"),
    ];
    for (this, next, revoked_at) in cases {
        let revoked = [RevokedCert::new(vec![0x01], t(revoked_at))];
        let p = CrlParams {
            this_update: t(this),
            next_update: t(next),
            crl_number: vec![1],
            revoked: &revoked,
        };
        let crl = parse(build_crl(s, &p, &BuildLimits::default()).expect(this).der());
        assert_eq!(
            (crl.info().this_update, crl.info().next_update),
            (t(this), Some(t(next))),
            "{this}"
        );
        assert_eq!(crl.lookup(&[0x01]).unwrap().revocation_date, Some(t(revoked_at)));
    }
    let bad = |this: Timestamp, next: Timestamp, revoked_at: Timestamp| {
        let revoked = [RevokedCert::new(vec![0x01], revoked_at)];
        let p = CrlParams {
            this_update: this,
            next_update: next,
            crl_number: vec![1],
            revoked: &revoked,
        };
        build_crl(s, &p, &BuildLimits::default()).unwrap_err()
    };
    assert_eq!(
        bad(ts(0), ts(0), ts(0)),
        BuildError::NextUpdateNotAfterThisUpdate { this_update: ts(0), next_update: ts(0) }
    );
    assert!(matches!(bad(ts(1), ts(0), ts(0)), BuildError::NextUpdateNotAfterThisUpdate { .. }));
    let past_9999 = t("9999-12-31T23:59:59Z").saturating_add(Duration::from_secs(1));
    assert!(
        matches!(bad(ts(0), past_9999, ts(0)), BuildError::TimeOutOfRange { ref field, .. } if field == "nextUpdate")
    );
    assert!(
        matches!(bad(Timestamp::from_unix(i64::MIN), ts(0), ts(0)), BuildError::TimeOutOfRange { ref field, .. } if field == "thisUpdate")
    );
    assert!(
        matches!(bad(ts(0), ts(1), Timestamp::from_unix(i64::MAX)), BuildError::TimeOutOfRange { ref field, .. } if field == "revocationDate of entry 0")
    );
}

#[test]
fn bounds_and_bad_serials_are_errors() {
    let (_, s) = shared();
    let r = |serial: &[u8]| RevokedCert::new(serial.to_vec(), ts(0));
    let build =
        |revoked: &[RevokedCert], limits: &BuildLimits| build_crl(s, &params(revoked), limits);
    let three = [r(&[1]), r(&[2]), r(&[3])];
    assert_eq!(
        build(&three, &BuildLimits { max_entries: 2 }).unwrap_err(),
        BuildError::TooManyEntries { entries: 3, limit: 2 }
    );
    assert_eq!(build(&three, &BuildLimits { max_entries: 3 }).unwrap().entries(), 3);
    assert_eq!(BuildLimits::default().max_entries, 100_000);
    let limits = BuildLimits::default();
    assert_eq!(
        build(&[r(&[1]), r(&[])], &limits).unwrap_err(),
        BuildError::ZeroSerial { entry: 1 }
    );
    assert_eq!(build(&[r(&[0, 0])], &limits).unwrap_err(), BuildError::ZeroSerial { entry: 0 });
    assert_eq!(
        build(&[r(&[1; 21])], &limits).unwrap_err(),
        BuildError::SerialTooLong { entry: 0, octets: 21, limit: 20 }
    );
    // 20 octets of magnitude with the top bit set: 21 octets of DER, as Go CAs may issue.
    let crl = parse(build(&[r(&[0xff; 20])], &limits).unwrap().der());
    assert!(crl.is_revoked(&[&[0u8][..], &[0xff; 20]].concat()));

    let with_number =
        |n: Vec<u8>| build_crl(s, &CrlParams { crl_number: n, ..params(&[]) }, &limits);
    assert_eq!(
        with_number(vec![1; 21]).unwrap_err(),
        BuildError::CrlNumberTooLong { octets: 21, limit: 20 }
    );
    for (n, shown) in [
        (vec![], "0"),
        (vec![0, 0], "0"),
        (u64::MAX.to_be_bytes().to_vec(), "18446744073709551615"),
    ] {
        let crl = parse(with_number(n).unwrap().der());
        assert_eq!(crl.info().crl_number.as_ref().unwrap().to_string(), shown);
    }
    let big = parse(with_number(vec![0xff; 20]).unwrap().der());
    assert_eq!(
        big.info().crl_number.as_ref().unwrap().as_bytes(),
        [&[0u8][..], &[0xff; 20]].concat()
    );
}

#[test]
fn the_signer_refuses_what_cannot_sign_crls() {
    let ca = make_ca("signer CA", Alg::P256);
    let other = make_ca("signer CA", Alg::P256);
    let key = ca.key.serialize_der();
    let mismatch = CaSigner::new(&ca.der, &other.key.serialize_der()).unwrap_err();
    assert!(
        matches!(mismatch, SignerError::KeyMismatch { ref subject } if subject.contains("CN=signer CA"))
    );
    // Same algorithm family, other curve.
    assert!(matches!(
        CaSigner::new(&ca.der, &key_for(Alg::P384).serialize_der()).unwrap_err(),
        SignerError::KeyMismatch { .. }
    ));
    let leaf = client("not a CA", &[0x09], &ca);
    let leaf_key = KeyPair::generate().unwrap();
    assert!(matches!(
        CaSigner::new(&leaf.der, &leaf_key.serialize_der()).unwrap_err(),
        SignerError::NotACa { .. }
    ));

    let no_crl_sign = ca_params("no cRLSign", vec![KeyUsagePurpose::KeyCertSign]);
    let k = KeyPair::generate().unwrap();
    let cert = no_crl_sign.self_signed(&k).unwrap();
    assert!(matches!(
        CaSigner::new(cert.der(), &k.serialize_der()).unwrap_err(),
        SignerError::NoCrlSign { .. }
    ));
    // No keyUsage at all: BoringSSL does not ask for cRLSign then.
    let no_ku = ca_params("no keyUsage", Vec::new());
    let cert = no_ku.self_signed(&k).unwrap();
    CaSigner::new(cert.der(), &k.serialize_der()).expect("a CA without keyUsage may sign CRLs");

    assert!(matches!(
        CaSigner::new(b"not DER", &key).unwrap_err(),
        SignerError::Certificate { .. }
    ));
    assert!(matches!(CaSigner::new(&ca.der, b"not a key").unwrap_err(), SignerError::Key { .. }));
    // cert-manager's formats: PKCS#1 RSA and SEC1 EC keys are not PKCS#8.
    let rsa_pkcs1 =
        openssl(&["rsa", "-traditional", "-inform", "DER", "-outform", "DER"], rsa_pkcs8());
    let ec_sec1 = openssl(&["ec", "-inform", "DER", "-outform", "DER"], &key);
    for traditional in [rsa_pkcs1, ec_sec1] {
        let e = CaSigner::new(&ca.der, &traditional).unwrap_err();
        assert!(matches!(e, SignerError::Key { .. }), "{e:?}");
        assert!(e.to_string().contains("convert PKCS#1/SEC1 keys to PKCS#8"));
    }
    let s = CaSigner::new(&ca.der, &key).unwrap();
    assert!(!format!("{s:?}").contains("private"), "Debug never shows the key: {s:?}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Random serial sets, serials of 1 to 20 octets with 0 to 3 extra leading zero octets:
    /// each built CRL parses, verifies, lists exactly the set and draws no warning; another
    /// order of the same set gives the same DER; a serial listed twice (in any spelling) is
    /// refused with both positions.
    #[test]
    fn random_serial_sets_round_trip(
        raw in prop::collection::vec((prop::collection::vec(any::<u8>(), 1..=20), 0usize..4, any::<u8>()), 0..80),
        probe in prop::collection::vec(any::<u8>(), 1..=20),
        dup_pick in any::<prop::sample::Index>(),
        dup_zeros in 1usize..4,
    ) {
        let (ca, s) = shared();
        let mut seen = BTreeSet::new();
        let mut revoked = Vec::new();
        for (serial, zeros, r) in raw {
            let m: Vec<u8> = serial.iter().copied().skip_while(|b| *b == 0).collect();
            if m.is_empty() || !seen.insert(m.clone()) {
                continue;
            }
            let spelled = [vec![0; zeros], m].concat();
            let reason = Reason::from_code(r % 12);
            revoked.push(RevokedCert { serial: spelled, revoked_at: ts(-i64::from(r) * 60), reason });
        }
        let built = build_crl(s, &params(&revoked), &BuildLimits::default()).unwrap();
        let crl = parse(built.der());
        prop_assert_eq!(crl.info().entries, revoked.len());
        prop_assert!(!crl.info().duplicate_serials);
        prop_assert!(verify_crl(&crl, &parse_cas(&[&ca.pem])).is_verified());
        for r in &revoked {
            let e = crl.lookup(&der_integer(&r.serial)).expect("listed");
            prop_assert_eq!(e.revocation_date, Some(r.revoked_at));
            prop_assert_eq!(e.reason_code, r.reason.map(Reason::code));
        }
        let probe_m: Vec<u8> = probe.iter().copied().skip_while(|b| *b == 0).collect();
        prop_assert_eq!(crl.is_revoked(&der_integer(&probe)), seen.contains(&probe_m));
        let mut reversed = revoked.clone();
        reversed.reverse();
        let rebuilt = build_crl(s, &params(&reversed), &BuildLimits::default()).unwrap();
        prop_assert_eq!(rebuilt.der(), built.der());
        let crls = CrlBundle::parse(built.to_pem().as_bytes(), &Limits::default()).unwrap();
        let warnings = check_bundle(&crls, &parse_cas(&[&ca.pem]), &CheckOptions::new(now()));
        prop_assert!(warnings.is_empty(), "{:?}", warnings);

        if !revoked.is_empty() {
            let i = dup_pick.index(revoked.len());
            let mut dup = revoked.clone();
            let again = RevokedCert { serial: [vec![0; dup_zeros], revoked[i].serial.clone()].concat(), ..revoked[i].clone() };
            dup.push(again);
            let want = BuildError::DuplicateSerial { serial: hex(&der_integer(&revoked[i].serial)), first: i, second: revoked.len() };
            prop_assert_eq!(build_crl(s, &params(&dup), &BuildLimits::default()).unwrap_err(), want);
        }
    }

    /// Hostile bytes as certificate or key: an error, never a panic.
    #[test]
    fn hostile_signer_inputs_are_errors(cert in prop::collection::vec(any::<u8>(), 0..300), key in prop::collection::vec(any::<u8>(), 0..300)) {
        let (ca, _) = shared();
        prop_assert!(CaSigner::new(&cert, &ca.key.serialize_der()).is_err());
        prop_assert!(CaSigner::new(&ca.der, &key).is_err());
    }

    /// Times anywhere in i64: either a CRL whose times read back exactly, or an error.
    #[test]
    fn any_time_builds_exactly_or_fails(this in any::<i64>(), len in 1i64..=(400 * 365 * DAY), revoked_at in any::<i64>()) {
        let (_, s) = shared();
        let revoked = [RevokedCert::new(vec![0x42], Timestamp::from_unix(revoked_at))];
        let p = CrlParams { this_update: Timestamp::from_unix(this), next_update: Timestamp::from_unix(this.saturating_add(len)), crl_number: vec![1], revoked: &revoked };
        if let Ok(built) = build_crl(s, &p, &BuildLimits::default()) {
            let crl = parse(built.der());
            prop_assert_eq!(crl.info().this_update, p.this_update);
            prop_assert_eq!(crl.info().next_update, Some(p.next_update));
            prop_assert_eq!(crl.lookup(&[0x42]).unwrap().revocation_date, Some(p.revoked[0].revoked_at));
        }
    }
}

// ---- The refresh decision ----

fn policy() -> RefreshPolicy {
    RefreshPolicy::default()
}

/// Publishes what the decision says at `t` and returns the parsed CRL.
fn publish(s: &CaSigner, d: &RefreshDecision, t: Timestamp, revoked: &[RevokedCert]) -> Crl {
    let p = d.params(&policy(), t, revoked);
    parse(build_crl(s, &p, &BuildLimits::default()).unwrap().der())
}

fn decide(
    s: &CaSigner,
    t: Timestamp,
    published: Option<&Crl>,
    revoked: &[RevokedCert],
) -> RefreshDecision {
    decide_refresh(&RefreshInput { now: t, policy: &policy(), signer: s, published, revoked })
}

#[test]
fn the_refresh_decision_follows_the_crl_through_its_life() {
    let ca = make_ca("refresh CA", Alg::P256);
    let s = signer(&ca);
    let revoked = vec![RevokedCert::new(vec![0x10], ts(-DAY)).with_reason(Reason::KeyCompromise)];
    let d0 = decide(&s, ts(0), None, &revoked);
    assert_eq!(d0.regenerate, Some(Trigger::NoPublishedCrl));
    assert_eq!(d0.next_crl_number, [1]);
    assert_eq!(d0.check_at, ts(20 * DAY), "30 days of validity, renewed with 10 left");
    let crl = publish(&s, &d0, ts(0), &revoked);
    assert_eq!(crl.info().this_update, ts(-300), "backdated 5 minutes");
    assert_eq!(crl.info().next_update, Some(ts(30 * DAY)));
    no_warnings(&ca, &certgate_pki::pem::encode("X509 CRL", crl.der()));

    // Nothing changed: sleep until the margin.
    for t in [ts(0), ts(DAY), ts(20 * DAY - 1)] {
        let d = decide(&s, t, Some(&crl), &revoked);
        assert_eq!((d.regenerate, d.check_at), (None, ts(20 * DAY)), "{t}");
        assert_eq!(d.next_crl_number, [2]);
    }
    // Waking exactly at check_at renews (no busy loop at the boundary).
    let d = decide(&s, ts(20 * DAY), Some(&crl), &revoked);
    assert_eq!(d.regenerate, Some(Trigger::RefreshDue { next_update: ts(30 * DAY) }));
    assert_eq!(d.check_at, ts(40 * DAY));
    let renewed = publish(&s, &d, ts(20 * DAY), &revoked);
    assert_eq!(renewed.info().crl_number.as_ref().unwrap().to_string(), "2");
    assert_eq!(decide(&s, ts(20 * DAY), Some(&renewed), &revoked).regenerate, None);

    let d = decide(&s, ts(30 * DAY), Some(&crl), &revoked);
    assert_eq!(d.regenerate, Some(Trigger::Expired { next_update: ts(30 * DAY) }));
    let d = decide(&s, ts(-301), Some(&crl), &revoked);
    assert_eq!(d.regenerate, Some(Trigger::NotYetValid { this_update: ts(-300) }));

    // Revocations, releases and changes.
    let mut more = revoked.clone();
    more.push(RevokedCert::new(vec![0x11], ts(0)));
    let changed = |r: &[RevokedCert]| decide(&s, ts(DAY), Some(&crl), r).regenerate;
    assert_eq!(changed(&more), Some(Trigger::RevokedChanged { added: 1, removed: 0, changed: 0 }));
    assert_eq!(changed(&[]), Some(Trigger::RevokedChanged { added: 0, removed: 1, changed: 0 }));
    let other_reason = [RevokedCert { reason: Some(Reason::Superseded), ..revoked[0].clone() }];
    assert_eq!(
        changed(&other_reason),
        Some(Trigger::RevokedChanged { added: 0, removed: 0, changed: 1 })
    );
    let other_date = [RevokedCert { revoked_at: ts(0), ..revoked[0].clone() }];
    assert_eq!(
        changed(&other_date),
        Some(Trigger::RevokedChanged { added: 0, removed: 0, changed: 1 })
    );
    let spelled = [RevokedCert { serial: vec![0, 0, 0x10], ..revoked[0].clone() }];
    assert_eq!(changed(&spelled), None, "the same serial in another spelling is no change");

    // The CA was re-keyed under the same name, or another CA published.
    let rekeyed = make_ca("refresh CA", Alg::P256);
    assert_eq!(
        decide(&signer(&rekeyed), ts(DAY), Some(&crl), &revoked).regenerate,
        Some(Trigger::OtherIssuer)
    );
    let other = make_ca("other CA", Alg::Ed25519);
    assert_eq!(
        decide(&signer(&other), ts(DAY), Some(&crl), &revoked).regenerate,
        Some(Trigger::OtherIssuer)
    );

    // The validity was shortened from 30 to 7 days.
    let short = RefreshPolicy::new(Duration::from_secs(7 * DAY as u64)).unwrap();
    let d = decide_refresh(&RefreshInput {
        now: ts(DAY),
        policy: &short,
        signer: &s,
        published: Some(&crl),
        revoked: &revoked,
    });
    assert_eq!(d.regenerate, Some(Trigger::ValidityShortened { next_update: ts(30 * DAY) }));
    assert_eq!(d.check_at, ts(DAY).saturating_add(Duration::from_secs(7 * DAY as u64 * 2 / 3)));
}

#[test]
fn policies_and_crl_numbers() {
    let h = |n: u64| Duration::from_secs(n * 3600);
    assert_eq!(RefreshPolicy::new(h(1)).unwrap().margin(), Duration::from_secs(1200));
    assert_eq!(
        RefreshPolicy::new(Duration::from_secs(3599)).unwrap_err(),
        PolicyError::ValidityTooShort { secs: 3599 }
    );
    assert!(matches!(
        RefreshPolicy::new(h(24 * 3654)).unwrap_err(),
        PolicyError::ValidityTooLong { .. }
    ));
    let p = RefreshPolicy::new(h(24)).unwrap();
    assert!(matches!(p.clone().with_margin(h(24)).unwrap_err(), PolicyError::Margin { .. }));
    assert!(matches!(
        p.clone().with_margin(Duration::ZERO).unwrap_err(),
        PolicyError::Margin { .. }
    ));
    assert_eq!(p.clone().with_margin(h(6)).unwrap().margin(), h(6));
    assert!(matches!(p.clone().with_backdate(h(25)).unwrap_err(), PolicyError::Backdate { .. }));
    let p = p.with_backdate(Duration::ZERO).unwrap();
    assert_eq!(p.window(ts(0)), (ts(0), ts(DAY)));
    assert_eq!(
        RefreshPolicy::default(),
        RefreshPolicy::new(RefreshPolicy::DEFAULT_VALIDITY).unwrap()
    );

    let (_, s) = shared();
    let number_after = |n: Vec<u8>| {
        let crl = parse(
            build_crl(s, &CrlParams { crl_number: n, ..params(&[]) }, &BuildLimits::default())
                .unwrap()
                .der(),
        );
        next_crl_number(crl.info().crl_number.as_ref())
    };
    assert_eq!(next_crl_number(None), [1]);
    assert_eq!(number_after(vec![]), [1]);
    assert_eq!(number_after(vec![0x7f]), [0x80]);
    assert_eq!(number_after(vec![0xff]), [0x01, 0x00]);
    assert_eq!(number_after(vec![0x01, 0xff, 0xff]), [0x02, 0x00, 0x00]);
    assert_eq!(number_after(vec![0xff; 19]), [&[1u8][..], &[0; 19]].concat());
    assert_eq!(number_after(vec![0xff; 20]), [1], "past 20 octets numbering starts again");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Whatever the time, a decision not to regenerate asks to be woken strictly later, and
    /// publishing what a decision asks for is followed by a decision not to regenerate (no
    /// loop of new CRLs without a change).
    #[test]
    fn decisions_never_spin(published_at in -40 * DAY..40 * DAY, asked_at in -40 * DAY..40 * DAY) {
        let (_, s) = shared();
        let revoked = [RevokedCert::new(vec![0x01], ts(-50 * DAY))];
        let first = decide(s, ts(published_at), None, &revoked);
        let crl = publish(s, &first, ts(published_at), &revoked);
        prop_assert_eq!(decide(s, ts(published_at), Some(&crl), &revoked).regenerate, None);
        let d = decide(s, ts(asked_at), Some(&crl), &revoked);
        prop_assert!(d.check_at > ts(asked_at), "{:?}", d);
        if d.regenerate.is_some() {
            let again = publish(s, &d, ts(asked_at), &revoked);
            prop_assert_eq!(decide(s, ts(asked_at), Some(&again), &revoked).regenerate, None);
        }
    }
}
