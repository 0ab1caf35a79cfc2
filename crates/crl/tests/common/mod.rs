//! Test PKIs built with rcgen, and the real `openssl verify` as the reference.
#![allow(dead_code)]

use std::path::Path;
use std::process::Command;

use certgate_crl::{CaBundle, Cert, CrlBundle, Limits, RevocationMode, Timestamp, Verdict};
use rcgen::{
    BasicConstraints, CertificateParams, CertificateRevocationListParams, DnType,
    ExtendedKeyUsagePurpose, IsCa, Issuer, KeyIdMethod, KeyPair, KeyUsagePurpose, RevocationReason,
    RevokedCertParams, SerialNumber,
};
use time::OffsetDateTime;

/// The fixed "now" of every scenario: 2027-01-15T08:00:00Z.
pub const NOW: i64 = 1_800_000_000;
pub const DAY: i64 = 86_400;

pub fn now() -> Timestamp {
    Timestamp::from_unix(NOW)
}

pub fn at(offset: i64) -> OffsetDateTime {
    OffsetDateTime::from_unix_timestamp(NOW + offset).expect("valid test time")
}

/// A certificate with its key and params, able to issue.
pub struct Ca {
    pub params: CertificateParams,
    pub key: KeyPair,
    pub pem: String,
    pub der: Vec<u8>,
}

impl Ca {
    pub fn issuer(&self) -> Issuer<'_, &KeyPair> {
        Issuer::from_params(&self.params, &self.key)
    }

    pub fn key_id(&self) -> Vec<u8> {
        self.params.key_identifier(&self.key)
    }
}

pub struct Leaf {
    pub pem: String,
    pub der: Vec<u8>,
    pub serial: Vec<u8>,
}

fn ca_params(cn: &str, serial: u64) -> CertificateParams {
    let mut p = CertificateParams::new(Vec::<String>::new()).expect("params");
    p.distinguished_name.push(DnType::CommonName, cn);
    p.distinguished_name.push(DnType::OrganizationName, "certgate tests");
    p.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    p.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::CrlSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    p.not_before = at(-365 * DAY);
    p.not_after = at(365 * DAY);
    p.serial_number = Some(SerialNumber::from(serial));
    p
}

pub fn root(cn: &str) -> Ca {
    let params = ca_params(cn, 1);
    let key = KeyPair::generate().expect("key");
    let cert = params.self_signed(&key).expect("root");
    Ca { pem: cert.pem(), der: cert.der().to_vec(), params, key }
}

pub fn intermediate(cn: &str, serial: u64, parent: &Ca) -> Ca {
    let params = ca_params(cn, serial);
    let key = KeyPair::generate().expect("key");
    let cert = params.signed_by(&key, &parent.issuer()).expect("intermediate");
    Ca { pem: cert.pem(), der: cert.der().to_vec(), params, key }
}

pub fn client(cn: &str, serial: &[u8], parent: &Ca) -> Leaf {
    client_valid(cn, serial, parent, -30 * DAY, 30 * DAY)
}

pub fn client_valid(cn: &str, serial: &[u8], parent: &Ca, from: i64, to: i64) -> Leaf {
    let mut p = CertificateParams::new(Vec::<String>::new()).expect("params");
    p.distinguished_name.push(DnType::CommonName, cn);
    p.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
    p.key_usages = vec![KeyUsagePurpose::DigitalSignature];
    p.not_before = at(from);
    p.not_after = at(to);
    p.serial_number = Some(SerialNumber::from_slice(serial));
    let key = KeyPair::generate().expect("key");
    let cert = p.signed_by(&key, &parent.issuer()).expect("client");
    Leaf { pem: cert.pem(), der: cert.der().to_vec(), serial: serial.to_vec() }
}

/// A CRL from `ca` revoking `serials`, valid over [now+from, now+to], numbered `number`.
pub fn crl(ca: &Ca, serials: &[&[u8]], from: i64, to: i64, number: u64) -> String {
    crl_params(serials, from, to, number, KeyIdMethod::PreSpecified(ca.key_id()))
        .signed_by(&ca.issuer())
        .expect("crl")
        .pem()
        .expect("pem")
}

pub fn crl_params(
    serials: &[&[u8]],
    from: i64,
    to: i64,
    number: u64,
    kid: KeyIdMethod,
) -> CertificateRevocationListParams {
    CertificateRevocationListParams {
        this_update: at(from),
        next_update: at(to),
        crl_number: SerialNumber::from(number),
        issuing_distribution_point: None,
        revoked_certs: serials
            .iter()
            .map(|s| RevokedCertParams {
                serial_number: SerialNumber::from_slice(s),
                revocation_time: at(from),
                reason_code: Some(RevocationReason::KeyCompromise),
                invalidity_date: None,
            })
            .collect(),
        key_identifier_method: kid,
    }
}

/// A current CRL (valid from a day ago for 30 days, outside the default 7-day expiry window).
pub fn fresh_crl(ca: &Ca, serials: &[&[u8]]) -> String {
    crl(ca, serials, -DAY, 30 * DAY, 1)
}

pub fn parse_cas(pems: &[&str]) -> CaBundle {
    CaBundle::parse(pems.concat().as_bytes(), &Limits::default()).expect("ca bundle")
}

pub fn parse_crls(pems: &[&str]) -> CrlBundle {
    CrlBundle::parse(pems.concat().as_bytes(), &Limits::default()).expect("crl bundle")
}

pub fn chain(ders: &[&[u8]]) -> Vec<Cert> {
    ders.iter().map(|d| Cert::from_der(d.to_vec()).expect("chain cert")).collect()
}

/// Runs `openssl verify` the way Envoy configures BoringSSL (CRL check or CRL check all,
/// client purpose) and maps its first error to a verdict. Panics (fails the test loudly) when
/// `openssl` cannot be run.
///
/// `partial_chain`: OpenSSL 3 with `-partial_chain` ends the chain at the first trusted
/// certificate, while BoringSSL keeps adding trusted issuers up to a self-signed root (its
/// store loop in `X509_verify_cert`). So the flag is only passed when the bundle has no root,
/// which makes OpenSSL build the same chain BoringSSL builds.
pub fn openssl_verdict(
    dir: &Path,
    ca_pem: &str,
    crl_pem: &str,
    untrusted: &[&str],
    leaf_pem: &str,
    mode: RevocationMode,
    partial_chain: bool,
) -> (Verdict, String) {
    std::fs::write(dir.join("ca.pem"), ca_pem).expect("write ca");
    std::fs::write(dir.join("crl.pem"), crl_pem).expect("write crl");
    std::fs::write(dir.join("leaf.pem"), leaf_pem).expect("write leaf");
    let mut cmd = Command::new("openssl");
    cmd.current_dir(dir)
        .args(["verify", "-CAfile", "ca.pem", "-purpose", "sslclient"])
        .args(["-attime", &NOW.to_string()])
        .arg(match mode {
            RevocationMode::FullChain => "-crl_check_all",
            RevocationMode::LeafOnly => "-crl_check",
        });
    if partial_chain {
        cmd.arg("-partial_chain");
    }
    if !crl_pem.is_empty() {
        cmd.args(["-CRLfile", "crl.pem"]);
    }
    if !untrusted.is_empty() {
        std::fs::write(dir.join("untrusted.pem"), untrusted.concat()).expect("write untrusted");
        cmd.args(["-untrusted", "untrusted.pem"]);
    }
    cmd.arg("leaf.pem");
    let out = cmd.output().unwrap_or_else(|e| {
        panic!(
            "`openssl` must be installed to compare verdicts with the reference implementation: {e}"
        )
    });
    let text =
        format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    if out.status.success() && text.contains("leaf.pem: OK") {
        return (Verdict::Accepted, text);
    }
    let first_error = text.lines().find(|l| l.starts_with("error ")).unwrap_or("").to_string();
    let verdict = if first_error.contains("certificate revoked") {
        Verdict::Revoked
    } else if first_error.contains("unable to get certificate CRL")
        || first_error.contains("unable to get local issuer certificate")
        || first_error.contains("unable to get issuer certificate")
    {
        Verdict::UnknownCa
    } else if first_error.contains("CRL has expired") {
        Verdict::CrlExpired
    } else if first_error.contains("CRL is not yet valid") {
        Verdict::CrlNotYetValid
    } else if first_error.contains("CRL signature failure") {
        Verdict::BadCrlSignature
    } else if first_error.is_empty() {
        panic!("openssl gave neither OK nor an error line:\n{text}")
    } else {
        Verdict::Rejected
    };
    (verdict, text)
}
