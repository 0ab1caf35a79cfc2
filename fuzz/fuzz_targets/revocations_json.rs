//! Arbitrary bytes as a CRL Secret's `revocations.json` (what `certgate revoke` and the
//! `issuers-crl` controller read), and as a stored private key (`tls.key` of a Certificate's
//! next-key Secret, converted for signing): the parser and the key conversion never panic, and
//! an accepted list writes back to text that parses to the same list.
#![no_main]

use certgate_crl::build::{RevocationLimits, parse_revocations, revocations_to_json};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: &[u8]| {
    let limits = RevocationLimits::default();
    if let Ok(list) = parse_revocations(input, &limits) {
        let written = revocations_to_json(&list);
        let again = parse_revocations(written.as_bytes(), &limits)
            .expect("a list certgate wrote parses again");
        assert_eq!(again, list, "the list survives writing and reading");
    }
    let _ = certgate_pki::generate::key_to_pkcs8(input);
});
