//! Arbitrary bytes through both entry points: neither may panic, and verification may only
//! turn a successful parse into an error, never change what is decoded.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let parsed = certgate_pki::parse_csr(data);
    if let Ok(decoded) = certgate_pki::decode_csr(data) {
        assert_eq!(parsed.ok(), Some(decoded));
    }
});
