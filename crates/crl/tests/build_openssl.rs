//! CRL building against OpenSSL, the oracle: CAs made by OpenSSL (certificates certgate did
//! not create), CRLs built by certgate-crl, and `openssl crl -CAfile … -text` must say
//! `verify OK` and list the same serials and reasons; `openssl verify -crl_check` must refuse
//! the revoked clients. Also shows why the DER is not written by rcgen (its issuer name).
//! `openssl` must be installed: the tests fail, loudly, without it.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime};

use certgate_crl::build::{BuildLimits, CaSigner, CrlParams, Reason, RevokedCert, build_crl};
use certgate_crl::{
    CaBundle, Cert, CheckOptions, Crl, CrlBundle, Limits, RevocationMode, Timestamp, Verdict,
    check_bundle, evaluate,
};
use rcgen::{
    CertificateRevocationListParams, Issuer, KeyIdMethod, KeyPair, RevocationReason,
    RevokedCertParams, SerialNumber,
};
use rustls_pki_types::CertificateDer;
use tempfile::TempDir;

/// Runs openssl in `dir`; (success, stdout + stderr). Panics when openssl cannot be run.
fn openssl(dir: &Path, args: &[&str], stdin: &[u8]) -> (bool, String) {
    let mut child = Command::new("openssl")
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("`openssl` must be installed for the CRL oracle tests: {e}"));
    child.stdin.take().expect("stdin").write_all(stdin).expect("stdin");
    let out = child.wait_with_output().expect("openssl");
    let text =
        format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.success(), text)
}

fn openssl_ok(dir: &Path, args: &[&str]) -> String {
    let (ok, text) = openssl(dir, args, b"");
    assert!(ok, "openssl {args:?} failed:\n{text}");
    text
}

fn pem_der(pem: &[u8]) -> Vec<u8> {
    certgate_pki::pem::decode(pem).expect("one PEM block").0.der
}

/// A CA made by OpenSSL, its PKCS#8 key, in its own directory.
struct OpensslCa {
    dir: TempDir,
    pem: String,
    der: Vec<u8>,
    key_pkcs8: Vec<u8>,
}

impl OpensslCa {
    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn signer(&self) -> CaSigner {
        CaSigner::new(&self.der, &self.key_pkcs8).expect("signer for an OpenSSL CA")
    }

    /// An OpenSSL-issued client certificate with `serial` (hex); its PEM.
    fn leaf(&self, serial_hex: &str) -> String {
        let d = self.dir.path();
        let name = format!("leaf-{serial_hex}");
        let key = format!("{name}.key");
        let csr = format!("{name}.csr");
        let pem = format!("{name}.pem");
        // A v3 client certificate (without -extfile OpenSSL writes v1, which webpki refuses).
        let ext = "basicConstraints = CA:false\nkeyUsage = digitalSignature\nextendedKeyUsage = clientAuth\n";
        std::fs::write(d.join("client.ext"), ext).expect("client.ext");
        openssl_ok(
            d,
            &[
                "req",
                "-new",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:P-256",
                "-nodes",
                "-keyout",
                &key,
                "-subj",
                "/CN=client",
                "-out",
                &csr,
            ],
        );
        openssl_ok(
            d,
            &[
                "x509",
                "-req",
                "-in",
                &csr,
                "-CA",
                "ca.pem",
                "-CAkey",
                "ca.key",
                "-set_serial",
                &format!("0x{serial_hex}"),
                "-days",
                "30",
                "-extfile",
                "client.ext",
                "-out",
                &pem,
            ],
        );
        std::fs::read_to_string(d.join(pem)).expect("leaf")
    }
}

/// `newkey`: `req -newkey` arguments; `subject`: `-subj`; `ski`: whether the CA gets a
/// subjectKeyIdentifier.
fn openssl_ca(newkey: &[&str], subject: &str, ski: bool) -> OpensslCa {
    let dir = tempfile::tempdir().expect("tempdir");
    let cnf = format!(
        "[req]\ndistinguished_name = dn\nx509_extensions = v3_ca\n[dn]\n[v3_ca]\n\
         basicConstraints = critical,CA:true\nkeyUsage = critical,keyCertSign,cRLSign\n\
         subjectKeyIdentifier = {}\n",
        if ski { "hash" } else { "none" }
    );
    std::fs::write(dir.path().join("ca.cnf"), cnf).expect("ca.cnf");
    let mut args = vec!["req", "-x509", "-config", "ca.cnf", "-nodes", "-days", "3650"];
    args.extend(newkey);
    args.extend(["-keyout", "ca.key", "-out", "ca.pem", "-subj", subject, "-multivalue-rdn"]);
    openssl_ok(dir.path(), &args);
    let pem = std::fs::read_to_string(dir.path().join("ca.pem")).expect("ca.pem");
    let key_pem = std::fs::read(dir.path().join("ca.key")).expect("ca.key");
    assert!(key_pem.starts_with(b"-----BEGIN PRIVATE KEY-----"), "OpenSSL 3 writes PKCS#8");
    OpensslCa { der: pem_der(pem.as_bytes()), key_pkcs8: pem_der(&key_pem), pem, dir }
}

const KEYS: [(&str, &[&str]); 4] = [
    ("P-256", &["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256"]),
    ("P-384", &["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-384"]),
    ("RSA-2048", &["-newkey", "rsa:2048"]),
    ("Ed25519", &["-newkey", "ed25519"]),
];

fn now() -> Timestamp {
    Timestamp::from_system_time(SystemTime::now())
}

/// OpenSSL's names of the reason codes (`crl_reasons` in crypto/x509/v3_enum.c).
fn openssl_reason(r: Reason) -> &'static str {
    match r {
        Reason::KeyCompromise => "Key Compromise",
        Reason::CaCompromise => "CA Compromise",
        Reason::AffiliationChanged => "Affiliation Changed",
        Reason::Superseded => "Superseded",
        Reason::CessationOfOperation => "Cessation Of Operation",
        Reason::CertificateHold => "Certificate Hold",
        Reason::PrivilegeWithdrawn => "Privilege Withdrawn",
        Reason::AaCompromise => "AA Compromise",
    }
}

/// (serial as OpenSSL prints it: uppercase hex of the magnitude, reason name).
type Listed = BTreeSet<(String, Option<String>)>;

/// What `openssl crl -text` lists.
fn openssl_listing(text: &str) -> Listed {
    let mut out = Listed::new();
    let mut current: Option<(String, Option<String>)> = None;
    let mut lines = text.lines().map(str::trim);
    while let Some(line) = lines.next() {
        if let Some(serial) = line.strip_prefix("Serial Number: ") {
            out.extend(current.take());
            current = Some((serial.to_string(), None));
        } else if line.starts_with("X509v3 CRL Reason Code:") {
            let reason = lines.next().map(str::to_string);
            if let Some((_, r)) = current.as_mut() {
                *r = reason;
            }
        } else if line.starts_with("Signature Algorithm:") && current.is_some() {
            break;
        }
    }
    out.extend(current);
    out
}

fn expected_listing(revoked: &[RevokedCert]) -> Listed {
    revoked
        .iter()
        .map(|r| {
            let m: Vec<u8> = r.serial.iter().copied().skip_while(|b| *b == 0).collect();
            let hex: String = m.iter().map(|b| format!("{b:02X}")).collect();
            (hex, r.reason.map(|r| openssl_reason(r).to_string()))
        })
        .collect()
}

/// A revoked set with every reason, no reason, sign octets, leading zeros and 20 octets.
fn revoked_set(t: Timestamp) -> Vec<RevokedCert> {
    let mut out = Vec::new();
    let mut state = 0x2545_f491_4f6c_dd1du64;
    for i in 0..40u8 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let len = 1 + usize::from(i) % 20;
        let mut serial: Vec<u8> = state.to_be_bytes().iter().cycle().take(len).copied().collect();
        if let Some(first) = serial.first_mut() {
            *first |= 0x01;
        }
        if i % 3 == 0 {
            serial.insert(0, 0);
        }
        let reason = Reason::ALL.get(usize::from(i) % 9).copied();
        out.push(RevokedCert {
            serial,
            revoked_at: Timestamp::from_unix(t.unix() - i64::from(i) * 3600),
            reason,
        });
    }
    out.push(RevokedCert::new(vec![0xff; 20], t).with_reason(Reason::KeyCompromise));
    out.push(RevokedCert::new(vec![0x00, 0x00, 0x80], t));
    out
}

fn write_crl(ca: &OpensslCa, signer: &CaSigner, revoked: &[RevokedCert]) -> (String, Crl) {
    let t = now();
    let params = CrlParams {
        this_update: Timestamp::from_unix(t.unix() - 3600),
        next_update: t.saturating_add(Duration::from_secs(30 * 86_400)),
        crl_number: vec![0x01, 0x02],
        revoked,
    };
    let built = build_crl(signer, &params, &BuildLimits::default()).expect("build");
    std::fs::write(ca.path("crl.pem"), built.to_pem()).expect("crl.pem");
    let crl = Crl::from_der(built.der().to_vec(), &Limits::default()).expect("parse");
    (built.to_pem(), crl)
}

fn colon_hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02X}")).collect::<Vec<_>>().join(":")
}

fn no_warnings(ca_pem: &str, crl_pem: &str) {
    let cas = CaBundle::parse(ca_pem.as_bytes(), &Limits::default()).unwrap();
    let crls = CrlBundle::parse(crl_pem.as_bytes(), &Limits::default()).unwrap();
    let w = check_bundle(&crls, &cas, &CheckOptions::new(now()));
    assert!(w.is_empty(), "{w:#?}");
}

#[test]
fn openssl_verifies_and_lists_the_same_serials_and_reasons() {
    for (name, newkey) in KEYS {
        let ca = openssl_ca(newkey, &format!("/C=DE/O=certgate oracle/CN={name} CA"), true);
        let signer = ca.signer();
        let revoked = revoked_set(now());
        let (pem, _) = write_crl(&ca, &signer, &revoked);
        let text = openssl_ok(
            ca.dir.path(),
            &["crl", "-in", "crl.pem", "-CAfile", "ca.pem", "-noout", "-text"],
        );
        assert!(text.contains("verify OK"), "{name}: openssl does not verify:\n{text}");
        assert_eq!(openssl_listing(&text), expected_listing(&revoked), "{name}:\n{text}");
        assert_eq!(openssl_listing(&text).len(), revoked.len());
        assert!(text.contains("Version 2 (0x1)"), "{text}");
        let akid = colon_hex(signer.authority_key_id());
        assert!(text.contains(&akid), "{name}: AKID {akid} missing:\n{text}");
        let number = text.lines().skip_while(|l| !l.contains("X509v3 CRL Number:")).nth(1);
        assert_eq!(number.map(str::trim), Some("258"), "{text}");
        assert!(!text.contains("Issuing Distribution Point"), "{text}");
        no_warnings(&ca.pem, &pem);
    }
}

#[test]
fn an_empty_crl_is_what_openssl_calls_no_revoked_certificates() {
    let ca = openssl_ca(KEYS[0].1, "/CN=empty", true);
    let (pem, _) = write_crl(&ca, &ca.signer(), &[]);
    let text = openssl_ok(
        ca.dir.path(),
        &["crl", "-in", "crl.pem", "-CAfile", "ca.pem", "-noout", "-text"],
    );
    assert!(text.contains("verify OK") && text.contains("No Revoked Certificates."), "{text}");
    no_warnings(&ca.pem, &pem);
}

/// `openssl verify -crl_check` of a client of `ca` with serial `serial_hex` against crl.pem.
fn openssl_verify(ca: &OpensslCa, leaf_pem: &str) -> String {
    std::fs::write(ca.path("client.pem"), leaf_pem).unwrap();
    let (_, text) = openssl(
        ca.dir.path(),
        &["verify", "-crl_check", "-CAfile", "ca.pem", "-CRLfile", "crl.pem", "client.pem"],
        b"",
    );
    text
}

fn verdict(ca: &OpensslCa, crl_pem: &str, leaf_pem: &str) -> Verdict {
    let cas = CaBundle::parse(ca.pem.as_bytes(), &Limits::default()).unwrap();
    let crls = CrlBundle::parse(crl_pem.as_bytes(), &Limits::default()).unwrap();
    let leaf = Cert::from_der(pem_der(leaf_pem.as_bytes())).unwrap();
    let e = evaluate(&[leaf], &cas, &crls, RevocationMode::LeafOnly, now());
    assert_eq!(e.envoy.verdict, e.rustls.verdict, "{e:?}");
    e.envoy.verdict
}

/// Subjects rcgen's `DistinguishedName` cannot hold: an attribute type twice (rcgen keeps one
/// value, silently) and a multi-valued RDN (rcgen refuses the certificate). certgate-crl copies
/// the subject DER, so OpenSSL (and BoringSSL, which compares names the same way) match the
/// CRL to the CA; rcgen's CRL names another issuer.
#[test]
fn issuer_names_are_the_ca_subject_byte_for_byte_where_rcgen_cannot_follow() {
    let subjects = [
        ("/DC=com/DC=example/OU=clients/OU=edge/CN=Two of a kind CA", false),
        ("/O=certgate/CN=multi+OU=valued/emailAddress=ca@example.com", true),
    ];
    for (subject, multi_valued) in subjects {
        let ca = openssl_ca(KEYS[0].1, subject, true);
        let signer = ca.signer();
        let revoked =
            [RevokedCert::new(vec![0x51, 0x01], now()).with_reason(Reason::KeyCompromise)];
        let (pem, crl) = write_crl(&ca, &signer, &revoked);
        let cert = Cert::from_der(ca.der.clone()).unwrap();
        assert_eq!(crl.issuer_der(), signer.subject_der());
        assert_eq!(crl.info().issuer, cert.subject);
        let revoked_leaf = ca.leaf("5101");
        let good_leaf = ca.leaf("5102");
        let text = openssl_verify(&ca, &revoked_leaf);
        assert!(text.contains("certificate revoked"), "{subject}: {text}");
        assert!(openssl_verify(&ca, &good_leaf).contains("client.pem: OK"), "{subject}");
        assert_eq!(verdict(&ca, &pem, &revoked_leaf), Verdict::Revoked);
        assert_eq!(verdict(&ca, &pem, &good_leaf), Verdict::Accepted);
        no_warnings(&ca.pem, &pem);

        // rcgen, given the same CA and key.
        let key = KeyPair::try_from(ca.key_pkcs8.as_slice()).unwrap();
        let issuer = Issuer::from_ca_cert_der(&CertificateDer::from(ca.der.clone()), key);
        if multi_valued {
            assert!(
                issuer.is_err(),
                "rcgen now reads multi-valued RDNs: reconsider rcgen's writer"
            );
            continue;
        }
        let t = time::OffsetDateTime::now_utc();
        let rcgen_crl = CertificateRevocationListParams {
            this_update: t - time::Duration::hours(1),
            next_update: t + time::Duration::days(30),
            crl_number: SerialNumber::from(1u64),
            issuing_distribution_point: None,
            revoked_certs: vec![RevokedCertParams {
                serial_number: SerialNumber::from_slice(&[0x51, 0x01]),
                revocation_time: t,
                reason_code: Some(RevocationReason::KeyCompromise),
                invalidity_date: None,
            }],
            key_identifier_method: KeyIdMethod::PreSpecified(signer.authority_key_id().to_vec()),
        }
        .signed_by(&issuer.expect("rcgen reads this subject"))
        .expect("rcgen CRL");
        let rcgen_parsed = Crl::from_der(rcgen_crl.der().to_vec(), &Limits::default()).unwrap();
        assert_ne!(
            rcgen_parsed.issuer_der(),
            signer.subject_der(),
            "rcgen now keeps repeated attribute types: reconsider rcgen's writer"
        );
        assert_eq!(rcgen_parsed.info().issuer, "CN=Two of a kind CA,OU=edge,DC=example");
        std::fs::write(ca.path("crl.pem"), rcgen_crl.pem().unwrap()).unwrap();
        let text = openssl_verify(&ca, &revoked_leaf);
        assert!(text.contains("unable to get certificate CRL"), "rcgen's CRL is not found: {text}");
    }
}

/// A CA without subjectKeyIdentifier: the CRL's key identifier is what certgate's CA issuer
/// would give it (SHA-256 of the subjectPublicKey bits, 20 octets), and OpenSSL and certgate's
/// checks accept it.
#[test]
fn a_ca_without_subject_key_identifier_still_gets_an_authority_key_identifier() {
    let ca = openssl_ca(KEYS[0].1, "/CN=no SKI", false);
    let signer = ca.signer();
    assert!(!signer.authority_key_id_from_certificate());
    let (_, x509) = x509_parser::parse_x509_certificate(&ca.der).unwrap();
    let bits = &x509.public_key().subject_public_key.data;
    let digest = ring::digest::digest(&ring::digest::SHA256, bits);
    assert_eq!(signer.authority_key_id(), &digest.as_ref()[..20]);
    let (pem, crl) = write_crl(&ca, &signer, &[RevokedCert::new(vec![0x77], now())]);
    assert_eq!(crl.info().extensions.len(), 2);
    let text = openssl_ok(
        ca.dir.path(),
        &["crl", "-in", "crl.pem", "-CAfile", "ca.pem", "-noout", "-text"],
    );
    assert!(text.contains("verify OK"), "{text}");
    let leaf = ca.leaf("77");
    assert!(openssl_verify(&ca, &leaf).contains("certificate revoked"));
    no_warnings(&ca.pem, &pem);
}
