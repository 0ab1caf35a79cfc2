//! `certgate edge serve`'s refusals before it touches a cluster.

use std::process::Command;

#[test]
fn partial_xds_tls_flags_are_refused() {
    let output = Command::new(env!("CARGO_BIN_EXE_certgate"))
        .args(["edge", "serve", "--xds-tls-cert-file", "/nonexistent/tls.crt"])
        .env_remove("CONTOUR_KEY_FILE")
        .env_remove("CONTOUR_CAFILE")
        .output()
        .unwrap();
    // The status every certgate command exits with on an error (`CheckStatus::Failed`).
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "error: --xds-tls-cert-file, --xds-tls-key-file and --xds-tls-ca-file go together: give all three for mutual TLS, or none\n"
    );
}
