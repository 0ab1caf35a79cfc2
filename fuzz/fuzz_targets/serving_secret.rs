//! Arbitrary bytes as the three keys of the dynamic-serving CA Secret (`tls.crt`, `tls.key`,
//! `ca.crt`; the first two input bytes give the split points): planning what to do with it
//! never panics, and whatever it plans to serve or write holds a CA that is valid now.
#![no_main]

use std::time::{Duration, SystemTime};

use certgate_webhook::dynamic_serving::plan::{CaPlan, plan_ca};
use certgate_webhook::dynamic_serving::secret::CaSecretData;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: &[u8]| {
    let Some((&[a, b], rest)) = input.split_first_chunk::<2>() else {
        return;
    };
    let (tls_crt, rest) = rest.split_at(usize::from(a) * rest.len() / 256);
    let (tls_key, ca_crt) = rest.split_at(usize::from(b) * rest.len() / 256);
    let data = CaSecretData { tls_crt: Some(tls_crt), tls_key: Some(tls_key), ca_crt: Some(ca_crt) };
    let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000);
    let year = Duration::from_secs(365 * 24 * 3600);
    if let Ok(plan) = plan_ca(Some(&data), now, year) {
        let authority = match &plan {
            CaPlan::Use(authority) => authority,
            CaPlan::Write { authority, .. } => authority,
        };
        assert!(authority.validity().contains(now), "planned a CA not valid now");
    }
});
