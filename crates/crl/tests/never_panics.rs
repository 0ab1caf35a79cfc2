//! Arbitrary bytes never panic anywhere in the public API.

mod common;

use certgate_crl::{
    CaBundle, CheckOptions, Crl, CrlBundle, Limits, RevocationMode, Timestamp, check_bundle,
    contains_pem_header, evaluate, validate_ca_pem, validate_crl_pem,
};
use proptest::prelude::*;

fn wrap(label: &str, body: &[u8]) -> Vec<u8> {
    use base64::Engine;
    let mut v = format!("-----BEGIN {label}-----\n").into_bytes();
    v.extend(base64::engine::general_purpose::STANDARD.encode(body).into_bytes());
    v.extend(format!("\n-----END {label}-----\n").into_bytes());
    v
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn raw_bytes(data in proptest::collection::vec(any::<u8>(), 0..2048)) {
        let _ = contains_pem_header(&data);
        let _ = validate_crl_pem(&data);
        let _ = validate_ca_pem(&data);
        let _ = Crl::from_der(data.clone(), &Limits::default());
        let crls = CrlBundle::parse(&data, &Limits::default()).unwrap_or_default();
        let cas = CaBundle::parse(&data, &Limits::default()).unwrap_or_default();
        let _ = check_bundle(&crls, &cas, &CheckOptions::new(Timestamp::from_unix(0)));
    }

    #[test]
    fn der_inside_pem(body in proptest::collection::vec(any::<u8>(), 0..1024)) {
        let crls = CrlBundle::parse(&wrap("X509 CRL", &body), &Limits::default()).unwrap();
        let cas = CaBundle::parse(&wrap("CERTIFICATE", &body), &Limits::default()).unwrap();
        let _ = check_bundle(&crls, &cas, &CheckOptions::new(Timestamp::from_unix(1_800_000_000)));
    }

    #[test]
    fn mutated_real_crl(flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8)) {
        let root = common::root("root-ca");
        let leaf = common::client("c", &[0x13, 0x88], &root);
        let pem = common::fresh_crl(&root, &[&[1], &[0x13, 0x88]]);
        let mut der = certgate_crl::parse_pem_bundle(pem.as_bytes(), &Limits::default()).unwrap().blocks.remove(0).der;
        for (i, b) in &flips {
            let at = i.index(der.len());
            der[at] ^= b;
        }
        let crls = CrlBundle::parse(&wrap("X509 CRL", &der), &Limits::default()).unwrap();
        let cas = common::parse_cas(&[&root.pem]);
        let chain = common::chain(&[&leaf.der]);
        for mode in [RevocationMode::FullChain, RevocationMode::LeafOnly] {
            let _ = evaluate(&chain, &cas, &crls, mode, common::now());
        }
        let _ = check_bundle(&crls, &cas, &CheckOptions::new(common::now()));
    }
}
