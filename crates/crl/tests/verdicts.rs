//! Envoy verdicts on rcgen PKIs, each compared with the real `openssl verify -crl_check[_all]`.

mod common;

use certgate_crl::{Evaluation, RevocationMode, Verdict, evaluate};
use common::*;
use rcgen::{Issuer, KeyIdMethod, KeyPair};

use RevocationMode::{FullChain, LeafOnly};

/// root → inter → {good, revoked}; root → inter2 (revoked by root) → under2.
struct Pki {
    root: Ca,
    inter: Ca,
    inter2: Ca,
    good: Leaf,
    revoked: Leaf,
    under2: Leaf,
}

const INTER2_SERIAL: u64 = 0x4242;

fn pki() -> Pki {
    let root = root("root-ca");
    let inter = intermediate("unrevoked-sub-ca", 0x10, &root);
    let inter2 = intermediate("revoked-sub-ca", INTER2_SERIAL, &root);
    // 5000 = 0x1388 (minimal two bytes); 0x80 0x01 needs a leading zero in DER.
    let good = client("valid-client", &[0x13, 0x88], &inter);
    let revoked = client("revoked-client", &[0x80, 0x01], &inter);
    let under2 = client("client-under-revoked-ca", &[0x07], &inter2);
    Pki { root, inter, inter2, good, revoked, under2 }
}

impl Pki {
    fn root_crl(&self) -> String {
        fresh_crl(&self.root, &[&INTER2_SERIAL.to_be_bytes()[6..]])
    }
    fn inter_crl(&self) -> String {
        fresh_crl(&self.inter, &[&self.revoked.serial])
    }
    fn inter2_crl(&self) -> String {
        fresh_crl(&self.inter2, &[])
    }
    fn cas(&self) -> String {
        [self.root.pem.as_str(), &self.inter.pem, &self.inter2.pem].concat()
    }
    fn all_crls(&self) -> String {
        [self.root_crl(), self.inter_crl(), self.inter2_crl()].concat()
    }
}

/// Our Envoy verdict must equal `expected` and OpenSSL's answer on the same files.
fn agree(
    cas: &str,
    crls: &str,
    untrusted: &[&str],
    leaf: &Leaf,
    mode: RevocationMode,
    expected: Verdict,
) -> Evaluation {
    let mut chain_ders: Vec<&[u8]> = vec![&leaf.der];
    let untrusted_ders: Vec<Vec<u8>> = untrusted
        .iter()
        .map(|p| {
            certgate_crl::parse_pem_bundle(p.as_bytes(), &Default::default())
                .unwrap()
                .blocks
                .remove(0)
                .der
        })
        .collect();
    chain_ders.extend(untrusted_ders.iter().map(|d| d.as_slice()));
    let ca_bundle = parse_cas(&[cas]);
    let eval = evaluate(&chain(&chain_ders), &ca_bundle, &parse_crls(&[crls]), mode, now());
    let partial_chain = !ca_bundle.parsed().any(|(_, c)| c.self_issued);
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().to_path_buf();
    if std::env::var_os("KEEP_DIR").is_some() {
        std::mem::forget(dir);
        eprintln!("DIR {}", path.display());
    }
    let (ossl, text) = openssl_verdict(&path, cas, crls, untrusted, &leaf.pem, mode, partial_chain);
    assert_eq!(eval.envoy.verdict, expected, "ours: {}\nopenssl said:\n{text}", eval.envoy.reason);
    assert_eq!(ossl, expected, "openssl disagrees:\n{text}\nours: {}", eval.envoy.reason);
    eval
}

#[test]
fn full_chain_all_crls_accepts_valid_client() {
    let p = pki();
    let e = agree(&p.cas(), &p.all_crls(), &[], &p.good, FullChain, Verdict::Accepted);
    assert_eq!(e.rustls.verdict, Verdict::Accepted, "{}", e.rustls.reason);
    assert_eq!(e.path.len(), 3);
}

#[test]
fn full_chain_revoked_client() {
    let p = pki();
    let e = agree(&p.cas(), &p.all_crls(), &[], &p.revoked, FullChain, Verdict::Revoked);
    assert!(e.envoy.reason.contains("depth 0"), "{}", e.envoy.reason);
    assert_eq!(e.rustls.verdict, Verdict::Revoked);
}

#[test]
fn full_chain_client_under_revoked_intermediate() {
    let p = pki();
    let e = agree(&p.cas(), &p.all_crls(), &[], &p.under2, FullChain, Verdict::Revoked);
    assert!(e.envoy.reason.contains("depth 1"), "{}", e.envoy.reason);
}

#[test]
fn full_chain_missing_root_crl_is_unknown_ca() {
    let p = pki();
    let crls = [p.inter_crl(), p.inter2_crl()].concat();
    let e = agree(&p.cas(), &crls, &[], &p.good, FullChain, Verdict::UnknownCa);
    assert!(e.envoy.reason.contains("root-ca"), "{}", e.envoy.reason);
    // webpki never checks the trust anchor itself; here the path leaf → inter(anchor) passes.
    assert_eq!(e.rustls.verdict, Verdict::Accepted, "{}", e.rustls.reason);
}

#[test]
fn full_chain_only_sub_ca_crl_fails_valid_client_upstream_case() {
    // Spec §6.3: only the revoked-sub-ca CRL, valid client under unrevoked-sub-ca → unknown CA.
    let p = pki();
    agree(&p.cas(), &p.inter2_crl(), &[], &p.good, FullChain, Verdict::UnknownCa);
}

#[test]
fn leaf_only_with_only_issuer_crl() {
    let p = pki();
    agree(&p.cas(), &p.inter_crl(), &[], &p.good, LeafOnly, Verdict::Accepted);
    agree(&p.cas(), &p.inter_crl(), &[], &p.revoked, LeafOnly, Verdict::Revoked);
    // Spec §6.3: leaf-only, unrevoked client under the revoked sub-CA is accepted.
    let crls = [p.root_crl(), p.inter2_crl()].concat();
    agree(&p.cas(), &crls, &[], &p.under2, LeafOnly, Verdict::Accepted);
}

#[test]
fn leaf_only_without_the_leaf_issuers_crl_is_unknown_ca() {
    let p = pki();
    let e = agree(&p.cas(), &p.root_crl(), &[], &p.good, LeafOnly, Verdict::UnknownCa);
    assert_eq!(e.rustls.verdict, Verdict::UnknownCa);
}

#[test]
fn expired_crl() {
    let p = pki();
    let crls = [p.root_crl(), crl(&p.inter, &[], -10 * DAY, -DAY, 1)].concat();
    let e = agree(&p.cas(), &crls, &[], &p.good, FullChain, Verdict::CrlExpired);
    assert_eq!(e.rustls.verdict, Verdict::CrlExpired);
}

#[test]
fn crl_expiring_exactly_now_is_expired() {
    let p = pki();
    let crls = [p.root_crl(), crl(&p.inter, &[], -10 * DAY, 0, 1)].concat();
    agree(&p.cas(), &crls, &[], &p.good, FullChain, Verdict::CrlExpired);
}

#[test]
fn not_yet_valid_crl() {
    let p = pki();
    let crls = [p.root_crl(), crl(&p.inter, &[], DAY, 10 * DAY, 1)].concat();
    let e = agree(&p.cas(), &crls, &[], &p.good, FullChain, Verdict::CrlNotYetValid);
    // webpki has no thisUpdate check.
    assert_eq!(e.rustls.verdict, Verdict::Accepted);
}

#[test]
fn expired_root_crl_in_leaf_only_mode_is_not_consulted() {
    let p = pki();
    let crls = [crl(&p.root, &[], -10 * DAY, -DAY, 1), p.inter_crl()].concat();
    agree(&p.cas(), &crls, &[], &p.good, LeafOnly, Verdict::Accepted);
    agree(&p.cas(), &crls, &[], &p.good, FullChain, Verdict::CrlExpired);
}

#[test]
fn crl_signed_by_wrong_key_with_matching_akid_is_bad_signature() {
    let p = pki();
    let wrong = KeyPair::generate().unwrap();
    let forged = crl_params(&[], -DAY, 7 * DAY, 1, KeyIdMethod::PreSpecified(p.inter.key_id()))
        .signed_by(&Issuer::from_params(&p.inter.params, &wrong))
        .unwrap()
        .pem()
        .unwrap();
    let crls = [p.root_crl(), forged].concat();
    let e = agree(&p.cas(), &crls, &[], &p.good, FullChain, Verdict::BadCrlSignature);
    assert_eq!(e.rustls.verdict, Verdict::BadCrlSignature, "{}", e.rustls.reason);
}

#[test]
fn crl_signed_by_another_ca_with_its_own_akid_is_not_a_candidate() {
    // Issuer name of `inter` but AKID of the wrong key: BoringSSL discards it → no CRL.
    let p = pki();
    let wrong = KeyPair::generate().unwrap();
    let forged = crl_params(&[], -DAY, 7 * DAY, 1, KeyIdMethod::Sha256)
        .signed_by(&Issuer::from_params(&p.inter.params, &wrong))
        .unwrap()
        .pem()
        .unwrap();
    let crls = [p.root_crl(), forged].concat();
    agree(&p.cas(), &crls, &[], &p.good, FullChain, Verdict::UnknownCa);
}

#[test]
fn newest_of_several_crls_wins() {
    let p = pki();
    let old_revoking = crl(&p.inter, &[&p.good.serial], -3 * DAY, 7 * DAY, 1);
    let new_clean = crl(&p.inter, &[], -DAY, 7 * DAY, 2);
    let crls = [p.root_crl(), old_revoking.clone(), new_clean.clone()].concat();
    agree(&p.cas(), &crls, &[], &p.good, FullChain, Verdict::Accepted);
    let crls = [p.root_crl(), new_clean, old_revoking].concat();
    agree(&p.cas(), &crls, &[], &p.good, FullChain, Verdict::Accepted);
}

#[test]
fn valid_crl_preferred_over_expired_one() {
    let p = pki();
    let expired = crl(&p.inter, &[], -10 * DAY, -DAY, 1);
    let crls = [p.root_crl(), expired, p.inter_crl()].concat();
    agree(&p.cas(), &crls, &[], &p.revoked, FullChain, Verdict::Revoked);
    agree(&p.cas(), &crls, &[], &p.good, FullChain, Verdict::Accepted);
}

#[test]
fn intermediate_sent_by_the_client() {
    let p = pki();
    let cas = p.root.pem.clone();
    agree(&cas, &p.all_crls(), &[&p.inter.pem], &p.good, FullChain, Verdict::Accepted);
    agree(&cas, &p.all_crls(), &[&p.inter.pem], &p.revoked, FullChain, Verdict::Revoked);
    agree(&cas, &p.all_crls(), &[&p.inter2.pem], &p.under2, FullChain, Verdict::Revoked);
}

#[test]
fn no_path_to_the_bundle_is_unknown_ca() {
    let p = pki();
    let other = root("other-root");
    let stranger = client("stranger", &[0x55], &other);
    agree(&p.cas(), &p.all_crls(), &[], &stranger, FullChain, Verdict::UnknownCa);
    // The client sends its intermediate but the root is not trusted.
    let cas = p.inter2.pem.clone();
    let e = agree(&cas, &p.all_crls(), &[], &p.good, LeafOnly, Verdict::UnknownCa);
    assert!(e.envoy.reason.contains("unable to get local issuer"), "{}", e.envoy.reason);
}

#[test]
fn root_revoked_by_its_own_crl_differs_from_webpki() {
    let p = pki();
    let self_revoking = fresh_crl(&p.root, &[&[0x01]]);
    let crls = [self_revoking, p.inter_crl(), p.inter2_crl()].concat();
    let e = agree(&p.cas(), &crls, &[], &p.good, FullChain, Verdict::Revoked);
    assert!(e.envoy.reason.contains("depth 2"), "{}", e.envoy.reason);
    assert_eq!(e.rustls.verdict, Verdict::Accepted, "webpki does not check the anchor");
}

#[test]
fn revocation_is_reported_before_certificate_expiry() {
    let p = pki();
    let expired_revoked = client_valid("old-client", &[0x66], &p.inter, -60 * DAY, -DAY);
    let crls = [p.root_crl(), fresh_crl(&p.inter, &[&[0x66]]), p.inter2_crl()].concat();
    agree(&p.cas(), &crls, &[], &expired_revoked, FullChain, Verdict::Revoked);
    let expired_ok = client_valid("old-client-2", &[0x67], &p.inter, -60 * DAY, -DAY);
    let e = agree(&p.cas(), &crls, &[], &expired_ok, FullChain, Verdict::Rejected);
    assert!(
        e.envoy.reason.contains("a certificate of the chain expired at "),
        "{}",
        e.envoy.reason
    );
}

#[test]
fn empty_crl_lets_clients_through() {
    let p = pki();
    let crls = [p.root_crl(), fresh_crl(&p.inter, &[]), p.inter2_crl()].concat();
    agree(&p.cas(), &crls, &[], &p.revoked, FullChain, Verdict::Accepted);
}

#[test]
fn intermediate_only_bundle_in_full_chain_mode_fails() {
    // Spec §6.2 (partial chain): the anchor is the intermediate, its parent's CRL cannot be
    // matched (AKID of the absent root), so every client fails.
    let p = pki();
    let e = agree(&p.inter.pem, &p.all_crls(), &[], &p.good, FullChain, Verdict::UnknownCa);
    assert!(e.envoy.reason.contains("depth 1"), "{}", e.envoy.reason);
    agree(&p.inter.pem, &p.inter_crl(), &[], &p.good, LeafOnly, Verdict::Accepted);
}

#[test]
fn verdict_words_serialize_kebab_case() {
    let words: Vec<String> = [
        Verdict::Accepted,
        Verdict::Revoked,
        Verdict::UnknownCa,
        Verdict::CrlExpired,
        Verdict::CrlNotYetValid,
        Verdict::BadCrlSignature,
        Verdict::Rejected,
    ]
    .iter()
    .map(|v| {
        let json = serde_json::to_string(v).unwrap();
        assert_eq!(json, format!("\"{}\"", v.as_str()));
        v.to_string()
    })
    .collect();
    assert_eq!(
        words,
        [
            "accepted",
            "revoked",
            "unknown-ca",
            "crl-expired",
            "crl-not-yet-valid",
            "bad-crl-signature",
            "rejected"
        ]
    );
}
