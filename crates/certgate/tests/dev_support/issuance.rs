//! What the issuance end-to-end tests share: waiting for a controller's write, the real
//! `openssl`, a CA made with rcgen, and YAML block scalars.

use std::process::Command;
use std::time::{Duration, Instant};

/// Generous: the controllers react within milliseconds, but CI machines are shared.
pub const DEADLINE: Duration = Duration::from_secs(90);

/// Polls `check` every 200 ms until it returns `Some`, or fails with `what` after
/// [`DEADLINE`].
pub fn eventually<T>(what: &str, mut check: impl FnMut() -> Option<T>) -> T {
    let start = Instant::now();
    loop {
        if let Some(value) = check() {
            return value;
        }
        assert!(start.elapsed() < DEADLINE, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Runs the real `openssl`, which must succeed; its standard output.
pub fn openssl(args: &[&str]) -> String {
    let output = Command::new("openssl").args(args).output().expect("openssl is installed");
    assert!(
        output.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// Indents `text` by `spaces` on every line (for YAML block scalars).
pub fn indented(text: &str, spaces: usize) -> String {
    let pad = " ".repeat(spaces);
    text.lines().map(|line| format!("{pad}{line}\n")).collect()
}

/// A CA named `cn` (P-256): its certificate and key, PEM.
pub fn ca(cn: &str) -> (String, String) {
    let key = rcgen::KeyPair::generate().unwrap();
    let mut params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    params.distinguished_name.push(rcgen::DnType::CommonName, cn);
    params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    params.key_usages =
        vec![rcgen::KeyUsagePurpose::KeyCertSign, rcgen::KeyUsagePurpose::DigitalSignature];
    let certificate = params.self_signed(&key).unwrap();
    (certificate.pem(), key.serialize_pem())
}
