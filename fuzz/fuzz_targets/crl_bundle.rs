//! Arbitrary bytes as `crl.pem` and `ca.crt` (the first input byte gives the split point):
//! Contour's validation, bundle parsing, the checks and a verdict never panic, and a bundle
//! Contour rejects as "failed to locate CRL" holds no CRL block.
#![no_main]

use certgate_crl::{
    CaBundle, CheckOptions, ContourPemError, CrlBundle, Limits, RevocationMode, Timestamp, check_bundle, evaluate,
    validate_crl_pem,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: &[u8]| {
    let Some((&split, rest)) = input.split_first() else {
        return;
    };
    let (crl_pem, ca_pem) = rest.split_at(usize::from(split) * rest.len() / 256);
    let limits = Limits { max_bundle_bytes: 1 << 20, ..Limits::default() };
    let verdict = validate_crl_pem(crl_pem);
    let (Ok(crls), Ok(cas)) = (CrlBundle::parse(crl_pem, &limits), CaBundle::parse(ca_pem, &limits)) else {
        return;
    };
    if verdict == Err(ContourPemError::NoCrl) {
        assert!(crls.items.is_empty(), "Contour found no CRL but the bundle parser did");
    }
    let now = Timestamp::from_unix(1_800_000_000);
    let _ = check_bundle(&crls, &cas, &CheckOptions::new(now));
    let chain: Vec<_> = cas.items.iter().filter_map(|i| i.cert.clone().ok()).collect();
    let _ = evaluate(&chain, &cas, &crls, RevocationMode::FullChain, now);
});
