//! Arbitrary bytes as the credentials a client sends the sandbox: as the `Authorization`
//! header (bearer tokens, JWTs signed or not), as impersonation headers, and as a `--users`
//! file. `certgate-access` never panics on them, never authenticates an unknown token (only
//! `system:anonymous` without a bearer), and never echoes a token in an error.
#![no_main]

use std::sync::OnceLock;

use certgate_access::{Authenticator, Impersonation, ServiceAccounts, StaticUsers, TokenSigner};
use libfuzzer_sys::fuzz_target;

struct Accounts;

impl ServiceAccounts for Accounts {
    fn service_account_uid(&self, _: &str, _: &str) -> Option<String> {
        Some("uid".to_owned())
    }

    fn secret_uid(&self, _: &str, _: &str) -> Option<String> {
        Some("uid".to_owned())
    }
}

fn authenticator() -> &'static Authenticator {
    static AUTHENTICATOR: OnceLock<Authenticator> = OnceLock::new();
    AUTHENTICATOR.get_or_init(|| {
        let signer = TokenSigner::generate().expect("a signing key");
        Authenticator::new("admin-token-for-fuzzing", StaticUsers::empty(), signer)
            .expect("an authenticator")
    })
}

fuzz_target!(|data: &[u8]| {
    let now = chrono::Utc::now();
    match authenticator().authenticate(Some(data), now, &Accounts) {
        Ok(user) => assert!(
            user.username == "system:anonymous" || data.ends_with(b"admin-token-for-fuzzing"),
            "{data:?} authenticated as {}",
            user.username
        ),
        Err(err) => {
            let text = format!("{err} {}", err.detail());
            if let Some(token) = std::str::from_utf8(data).ok().and_then(|h| h.strip_prefix("Bearer ")) {
                assert!(token.len() < 8 || !text.contains(token), "token echoed: {text}");
            }
        }
    }
    let headers = data.split(|b| *b == b'\n').filter_map(|line| {
        let colon = line.iter().position(|b| *b == b':')?;
        Some((std::str::from_utf8(&line[..colon]).ok()?, &line[colon + 1..]))
    });
    if let Ok(Some(impersonation)) = Impersonation::from_headers(headers) {
        let _ = impersonation.checks();
        let _ = impersonation.user_info();
    }
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = StaticUsers::from_yaml(text);
    }
});
